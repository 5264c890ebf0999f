"""A call held to what the user's message names: read_file's, list_dir's and edit_file's schema for
one call, narrowed by facts of the roots.

Where the user's last message names files (or folders) that exist in the roots (``tools.named``: in
any language, a typo within one edit, "the garden log" for ``garden.log``), a read_file (list_dir)
call of that turn is generated with ``path`` one of them: a small model that lists "." for "whats
insdie the trips folder?" or reads the file of an earlier answer for "how many words are in
letter.txt?" cannot. A message that names none of that kind leaves the look free (the model finds
what is there), and so does any call outside a chat. edit_file is held the same way outside a coding
session: the call policy refuses a change of a file other than those the message names, so the grammar
offers none (a small model spent a rename's call on an invented ``shout.py``). write_file is held so
too, to the files the message names whether they are there or new ("Add a test for farewell in a new
file test_greet.py" is a write of test_greet.py, not of a name the model makes up).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from nanobot.tools.base import ToolContext


def held(schema: dict, ctx: ToolContext, kind: str, new: bool = False, change: bool = False) -> dict:
    """``schema`` with ``path`` one of the existing ``kind`` entries ("file" or "folder") the user's last
    message names, as a call writes them, and with ``new`` the file-shaped names it gives that are not
    there; ``schema`` itself where it names none, and for a ``change`` in a coding session."""
    prov = ctx.agent.provenance if ctx.agent is not None else None
    if prov is None or not prov.said or "enum" in schema["properties"].get("path", {}):
        return schema  # outside a chat, or held already (``tools.retryedit``)
    if change and any(f.name == "coding" for f in ctx.agent.features):
        return schema
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.paths import base_dir

    roots = roots_of(ctx.settings)
    base = base_dir(roots)
    def written(path: str) -> str | None:  # as a call writes an existing entry: from base, or absolute
        real = next((r / path for r in roots if (r / path).exists()), None)
        rel = os.path.relpath(real.resolve(), base) if real is not None else None
        return rel if rel is None or not rel.startswith("..") else str(real.resolve())

    paths, found = [], named(prov.said[-1], roots)
    folders = [n.path for n in found if n.kind == "folder"] if new else []
    for n in found:
        if n.kind == kind and (rel := written(n.path)) is not None:
            paths.append(rel)
        elif new and n.kind == "new":  # in a folder the message names too ("poem.txt in the poems folder")
            paths += [n.path, *(f"{f.rstrip('/')}/{n.path}" for f in folders)]
    if not paths:
        return schema
    # files it says to leave alone: the one to change defines a name it gives
    if kind == "file" and ctx.agent.judge.sure(ctx.agent, "keep") is True:
        from nanobot.tools.namedcode import defining

        paths += [rel for d in defining(prov.said[-1], roots) if (rel := written(d)) is not None]
    props = schema["properties"]
    required = list(dict.fromkeys([*schema.get("required", []), "path"]))  # no ``{}`` that defaults to "."
    return schema | {"properties": props | {"path": props["path"] | {"enum": list(dict.fromkeys(paths))}},
                     "required": required}
