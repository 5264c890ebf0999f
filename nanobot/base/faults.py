"""Named fault points for the fault-injection tests: ``point("name")`` marks a place where a crash
or a concurrent edit matters.

``NANOBOT_FAULT=name`` kills the process there with SIGKILL (what ``kill -9`` or a power cut does);
``NANOBOT_FAULT=name:pause`` creates ``$NANOBOT_HOME/fault-name.paused`` and waits (up to 60 s) until a
test deletes it, so the test can act at exactly that moment (e.g. edit MEMORY.md mid-reflection).
Unset (always, outside tests) a point costs one comparison: the variable is read once, at import.

Points: ``reply-streaming`` (agent, mid-reply), ``transcript-append`` (session, between the bytes of
one record), ``reindex-write`` (memory index transaction open), ``reflect-write`` (reflector merged,
before writing MEMORY.md), ``observation-write`` (observer drafted, before writing the file), ``consolidate-suggested`` and
``consolidate-reviewed`` (per-chat consolidation, between its passes), ``vault-intent``,
``vault-doc-written`` and ``vault-ledger-appended`` (knowledge_apply, after each step of its order),
``model-slice-streamed`` (models install, after the first slice went into the ``.part`` file),
``model-load`` (chat, before the model loads: behind the prompt on a terminal).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

_SPEC = os.environ.get("NANOBOT_FAULT", "")
_NAME, _, _ACTION = _SPEC.partition(":")


def active(name: str) -> bool:
    return bool(_NAME) and name == _NAME


def point(name: str) -> None:
    """Crash (or pause) here when NANOBOT_FAULT names this point; otherwise do nothing."""
    global _NAME
    if not _NAME or name != _NAME:
        return
    if _ACTION == "pause":
        _NAME = ""  # pause once: a retry after the test's edit runs straight through
        _pause(name)
        return
    os.kill(os.getpid(), signal.SIGKILL)


def _pause(name: str) -> None:
    gate = Path(os.environ.get("NANOBOT_HOME", ".")) / f"fault-{name}.paused"
    gate.parent.mkdir(parents=True, exist_ok=True)
    gate.touch()
    deadline = time.monotonic() + 60
    while gate.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
