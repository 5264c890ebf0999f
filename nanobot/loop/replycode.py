"""A change written as code in the reply, made as the edit it describes.

Asked "In calc.py, fix sub: it should return a - b", a small model often answers with the fixed
function as its reply (``def sub(a, b):\\n    return a - b``) and no call, or with a call whose
arguments are worse than its reply. When the user asked for a change, the message names one Python file
that exists in the roots, nothing changed this turn, and the reply's code holds top-level definitions
that the file defines under the same names in another form, the reply is that change: each such
definition is put in place of the file's as one ``edit_file`` call (``old`` the file's whole
definition, ``new`` the reply's), run like a call the model wrote as text (``loop/textcall.py``: the
call policy and the loss guard included), and the reply is asked for again with the result in view.
A definition the file lacks is added at its end (``append_file``) only when the user's message gives its
name ("Add a function mul(a, b) ... to calc.py" answered with ``def mul(a, b): ...``) and its body is
none of the file's (``def subtract`` with sub's body, for "rename sub to subtract", is no addition). Statements
around definitions are never taken from a reply. These are facts (a named file, its parse tree, the reply's), in any
language.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from nanobot.core.events import Event, ToolResult
from nanobot.core.features import Agent
from nanobot.tools.pydefs import _DEFS  # the definitions edit_file replaces whole

_FENCE = re.compile(r"```[\w+-]*\n(.*?)(?:```|$)", re.S)
_DEF_LINE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w", re.M)


def reply_edit(typed: str, reply: str, agent: Agent, seen: list[Event], asked: Any) -> tuple[str, dict] | None:
    """The ``edit_file`` call the reply's code describes, or None; ``asked()`` says whether the user
    asked for a change (called last: it may ask the model)."""
    if (not _DEF_LINE.search(reply) or "edit_file" not in agent.tool_names()
            or any(isinstance(e, ToolResult) and e.ok and e.name != "read_file" for e in seen)):
        return None  # no definition in the reply (most replies: no look at the roots), or a change ran
    from nanobot.tools.named import named, roots_of

    files = [n for n in named(typed, roots_of(agent.settings)) if n.kind == "file" and n.path.endswith(".py")]
    if len(files) != 1:
        return None
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    try:
        text = read_regular(resolve_in_roots(files[0].path, ToolContext.for_agent(agent))).decode("utf-8")
    except (ToolError, OSError, UnicodeDecodeError):
        return None
    change = _changed_defs(text, reply)
    if change is not None and asked():
        return "edit_file", {"path": files[0].path, "old": change[0], "new": change[1]}
    added = _named_new_def(text, reply, typed)
    if change is None and added and "append_file" in agent.tool_names() and asked():
        return "append_file", {"path": files[0].path, "text": added}
    return None


def _named_new_def(text: str, reply: str, typed: str) -> str:
    """The source of a top-level definition in the reply's code that the file lacks and whose name the
    user's message gives as a word ("Add a function mul(a, b) ..."); "" when there is none.

    >>> _named_new_def("def add(a, b):\\n    return a + b\\n", "```\\ndef mul(a, b):\\n    return a * b\\n```", "add mul to calc.py")
    'def mul(a, b):\\n    return a * b'
    """
    mine = _defs(text) or {}
    bodies = {_body(src) for src in mine.values()}
    for code in [*_FENCE.findall(reply), reply]:
        for name, source in (_defs(code) or {}).items():
            if name not in mine and _says(typed, name) and _body(source) not in bodies:
                return source
    return ""


def _body(source: str) -> str:
    """A definition's text after its first line, whitespace folded: a renamed copy has the same."""
    return " ".join(source.split("\n", 1)[-1].split()) if "\n" in source else ""


def _says(typed: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", typed) is not None


def _changed_defs(text: str, reply: str) -> tuple[str, str] | None:
    """(the file's definition, the reply's) for the first top-level definition of the reply's code that
    the file defines in another form; None when there is none.

    >>> calc = "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b\\n"
    >>> _changed_defs(calc, "def sub(a, b):\\n    return a - b\\n\\nprint(sub(40, 2))")
    ('def sub(a, b):\\n    return a + b', 'def sub(a, b):\\n    return a - b')
    >>> _changed_defs(calc, "def add(a, b):\\n    return a + b") is None  # the file's own code, explained
    True
    """
    mine = _defs(text)
    for code in [*_FENCE.findall(reply), reply]:
        for name, source in (_defs(code) or {}).items():
            if name in mine and " ".join(mine[name].split()) != " ".join(source.split()):
                return mine[name], source
    return None


def _defs(code: str) -> dict[str, str] | None:
    """Top-level definitions of ``code`` by name (their source), or None when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    return {n.name: ast.get_source_segment(code, n, padded=False) or "" for n in tree.body if isinstance(n, _DEFS)}
