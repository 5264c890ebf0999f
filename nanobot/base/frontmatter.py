"""YAML frontmatter of a knowledge doc: read it, and rewrite single fields without touching anything else.

A doc may start with a ``---`` line, YAML, and a closing ``---`` (or ``...``) line. ``parse`` returns the
fields; ``set_field`` replaces (or inserts) one top-level key's lines and keeps every other byte --
unknown fields, their order, comments, line endings and the body -- exactly as they were. A doc
without frontmatter gets one. ``summary_problem`` is the one rule for summaries (one line, plain text,
at most ``SUMMARY_MAX`` characters).

>>> doc = "---\\ntitle: Zephyr\\nowner: ana   # mine\\n---\\nBody *stays*.\\n"
>>> print(set_field(doc, "summary", "Port and owner of the Zephyr service"), end="")
---
title: Zephyr
summary: Port and owner of the Zephyr service
owner: ana   # mine
---
Body *stays*.
>>> parse(doc).fields["owner"]
'ana'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from nanobot.base import fastyaml

SUMMARY_MAX = 150
_OPEN = re.compile(r"\A(\ufeff?)---[ \t]*(\r?\n)")
_CLOSE = re.compile(r"^(---|\.\.\.)[ \t]*(\r?\n|\Z)", re.M)
_MARKDOWN = re.compile(r"\*\*|__|`|\[[^\]]*\]\(|^\s*(#|>|[-*+]\s|\d+[.)]\s)")


class FrontmatterError(ValueError):
    """Frontmatter that cannot be read (not closed, not YAML, not a mapping); str() says which."""


@dataclass
class Parsed:
    fields: dict[str, Any] = field(default_factory=dict)
    head: str = ""  # BOM + opening line ("" when the doc has no frontmatter)
    yaml_text: str = ""  # the lines between the markers
    tail: str = ""  # the closing line
    body: str = ""  # everything after; head + yaml_text + tail + body == the doc
    newline: str = "\n"

    @property
    def has_block(self) -> bool:
        return bool(self.head)

    def text(self, key: str) -> str:
        """A field as one line of text ('' when absent or not a scalar)."""
        v = self.fields.get(key)
        return " ".join(str(v).split()) if isinstance(v, str | int | float) and v is not None else ""


def parse(doc: str) -> Parsed:
    """Split ``doc`` into frontmatter and body; FrontmatterError when the block is malformed."""
    m = _OPEN.match(doc)
    if not m:
        return Parsed(body=doc)
    close = _CLOSE.search(doc, m.end())
    if close is None:
        raise FrontmatterError("frontmatter is not closed (no second '---' line)")
    yaml_text = doc[m.end():close.start()]
    try:
        data = fastyaml.load(yaml_text) if yaml_text.strip() else {}
    except yaml.YAMLError as e:
        # where the broken construct began (an unclosed bracket is only noticed at the end)
        where = getattr(e, "context_mark", None) or getattr(e, "problem_mark", None)
        line = f" on line {where.line + 2}" if where is not None else ""
        raise FrontmatterError(f"frontmatter is not valid YAML{line}") from None
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter is not a list of 'key: value' fields")
    return Parsed(fields={str(k): v for k, v in data.items()}, head=doc[:m.end()], yaml_text=yaml_text,
                  tail=close.group(0), body=doc[close.end():], newline=m.group(2))


def render_field(key: str, value: str) -> str:
    """One ``key: value`` YAML line (quoted when YAML needs it).

    >>> render_field("summary", "yes: a colon")
    "summary: 'yes: a colon'"
    """
    out = yaml.safe_dump({key: value}, allow_unicode=True, width=1 << 30, default_flow_style=False)
    return out.rstrip("\n")


def _key_span(lines: list[str], key: str) -> tuple[int, int] | None:
    """(first, end) line indexes of top-level ``key`` and its continuation lines."""
    pat = re.compile(rf"^{re.escape(key)}\s*:(\s|$)")
    for i, line in enumerate(lines):
        if pat.match(line):
            end = i + 1
            while end < len(lines) and (lines[end][:1] in (" ", "\t") or lines[end].startswith("- ")
                                        or lines[end].rstrip("\r\n") == "-"):
                end += 1
            return i, end
    return None


def set_field(doc: str, key: str, value: str, after: str = "title") -> str:
    """``doc`` with top-level ``key`` set to the string ``value``; every other byte is kept.

    A present key is rewritten in place; a new one goes after ``after`` (else at the end of the block);
    a doc without frontmatter gets ``---``/``key: value``/``---`` in front of its unchanged body.
    """
    p = parse(doc)
    nl = p.newline
    line = render_field(key, value) + nl
    if not p.has_block:
        return f"---{nl}{line}---{nl}{doc}"
    lines = p.yaml_text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += nl
    span = _key_span(lines, key)
    if span is not None:
        lines[span[0]:span[1]] = [line]
    else:
        anchor = _key_span(lines, after)
        at = anchor[1] if anchor is not None else len(lines)
        lines.insert(at, line)
    new = p.head + "".join(lines) + p.tail + p.body
    if parse(new).fields.get(key) != value:  # never write a doc we cannot read back
        raise FrontmatterError(f"could not set '{key}' in the frontmatter safely")
    return new


def with_body(doc: str, body: str) -> str:
    """``doc``'s frontmatter block (bytes as they are) followed by a new ``body``."""
    p = parse(doc)
    return p.head + p.yaml_text + p.tail + body


def summary_problem(summary: Any) -> str:
    """'' for a good summary, else what is wrong with it, in words a model can act on.

    >>> summary_problem("Port, owner and deploy steps of the Zephyr service")
    ''
    >>> summary_problem("**bold**")
    'must be plain text without markdown (no **, __, `, [links](), #, >, - or 1. at the start)'
    """
    if not isinstance(summary, str) or not summary.strip():
        return "is missing"
    if "\n" in summary.strip() or "\r" in summary.strip():
        return "must be one line"
    n = len(summary.strip())
    if n > SUMMARY_MAX:
        return f"is {n} characters long; the limit is {SUMMARY_MAX}"
    if _MARKDOWN.search(summary.strip()):
        return "must be plain text without markdown (no **, __, `, [links](), #, >, - or 1. at the start)"
    return ""
