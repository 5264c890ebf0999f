"""Where the real-model tests find Qwen2.5-Coder-1.5B: ``NANOBOT_QWEN_GGUF``, else where
``nanobot models install qwen2.5-coder-1.5b`` put it (``$NANOBOT_HOME`` or ``~/.nanobot``), read
before any fixture isolates ``NANOBOT_HOME``. Absent: the tests skip and say how to get it."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from nanobot.catalogue.entries import CATALOGUE

ENTRY = CATALOGUE["qwen2.5-coder-1.5b"]
_HOME = Path(os.environ.get("NANOBOT_HOME") or Path.home() / ".nanobot").expanduser()
SKIP_REASON = ("Qwen2.5-Coder-1.5B is not installed: run `nanobot models install qwen2.5-coder-1.5b` "
               "(or set NANOBOT_QWEN_GGUF=/path/to/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)")


# The prompt's Time section changes every minute, and a decision near its threshold can follow it:
# the real-model tests run at one fixed moment so that they do not depend on the hour they run at.
FIXED_NOW = datetime(2026, 3, 2, 10, 0).astimezone()


def fixed_clock() -> datetime:
    return FIXED_NOW


def qwen_path() -> Path | None:
    env = os.environ.get("NANOBOT_QWEN_GGUF")
    path = Path(env).expanduser() if env else _HOME / "models" / ENTRY.file
    return path if path.is_file() else None


def qwen_agent(home: Path, max_tokens: int = 64, **settings):
    """An Agent on the real 1.5B with nanobot's tools, memory and the observer off, temperature 0,
    at ``FIXED_NOW``."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.loop.agent import Agent
    from nanobot.models import resolve_model
    from nanobot.tools.feature import attach_tools
    from nanobot.workspace import init_workspace

    loaded = load_settings(home, memory={"enabled": False}, observer={"enabled": False},
                           chat={"temperature": 0, "max_tokens": max_tokens}, **settings)
    init_workspace(loaded.workspace)
    agent = Agent(loaded, LlamaBackend(resolve_model(loaded, str(qwen_path()))), clock=fixed_clock)
    attach_tools(agent)
    return agent
