"""A change that quotes a file's text is made with the file in view.

A tool that replaces text (a ``target_args`` entry "text to replace", edit_file's ``old``) can only be
called right by a model that has seen the file. A small model asked "deploy.yaml should run four
replicas instead of two" without the file in its context writes ``old: "two"`` from the request; the
error that shows the file's text then sits after its own wrong call, which it copies into the retry.
So a call whose text to replace is not in the file, on a file whose text no message of the turn's
context holds, is not run: the file is read first (a visible read, as if the model had asked for it),
the blind call leaves the context, and the call is generated again with the file in view. A call whose
text is in the file runs as made; a file the context already shows gets the tool's own error.

This is a fact about the world (the file exists, the text is not in it, the context does not show
it), not about the wording of the request: it holds in any language.
"""

from __future__ import annotations

from typing import Any

from nanobot.backends.base import Message
from nanobot.tools.effects import Effect, arg, declared

READER = "read_file"  # the tool that shows a file (LOOKS, target "path")
SEEN_CHARS = 200  # a context holding this much of the file's start (or all of a shorter file) has seen it


def unseen_file(tool: Any, args: Any, msgs: list[Message], agent: Any) -> str:
    """The path to read before ``tool``'s call runs ("" when the call runs as made): the call replaces
    text that is not in the named file, and no message in ``msgs`` shows that file's text."""
    fields = getattr(tool, "target_args", {}) or {}
    quoted = next((k for k, what in fields.items() if what == "text to replace"), "")
    named = next((k for k, what in fields.items() if what == "path"), "")
    if not quoted or not named or Effect.CHANGES not in declared(tool):
        return ""
    old, raw = str(arg(args, quoted) or ""), str(arg(args, named) or "")
    text = _text(raw, agent)
    if not old or text is None or old in text or " ".join(old.split()) in " ".join(text.split()):
        return ""
    start = text.strip()[:SEEN_CHARS]
    if start and any(start in m.content for m in msgs if m.role in ("tool", "user")):
        return ""
    return raw


def _text(raw: str, agent: Any) -> str | None:
    """The named file's text, when it is a readable file in the roots (else None)."""
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    try:
        path = resolve_in_roots(raw, ToolContext.for_agent(agent))
        return read_regular(path).decode("utf-8", errors="replace") if path.is_file() else None
    except (ToolError, OSError, ValueError):
        return None
