"""The system prompt's sections, in cache-friendly order: stable first, volatile last.

How to add a section: write a function returning a ``RawSection`` (name, text, budget from
``PromptSettings``, ``stable``) and add it to ``system_sections`` at the right place: before ``time``
if it changes less often than once per session, never per turn (per-turn material goes with the user
message so the cached prefix stays valid).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nanobot.config import Settings
from nanobot.prompt import RawSection
from nanobot.workspace import read_text, visible_text


def soul_section(workspace: Path, settings: Settings) -> RawSection:
    return RawSection(name="soul", text=visible_text(read_text(workspace / "SOUL.md")),
                      budget=settings.prompt.soul)


def user_section(workspace: Path, settings: Settings) -> RawSection:
    text = visible_text(read_text(workspace / "USER.md"))
    return RawSection(name="user", text=_strip_title(text), budget=settings.prompt.user,
                      header="## About the user")


def tools_section(names: list[str], settings: Settings) -> RawSection:
    text = ", ".join(names)
    return RawSection(name="tools", text=text, budget=settings.prompt.tools, header="## Tools")


def context_section(workspace: Path, settings: Settings) -> RawSection:
    text = visible_text(read_text(workspace / "CONTEXT.md"))
    return RawSection(name="context", text=_strip_title(text), budget=settings.prompt.context,
                      header="## Context")


def time_section(now: datetime, settings: Settings, extra: str = "") -> RawSection:
    """Volatile: fixed for the whole session (set at its start) so turns share the prefix."""
    text = f"Now: {now:%A %Y-%m-%d %H:%M}"
    if extra:
        text += "\n" + extra
    return RawSection(name="time", text=text, budget=settings.prompt.time, stable=False,
                      header="## Time")


def system_sections(workspace: Path, settings: Settings, tool_names: list[str], now: datetime,
                    time_extra: str = "", context_text: str | None = None) -> list[RawSection]:
    ctx = context_section(workspace, settings)
    if context_text is not None:
        ctx.text = context_text
    return [
        soul_section(workspace, settings),
        user_section(workspace, settings),
        tools_section(tool_names, settings),
        ctx,
        time_section(now, settings, time_extra),
    ]


def _strip_title(text: str) -> str:
    """Drop a leading '# Title' line: the section header replaces it."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()
