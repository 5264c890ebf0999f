"""The "full dump" baseline: the prompt a runtime without nanobot's design would send.

Built from the same workspace as the lean prompt: SOUL, USER and CONTEXT whole (no budgets), every
registered tool's JSON schema, the whole MEMORY.md and the most recent observation files, as runtimes
that put everything into every prompt do. Parts that cannot be built (a tool module not importable yet,
no observations) are listed in ``FullDump.missing`` so the comparison stays honest.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.core.prompt import SEPARATOR
from nanobot.workspace import read_text, visible_text


class DumpSection(BaseModel):
    name: str
    text: str
    tokens: int = 0


class FullDump(BaseModel):
    sections: list[DumpSection]
    missing: list[str] = Field(default_factory=list)  # parts that could not be built

    @property
    def text(self) -> str:
        return SEPARATOR.join(s.text for s in self.sections if s.text)


def tool_schemas() -> tuple[list[dict], list[str]]:
    """Every tool's schema (the registry's, then the features' ``TOOLS``), and the registry entries
    that could not be imported."""
    try:
        from nanobot.tools.registry import BUILTINS
    except ImportError:
        return [], ["tools (nanobot.tools.registry not importable)"]
    schemas, missing = [], []
    for spec in BUILTINS:
        module, _, cls_name = spec.partition(":")
        try:
            cls = getattr(importlib.import_module(module), cls_name)
            schemas.append(cls.schema())
        except (ImportError, AttributeError) as e:
            missing.append(f"tool {spec} ({type(e).__name__})")
    from nanobot.runtime import feature_tools

    return schemas + [cls.schema() for cls in feature_tools()], missing


def recent_observations(workspace: Path, n_files: int = 3) -> str:
    files = sorted((workspace / "observations").glob("*.md"))[-n_files:]
    return "\n\n".join(visible_text(read_text(p)).strip() for p in files).strip()


def build_full_dump(workspace: Path, count) -> FullDump:
    """The full-dump system prompt for ``workspace``, with ``count(text)`` tokens per section."""
    schemas, missing = tool_schemas()
    parts = [
        ("soul", visible_text(read_text(workspace / "SOUL.md"))),
        ("user", visible_text(read_text(workspace / "USER.md"))),
        ("tools (all schemas)", "## Tools\n" + "\n".join(json.dumps(s) for s in schemas) if schemas else ""),
        ("context", visible_text(read_text(workspace / "CONTEXT.md"))),
        ("memory (whole MEMORY.md)", visible_text(read_text(workspace / "MEMORY.md"))),
        ("observations (recent)", recent_observations(workspace)),
    ]
    if not parts[-1][1]:
        missing.append("observations (none in the workspace)")
    sections = [DumpSection(name=name, text=text.strip(), tokens=count(text.strip()))
                for name, text in parts if text.strip()]
    return FullDump(sections=sections, missing=missing)
