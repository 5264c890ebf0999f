"""edit_file's ``path`` held to the files the user's message names.

Where the user's message names files that are in the roots, the call policy refuses a change of any
other file (``loop.callpolicy``: ``Refusal.OTHER_FILE``, outside a coding session). The call's grammar
then offers only those files, so a small model cannot spend its call on a path that would be refused
(an invented ``shout.py`` for "Rename shout to yell in textutil.py and test_textutil.py"). The names
are facts of the roots (``tools.named``: a typo corrected, a file named as spoken); a message that
names no file there leaves ``path`` free.
"""

from __future__ import annotations

from nanobot.tools.base import ToolContext
from nanobot.tools.named import named, roots_of


def named_files(ctx: ToolContext) -> list[str]:
    """The files in the roots the user's last message names (as they are there); [] in a coding
    session, where a change may reach a file the message does not name."""
    agent = ctx.agent
    if agent is None or not agent.provenance.said:
        return []
    if any(getattr(f, "name", "") == "coding" for f in getattr(agent, "features", [])):
        return []
    return list(dict.fromkeys(n.path for n in named(agent.provenance.said[-1], roots_of(ctx.settings))
                              if n.kind == "file"))


def held_to_named(schema: dict, ctx: ToolContext) -> dict:
    """``schema`` with ``path`` held to ``named_files`` where the message names any (and nothing holds
    ``path`` already); else ``schema`` as it is."""
    props = schema.get("properties", {})
    if "path" not in props or "enum" in props["path"] or not (files := named_files(ctx)):
        return schema
    return schema | {"properties": props | {"path": props["path"] | {"enum": files}}}
