"""An edit held to the file the user's message names: edit_file's schema for one call, narrowed by facts.

Where the user's last message names exactly one file that exists in the roots (``tools.named``: any
language, a typo within one edit) and nothing file-shaped that is not there, an edit in a chat is of
that file (the call policy refuses any other: ``loop.callpolicy``, ``OTHER_FILE``). Its ``path`` is then
that file, and ``old`` is text the file holds: a run of its whole lines, or one of its words (a typo, a
name to rename). A small model that writes ``old`` from the user's message ("discount(200, 10)") or from
memory cannot: the grammar (``tools.grammar``: ``x-lines``, ``x-words``) admits only what is there, so
the edit applies instead of failing with "text to replace not found". A coding session (``nanobot
session``), where a request may be met in another file, is left free, as are large files.
"""

from __future__ import annotations

import os
import re
from typing import Any

from nanobot.base.regular import read_regular

MAX_BYTES = 16_000  # a file larger than this is not offered line by line
MAX_LINES = 300
MAX_WORDS = 400  # the file's distinct words offered as a text to replace, at most
_WORD = re.compile(r"\w[\w'-]*\w")


def held(schema: dict, ctx: Any) -> dict:
    """``schema`` (edit_file's) with ``path`` and ``old`` held to the one file the user's last message
    names, as described above; ``schema`` itself where that does not apply."""
    found = _named_file(ctx)
    if found is None:
        return schema
    path, text = found
    lines = text.splitlines()
    if len(text) > MAX_BYTES or len(lines) > MAX_LINES or not any(line.strip() for line in lines):
        return schema
    words = list(dict.fromkeys(_WORD.findall(text)))[:MAX_WORDS]
    props = schema["properties"]
    return schema | {"properties": props | {"path": props["path"] | {"enum": [path]},
                                            "old": props["old"] | {"x-lines": lines, "x-words": words}}}


def _named_file(ctx: Any) -> tuple[str, str] | None:
    """(path as a call writes it, text) of the one existing file the user's last message names; None
    outside a plain chat, for none or several, or for a file that is not UTF-8 text."""
    agent = getattr(ctx, "agent", None)
    prov = getattr(agent, "provenance", None)
    if prov is None or not prov.said or any(getattr(f, "name", "") == "coding" for f in getattr(agent, "features", [])):
        return None
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.paths import base_dir

    roots = roots_of(ctx.settings)
    found = named(prov.said[-1], roots)
    files = list(dict.fromkeys(n.path for n in found if n.kind == "file"))
    if len(files) != 1 or any(n.kind == "new" for n in found):
        return None
    real = next((r / files[0] for r in roots if (r / files[0]).is_file()), None)
    if real is None or real.stat().st_size > MAX_BYTES:
        return None
    try:
        text = read_regular(real).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    base = base_dir(roots)
    rel = os.path.relpath(real.resolve(), base)
    return (rel if not rel.startswith("..") else str(real.resolve())), text
