"""A starting config.toml: every section and every setting with its default, commented out, so a user
has a file to edit (``nanobot init`` and the first ``nanobot chat`` write it; an existing file is never
touched).

Generated from the pydantic models in ``nanobot/config/``, so it cannot drift from them: each key's
default comes from its field and its comment from the ``# ...`` after the field in the source. The
section headers are live (an empty table sets nothing) and every key is commented: the file changes
no setting until the user uncomments a line. Settings without a default value (``None``) are shown
as ``# key =`` with what leaving them unset means.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import tomli_w
from pydantic import BaseModel

from nanobot.base.atomic import atomic_write
from nanobot.config import ModelSettings, Settings

HEAD = """\
# nanobot configuration. Every setting is listed with its default, commented out: uncomment a line
# and change its value. Environment variables override this file (NANOBOT_MODEL=...,
# NANOBOT_PROMPT__CAP=1500: nested keys use "__"). Check it with: nanobot models
"""
EXAMPLES: dict[str, list[str]] = {
    "model": ['# model = "smollm2"   # the bundled default; a name below ([models.NAME]) or a path to any .gguf'],
    "models": ["# One block per model you add (the bundled SmolLM2 needs none):",
               "# [models.qwen]",
               '# path = "~/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"'],
    "tools.roots": ['# roots = ["~/code", "~/notes"]   # an example (default: none): folders the file tools may use '
                    "besides the workspace; a path you type resolves against the directory you started nanobot in "
                    "when it is inside one"],
    "mcp.servers": ["# [mcp.servers.files]   # one block per MCP server",
                    '# command = "npx"',
                    '# args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]'],
}
_FIELD = re.compile(r"^\s+(\w+)\s*:[^#]*?(?:#\s*(.*))?$")


def _comments(cls: type[BaseModel]) -> dict[str, str]:
    """Field name -> the ``# comment`` after it in the class's source (empty when none)."""
    try:
        src = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    out: dict[str, str] = {}
    for line in src.splitlines():
        m = _FIELD.match(line)
        if m and m.group(1) in cls.model_fields and m.group(1) not in out:
            out[m.group(1)] = (m.group(2) or "").strip()
    return out


def _value(v: object) -> str | None:
    """A default as TOML, or None when TOML cannot say it (no value)."""
    if v is None:
        return None
    if isinstance(v, Path):
        v = str(v)
    if isinstance(v, list):  # inline, on one line (tomli_w breaks longer arrays over lines)
        items = [_value(x) for x in v]
        return None if None in items else "[" + ", ".join(items) + "]"
    try:
        return tomli_w.dumps({"k": v}).split("=", 1)[1].strip()
    except (TypeError, ValueError):
        return None


def _keys(model: BaseModel, prefix: str) -> list[str]:
    comments = _comments(type(model))
    lines = []
    for name in type(model).model_fields:
        key = f"{prefix}.{name}" if prefix else name
        if key in EXAMPLES:
            lines += EXAMPLES[key]
            continue
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            continue
        text = _value(value)
        note = comments.get(name, "")
        if text is None:
            lines.append(f"# {name} =   # unset{': ' + note if note else ''}")
        else:
            lines.append(f"# {name} = {text}" + (f"   # {note}" if note else ""))
    return lines


def render_default() -> str:
    """The commented config.toml text: the models' own defaults (never the environment's overrides)."""
    out = [HEAD, *EXAMPLES["model"], "", *EXAMPLES["models"]]
    out += _keys(ModelSettings(path=Path("x")), "models.x")[1:]  # after the example's path
    for name, field in Settings.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out += ["", f"[{name}]", *_keys(kind(), name)]
    return "\n".join(out) + "\n"


def write_default(settings: Settings) -> Path | None:
    """Write the commented config.toml when there is none; the path written, or None (one exists)."""
    path = settings.config_path
    if path.exists():
        return None
    atomic_write(path, render_default())
    return path
