"""A call held to what the user's message names: read_file's, list_dir's and edit_file's schema for
one call, narrowed by facts of the roots.

Where the user's last message names files (or folders) that exist in the roots (``tools.named``: in
any language, a typo within one edit, "the garden log" for ``garden.log``), a read_file (list_dir)
call of that turn is generated with ``path`` one of them: a small model that lists "." for "whats
insdie the trips folder?" or reads the file of an earlier answer for "how many words are in
letter.txt?" cannot. A message that names none of that kind leaves the look free (the model finds
what is there), and so does any call outside a chat. edit_file is held the same way outside a coding
session: the call policy refuses a change of a file other than those the message names, so the grammar
offers none (a small model spent a rename's call on an invented ``shout.py``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from nanobot.tools.base import ToolContext


def held(schema: dict, ctx: ToolContext, kind: str) -> dict:
    """``schema`` with ``path`` one of the existing ``kind`` entries ("file" or "folder") the user's last
    message names, as a call writes them; ``schema`` itself where it names none."""
    prov = ctx.agent.provenance if ctx.agent is not None else None
    if prov is None or not prov.said or "enum" in schema["properties"].get("path", {}):
        return schema  # outside a chat, or held already (``tools.retryedit``)
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.paths import base_dir

    roots = roots_of(ctx.settings)
    base = base_dir(roots)
    paths = []
    for n in named(prov.said[-1], roots):
        real = next((r / n.path for r in roots if (r / n.path).exists()), None)
        if n.kind == kind and real is not None:
            rel = os.path.relpath(real.resolve(), base)
            paths.append(rel if not rel.startswith("..") else str(real.resolve()))
    if not paths:
        return schema
    props = schema["properties"]
    return schema | {"properties": props | {"path": props["path"] | {"enum": list(dict.fromkeys(paths))}}}
