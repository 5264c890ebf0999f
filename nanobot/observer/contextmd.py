"""CONTEXT.md as a pydantic model: parse <-> render, user edits preserved, a token budget enforced.

The file has four known sections (``## Now``, ``## Time``, ``## Recent``, ``## External``). Known
fields (``- Focus: ...``) are parsed into typed attributes; every other line (HTML comments, a field
the user added, prose) is kept verbatim in the section's ``extra`` lines, and unknown sections are kept
whole, so a user's edits survive every rewrite. ``render(parse(text)) == text`` for any file in the
canonical layout (the template, and everything ``render`` writes); ``parse(render(doc)) == doc`` always.

>>> doc = ContextDoc.parse("# Context\\n\\n## Now\\n- Focus: the parser\\n- Mood: good\\n")
>>> doc.now.focus, doc.now.extra
('the parser', ['- Mood: good'])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from nanobot.base.atomic import atomic_write
from nanobot.base.shorten import shorten
from nanobot.base.userfile import update_user_file
from nanobot.workspace import read_text, visible_text

MAX_RECENT = 5
MAX_VALUE_CHARS = 200
Counter = Callable[[str], int]

_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_FIELD = re.compile(r"^\s*[-*]\s*([A-Za-z][A-Za-z ]{0,30}?)\s*:\s?(.*)$")
_BULLET = re.compile(r"^\s*[-*]\s+(.*\S)\s*$")


def approx_tokens(text: str) -> int:
    """A tokenizer-free estimate (~4 characters per token), used when no model is at hand."""
    return (len(text) + 3) // 4


class _Fields(BaseModel):
    extra: list[str] = Field(default_factory=list)  # lines kept verbatim (comments, user fields)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()  # fields written only when set (not in the template)

    def lines(self) -> list[str]:
        out = [f"- {info.alias or name.replace('_', ' ').capitalize()}: {getattr(self, name)}".rstrip()
               for name, info in type(self).model_fields.items()
               if name != "extra" and (getattr(self, name) or name not in self.OPTIONAL)]
        return out + self.extra


class Now(_Fields):
    focus: str = ""
    task: str = ""
    blocked: str = ""
    next: str = ""  # the open step the last session left (an observation's first open item)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"next"})


class TimeInfo(_Fields):
    last_session: str = ""
    session_started: str = ""
    pattern: str = ""


class OtherSection(BaseModel):
    name: str
    lines: list[str] = Field(default_factory=list)


class ContextDoc(BaseModel):
    preamble: list[str] = Field(default_factory=lambda: ["# Context"])
    now: Now = Field(default_factory=Now)
    time: TimeInfo = Field(default_factory=TimeInfo)
    recent: list[str] = Field(default_factory=list, max_length=MAX_RECENT)
    recent_extra: list[str] = Field(default_factory=list)
    external: list[str] = Field(default_factory=list)
    external_extra: list[str] = Field(default_factory=list)
    other: list[OtherSection] = Field(default_factory=list)  # user sections, kept whole

    # -- parse / render ----------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> ContextDoc:
        blocks = _split(text)
        doc = cls(preamble=_trim_blank(blocks.pop(0)[1]))
        for name, lines in blocks:
            key = name.strip().lower()
            if key == "now":
                doc.now = _parse_fields(Now, lines)
            elif key == "time":
                doc.time = _parse_fields(TimeInfo, lines)
            elif key == "recent":
                items, doc.recent_extra = _parse_bullets(lines)
                doc.recent = items[:MAX_RECENT]
            elif key == "external":
                doc.external, doc.external_extra = _parse_bullets(lines)
            else:
                doc.other.append(OtherSection(name=name, lines=_trim_blank(lines)))
        return doc

    def render(self) -> str:
        parts = ["\n".join(self.preamble)] if self.preamble else []
        parts.append(_block("Now", self.now.lines()))
        parts.append(_block("Time", self.time.lines()))
        parts.append(_block("Recent", [f"- {r}" for r in self.recent] + self.recent_extra))
        parts.append(_block("External", [f"- {e}" for e in self.external] + self.external_extra))
        parts += [_block(o.name, o.lines) for o in self.other]
        return "\n\n".join(parts) + "\n"

    # -- updates -----------------------------------------------------------------------------
    def add_recent(self, items: list[str]) -> None:
        """Newest first; duplicates move to the top; at most five are kept."""
        fresh = [_clip(i) for i in items if i.strip()]
        keep = [r for r in self.recent if r.lower() not in {f.lower() for f in fresh}]
        self.recent = (fresh + keep)[:MAX_RECENT]

    def set_now(self, focus: str = "", task: str = "", blocked: str | None = None,
                next: str | None = None) -> None:
        if focus.strip():
            self.now.focus = _clip(focus)
        if task.strip():
            self.now.task = _clip(task)
        if blocked is not None:
            self.now.blocked = _clip(blocked)
        if next is not None:
            self.now.next = _clip(next)

    def prompt_text(self) -> str:
        """What the CONTEXT section of the system prompt shows: Now, Recent, External and the
        user's own sections (the Time fields go to the volatile Time section instead)."""
        shown = self.model_copy(deep=True)
        shown.time = TimeInfo()
        text = visible_text(shown.render())
        lines = text.splitlines()
        if lines and lines[0].startswith("# "):
            lines = lines[1:]
        # sub-headings under the prompt's own "## Context" header
        return "\n".join("#" + ln if ln.startswith("## ") else ln for ln in lines).strip()

    def fit(self, budget: int, count: Counter = approx_tokens) -> list[str]:
        """Shrink until ``prompt_text`` fits ``budget`` tokens; return what was dropped.

        Order: oldest Recent items, then External lines, then Recent entirely; the user's own
        sections and the Now fields are never dropped here (the prompt builder trims those).
        """
        dropped: list[str] = []
        while count(self.prompt_text()) > budget:
            if len(self.recent) > 1:
                dropped.append(f"recent: {self.recent.pop()}")
            elif self.external:
                dropped.append(f"external: {self.external.pop()}")
            elif self.recent:
                dropped.append(f"recent: {self.recent.pop()}")
            else:
                break
        return dropped


def load_context(path: Path) -> ContextDoc:
    text = read_text(path)
    return ContextDoc.parse(text) if text.strip() else ContextDoc()


def save_context(path: Path, doc: ContextDoc, budget: int, count: Counter = approx_tokens) -> list[str]:
    """Fit ``doc`` to ``budget`` and write it atomically; return what the budget dropped."""
    dropped = doc.fit(budget, count)
    atomic_write(path, doc.render())
    return dropped


def update_context(path: Path, change: Callable[[ContextDoc], None], budget: int,
                   count: Counter = approx_tokens) -> list[str]:
    """Apply ``change`` to CONTEXT.md by read-merge-write (``userfile.update_user_file``): a line
    the user adds meanwhile is merged, never overwritten. Returns what the budget dropped."""
    dropped: list[str] = []

    def merge(text: str) -> str:
        doc = ContextDoc.parse(text) if text.strip() else ContextDoc()
        change(doc)
        dropped[:] = doc.fit(budget, count)
        return doc.render()

    update_user_file(path, merge)
    return dropped


# -- helpers ---------------------------------------------------------------------------------
def _clip(value: str) -> str:
    return shorten(value, MAX_VALUE_CHARS)


def _split(text: str) -> list[tuple[str, list[str]]]:
    """[(section name, lines)], the first entry being the preamble (name ''); comment-aware."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    in_comment = False
    for line in text.splitlines():
        m = None if in_comment else _HEADING.match(line)
        if m:
            blocks.append((m.group(1), []))
        else:
            blocks[-1][1].append(line)
        if "<!--" in line and "-->" not in line.split("<!--")[-1]:
            in_comment = True
        elif in_comment and "-->" in line:
            in_comment = False
    return blocks


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _parse_fields(cls: type[_Fields], lines: list[str]) -> _Fields:
    names = {n.replace("_", " "): n for n in cls.model_fields if n != "extra"}
    values: dict[str, str] = {}
    extra: list[str] = []
    in_comment = False
    for line in _trim_blank(lines):
        m = None if in_comment else _FIELD.match(line)
        key = m.group(1).strip().lower() if m else ""
        if m and key in names and names[key] not in values:
            values[names[key]] = m.group(2).strip()
        else:
            extra.append(line)
        if "<!--" in line and "-->" not in line.split("<!--")[-1]:
            in_comment = True
        elif in_comment and "-->" in line:
            in_comment = False
    return cls(extra=extra, **values)


def _parse_bullets(lines: list[str]) -> tuple[list[str], list[str]]:
    items: list[str] = []
    extra: list[str] = []
    in_comment = False
    for line in _trim_blank(lines):
        m = None if in_comment else _BULLET.match(line)
        (items.append(m.group(1)) if m else extra.append(line))
        if "<!--" in line and "-->" not in line.split("<!--")[-1]:
            in_comment = True
        elif in_comment and "-->" in line:
            in_comment = False
    return items, extra


def _block(name: str, lines: list[str]) -> str:
    return "\n".join([f"## {name}", *lines])
