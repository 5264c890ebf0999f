"""An edit tried again after its text to replace was not in the file: the retry's ``old`` is held to
the lines the request is about.

A small model writes ``old`` from the user's words ("two" for "four replicas instead of two") and,
shown the file's real text, often writes the same call again. When edit_file's text was not found
(``note_miss``), the next edit_file call of that turn is generated with ``path`` held to that file
and ``old`` to a run of its whole lines starting at a line the request is about (``about``):

- a line that shares a word with the user's message, counting only words on at most a third of the
  file's lines (a word on every line tells nothing), compared without case and by their start
  ("replicas", "Timeout" and ``timeout_seconds``), in any language the two share;
- a line of a definition the message names (``def discount`` for "discount() is broken").

Where no line is about the request (a typo described in words, "add this at the end"), the retry stays
free, as it does for large files: holding the model to lines the request does not point at is how an
edit replaces the wrong one. What an edit may remove is still guarded by ``tools.editloss``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nanobot.base.errors import ToolError
from nanobot.base.regular import read_regular
from nanobot.tools.namedcode import _DEF, _end

if TYPE_CHECKING:  # pragma: no cover
    from nanobot.tools.base import ToolContext

MAX_BYTES = 16_000  # a file larger than this is not offered line by line
MAX_LINES = 300
_PART = re.compile(r"[^\W_]+")


def note_miss(ctx: ToolContext, raw: str | None) -> None:
    """Record (``raw``: the path) or clear (None) this turn's edit whose text was not found."""
    if ctx.agent is not None:
        prov = ctx.agent.provenance
        prov.missed = (len(prov.said), raw) if raw else None


def held(schema: dict, ctx: ToolContext) -> dict:
    """edit_file's ``schema`` with ``path`` and ``old`` held as above after a miss this turn; else ``schema``."""
    prov = ctx.agent.provenance if ctx.agent is not None else None
    if prov is None or not prov.said or not prov.missed or prov.missed[0] != len(prov.said):
        return schema
    from nanobot.tools.paths import resolve_in_roots

    raw = prov.missed[1]
    try:
        real = resolve_in_roots(raw, ctx)
        text = read_regular(real).decode("utf-8") if real.stat().st_size <= MAX_BYTES else ""
    except (ToolError, OSError, UnicodeDecodeError, ValueError):
        return schema
    lines = text.splitlines()
    starts = about(text, prov.said[-1], raw) if len(lines) <= MAX_LINES else []
    if not starts:
        return schema
    props = schema["properties"]
    return schema | {"properties": props | {"path": props["path"] | {"enum": [raw]},
                                            "old": props["old"] | {"x-lines": lines, "x-from": starts}}}


def about(text: str, said: str, path: str = "") -> list[int]:
    """The indexes of ``text``'s non-blank lines the request ``said`` is about (see the module).

    >>> about("service: api\\nreplicas: 2\\nregion: eu\\n", "deploy.yaml should run four replicas instead of two", "deploy.yaml")
    [1]
    >>> about("def a():\\n    return 1\\n\\n\\ndef b(x):\\n    return x\\n", "b() is broken: it should double x")
    [4, 5]
    >>> about("passport\\nadapter\\n", "add a torch at the end of my list")
    []
    """
    lines = text.splitlines()
    skip = set(_PART.findall(path.casefold()))
    words = {w for w in _PART.findall(said.casefold()) if len(w) >= 3 and w not in skip}
    on = [set(_PART.findall(line.casefold())) for line in lines]
    most = max(1, sum(1 for line in lines if line.strip()) // 3)
    hits: set[int] = set()
    for word in words:
        at = [i for i, have in enumerate(on) if any(_same(word, h) for h in have)]
        hits.update(at if len(at) <= most else [])
    names = set(re.findall(r"\w+", said))
    for m in _DEF.finditer(text):
        if (m.group(1) or m.group(2)) in names:
            at = text.count("\n", 0, m.start())
            hits.update(range(at, _end(lines, at) + 1))
    return sorted(i for i in hits if lines[i].strip())


def _same(a: str, b: str) -> bool:
    """The same word, or one the start of the other (4+ letters: "replica", "replicas")."""
    return a == b or min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))
