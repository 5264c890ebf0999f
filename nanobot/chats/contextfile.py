"""A chat's ``CONTEXT.md`` as a model: parse <-> render, keeping every line a user added by hand.

The file (``$NANOBOT_HOME/chats/<id>/CONTEXT.md``)::

    <!-- nanobot-managed:v1 -->
    # Chat: team
    ## Ongoing
    - Porting the parser to Rust (by alice) [2026-11-20]
    ## Pending
    ## Recent Topics
    ## Preferences
    ---
    *Last updated: 2026-11-21 02:00*

A managed item is ``- text [YYYY-MM-DD]`` (the day it was last mentioned), with ``(by NAME)`` before
the date in group chats. Any other line in a known section is a hand line: kept, in its section, never
pruned. Unknown sections and text above the first section are kept verbatim.

>>> doc = ContextFile.parse("## Pending\\n- Send the invoice [2026-11-20]\\n- my own note\\n")
>>> [(i.category, i.text) for i in doc.items], doc.hand["pending"]
([('pending', 'Send the invoice')], ['- my own note'])
"""

from __future__ import annotations

import re
from datetime import date, datetime

from pydantic import BaseModel, Field

MARKER = "<!-- nanobot-managed:v1 -->"
SECTIONS = {"ongoing": "Ongoing", "pending": "Pending", "topics": "Recent Topics", "preferences": "Preferences"}
PRIORITY = {"pending": 4, "ongoing": 3, "preferences": 2, "topics": 1}  # the cap drops low ones first
_ITEM = re.compile(r"^- (?P<text>.+?)(?: \(by (?P<who>[^()]+)\))? \[(?P<date>\d{4}-\d{2}-\d{2})\]\s*$")
_UPDATED = re.compile(r"^\*Last updated: (\d{4}-\d{2}-\d{2} \d{2}:\d{2})\*\s*$")


class Item(BaseModel):
    category: str  # a key of SECTIONS
    text: str
    date: date  # last mentioned
    who: str = ""  # who raised it (group chats)

    def line(self, group: bool) -> str:
        who = f" (by {self.who})" if group and self.who else ""
        return f"- {self.text}{who} [{self.date.isoformat()}]"


class ContextFile(BaseModel):
    chat: str = ""
    items: list[Item] = Field(default_factory=list)
    hand: dict[str, list[str]] = Field(default_factory=dict)  # section key -> hand lines
    preamble: list[str] = Field(default_factory=list)  # hand text above the first section
    extra: list[str] = Field(default_factory=list)  # unknown sections, verbatim (headers included)
    updated: datetime | None = None

    @classmethod
    def parse(cls, text: str) -> ContextFile:
        doc = cls()
        titles = {v.lower(): k for k, v in SECTIONS.items()}
        current: str | None = None  # a key of SECTIONS, "?" for an unknown section, None above them
        for line in text.splitlines():
            stripped = line.strip()
            if stripped == MARKER:
                continue
            if line.startswith("# Chat: ") and current is None and not doc.chat:
                doc.chat = line[len("# Chat: "):].strip()
                continue
            if m := _UPDATED.match(stripped):
                doc.updated = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M")
                _drop_rule(doc, current)
                continue
            if line.startswith("## "):
                current = titles.get(line[3:].strip().lower(), "?")
                if current == "?":
                    doc.extra.append(line)
                continue
            if current == "?":
                doc.extra.append(line)
            elif current is None:
                if stripped:
                    doc.preamble.append(line)
            elif (m := _ITEM.match(stripped)) and _valid_date(m.group("date")):
                doc.items.append(Item(category=current, text=m.group("text").strip(),
                                      who=(m.group("who") or "").strip(), date=m.group("date")))
            elif stripped:
                doc.hand.setdefault(current, []).append(line.rstrip())
        while doc.extra and not doc.extra[-1].strip():
            doc.extra.pop()
        doc.hand = {k: v for k, v in doc.hand.items() if v}  # a section with no hand lines keeps no entry
        return doc

    def render(self, group: bool = False) -> str:
        out = [MARKER, f"# Chat: {self.chat}" if self.chat else "# Chat", *self.preamble]
        for key, title in SECTIONS.items():
            out += ["", f"## {title}"]
            mine = sorted((i for i in self.items if i.category == key), key=lambda i: i.date, reverse=True)
            out += [i.line(group) for i in mine] + self.hand.get(key, [])
        if self.extra:
            out += ["", *self.extra]
        if self.updated is not None:
            out += ["", "---", f"*Last updated: {self.updated:%Y-%m-%d %H:%M}*"]
        return "\n".join(out) + "\n"

    def with_hand_of(self, other: ContextFile) -> ContextFile:
        """These items with ``other``'s hand lines, preamble and unknown sections (the file as it is now)."""
        return self.model_copy(update={"hand": other.hand, "preamble": other.preamble, "extra": other.extra})


def render_capped(doc: ContextFile, max_bytes: int, group: bool = False) -> tuple[str, list[Item]]:
    """Render within ``max_bytes`` (UTF-8) by dropping managed items: the oldest day first, and within a
    day the lowest-priority section first (Recent Topics, Preferences, Ongoing, Pending). Hand lines are
    never dropped. Returns the text and the items dropped."""
    text = doc.render(group)
    size = len(text.encode("utf-8"))
    if size <= max_bytes or not doc.items:
        return text, []
    # each item is one line of the rendering: drop in order, subtracting its bytes (and newline),
    # then render once -- linear in the file (re-rendering per dropped item was quadratic)
    order = sorted(doc.items, key=lambda i: (i.date, PRIORITY.get(i.category, 0)))
    dropped: list[Item] = []
    for victim in order:
        if size <= max_bytes:
            break
        size -= len(victim.line(group).encode("utf-8")) + 1
        dropped.append(victim)
    gone = {id(i) for i in dropped}
    kept = doc.model_copy(update={"items": [i for i in doc.items if id(i) not in gone]})
    return kept.render(group), dropped


def _drop_rule(doc: ContextFile, current: str | None) -> None:
    """The footer's ``---`` belongs to the footer, not to the section above it."""
    lines = doc.extra if current == "?" else doc.preamble if current is None else doc.hand.get(current, [])
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[-1].strip() == "---":
        lines.pop()


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
