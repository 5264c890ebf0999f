"""Markdown -> chunks: one bullet (with its sub-lines) or one paragraph, under its heading path.

Template guidance (``<!-- -->`` comments) is dropped first, so unedited templates yield nothing.
A chunk keeps the heading path it sits under: it is embedded with it ("Family: Wife is Ana") so a
bare bullet still carries its topic, and shown without it. Long paragraphs are split at sentence
ends so no chunk exceeds ``MAX_CHARS``.

>>> [c.text for c in chunk_markdown("# Memory\\n## Family\\n- Wife: Ana\\n  born 1990\\n\\nLikes tea.")]
['Wife: Ana\\nborn 1990', 'Likes tea.']
>>> chunk_markdown("## Family\\n- Wife: Ana")[0].embed_text
'Family: Wife: Ana'
>>> [(c.text, c.line) for c in chunk_markdown("---\\nsession: x\\n---\\n# Obs\\n- did a thing")]
[('did a thing', 5)]

Frontmatter is dropped except a knowledge doc's ``summary``: it becomes the first chunk (under the
doc's ``title``), so a doc is found by what it is about, not only by its wording.

>>> [(c.text, c.heading, c.line) for c in chunk_markdown("---\\ntitle: Zephyr\\nsummary: Port of Zephyr\\n---\\nBody.")]
[('Port of Zephyr', 'Zephyr', 3), ('Body.', '', 5)]
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel

MAX_CHARS = 800

_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^([-*+]|\d+[.)])\s+")
_FRONTMATTER = re.compile(r"\A---\n.*?\n---[ \t]*(\n|\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class Chunk(BaseModel):
    text: str  # what is shown to the model
    heading: str = ""  # "Family" or "Work > Projects"
    line: int = 1  # 1-based line of the chunk's first line in the source
    weight: float = 1.0  # scales its hybrid rank (a past conversation's assistant reply: less)

    @property
    def embed_text(self) -> str:
        return f"{self.heading}: {self.text}" if self.heading else self.text

    @property
    def hash(self) -> str:
        return content_hash(self.embed_text)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _blank_comments(text: str) -> str:
    """Remove comments and a leading ``---`` frontmatter block, keeping their newlines so line
    numbers stay true."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    m = _FRONTMATTER.match(text)
    return "\n" * m.group(0).count("\n") + text[m.end():] if m else text


def summary_chunk(text: str) -> Chunk | None:
    """The frontmatter's ``summary`` as a chunk (heading: the ``title``), or None."""
    if not text.startswith(("---", "\ufeff---")):
        return None
    from nanobot.base.frontmatter import FrontmatterError, parse

    try:
        doc = parse(text)
    except FrontmatterError:
        return None
    summary = doc.text("summary")
    if not summary:
        return None
    lines = doc.yaml_text.splitlines()
    line = next((i for i, ln in enumerate(lines) if ln.startswith("summary")), 0) + 2
    return Chunk(text=summary, heading=doc.text("title"), line=line)


def chunk_markdown(text: str, *, skip_title: bool = True) -> list[Chunk]:
    """Split markdown into chunks; see the module docstring."""
    lines = _blank_comments(text).splitlines()
    chunks: list[Chunk] = [c for c in [summary_chunk(text)] if c is not None]
    path: list[tuple[int, str]] = []  # (level, title) of the enclosing headings
    buf: list[str] = []
    start = 0

    def flush() -> None:
        body = "\n".join(s.strip() for s in buf).strip()
        if body:
            heading = " > ".join(t for lvl, t in path if not (skip_title and lvl == 1))
            chunks.extend(split_long(body, heading, start + 1))
        buf.clear()

    for i, raw in enumerate(lines):
        line = raw.rstrip()
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            path[:] = [(lvl, t) for lvl, t in path if lvl < level] + [(level, m.group(2))]
            continue
        if not line.strip():
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet and (not raw[:1].isspace() or not buf):  # a top-level bullet starts a chunk
            flush()
            line = line[bullet.end():]
        if not buf:
            start = i
        buf.append(line)
    flush()
    return chunks


def split_long(body: str, heading: str, line: int) -> list[Chunk]:
    if len(body) <= MAX_CHARS:
        return [Chunk(text=body, heading=heading, line=line)]
    out: list[Chunk] = []
    cur = ""
    for sentence in _SENTENCE_END.split(body):
        while len(sentence) > MAX_CHARS:  # one huge sentence: cut at a space
            cut = sentence.rfind(" ", 0, MAX_CHARS)
            cut = cut if cut > 0 else MAX_CHARS
            if cur:
                out.append(cur)
                cur = ""
            out.append(sentence[:cut])
            sentence = sentence[cut:].lstrip()
        if cur and len(cur) + 1 + len(sentence) > MAX_CHARS:
            out.append(cur)
            cur = sentence
        else:
            cur = f"{cur} {sentence}" if cur else sentence
    if cur:
        out.append(cur)
    return [Chunk(text=t.strip(), heading=heading, line=line) for t in out if t.strip()]
