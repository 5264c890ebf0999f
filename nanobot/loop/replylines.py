"""Lines added in the reply's copy of a file, made as the edit it describes.

Asked to add a line to a file, a small model often answers with the file's text, the line added, and
no call. When the user asked for a change, the message names one file that exists in the roots (or one
file was read this turn), nothing changed this turn, and the reply quotes at least ``ANCHORS`` of the
file's lines word for word with a few lines added among them, the reply is that change: one
``edit_file`` call whose ``old`` is the line before the added ones and ``new`` that line and them, or
``append_file`` for lines a fenced copy of the file adds at its end. It runs like a call the model wrote
as text (``loop/textcall.py``: the call policy and the loss guard included). Only added lines are taken:
a copy with a line changed ("Wendesday" corrected in a letter) is no edit here: a line a small model
rewrites this way is more often a wrong rewrite that loses what the line held than the fix asked for.
Prose around the quote is not taken: only lines between quoted ones, or lines after the end of a fenced
copy. These are facts (a named file, its lines, the reply's) in any language.

>>> log = "2024-05-02 basil out\\n2024-05-19 slugs\\n2024-05-30 rain\\n"
>>> rewrite(log, "Sure:\\n2024-05-02 basil out\\n2024-05-19 slugs\\n2024-05-25 beans in\\n2024-05-30 rain")
('edit_file', '2024-05-19 slugs', '2024-05-19 slugs\\n2024-05-25 beans in')
>>> rewrite(log, "2024-05-02 basil out\\n2024-05-19 slugs eaten\\n2024-05-30 rain") is None  # a line changed
True
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from nanobot.core.events import Event, ToolCall, ToolResult
from nanobot.core.features import Agent

ANCHORS = 2  # the file's non-blank lines the reply must quote word for word
MOST = 6  # the most lines a reply's change may touch: more is a rewrite, not an edit
_FENCE = re.compile(r"```[\w+-]*\n(.*?)(?:```|$)", re.S)


def lines_edit(typed: str, reply: str, agent: Agent, seen: list[Event], asked: Any) -> tuple[str, dict] | None:
    """The call the reply's changed lines describe, or None; ``asked()`` says whether the user asked
    for a change (called last: it may ask the model)."""
    names = agent.tool_names()
    if "edit_file" not in names or any(isinstance(e, ToolResult) and e.ok and e.name != "read_file" for e in seen):
        return None
    path = _the_file(typed, agent, seen)
    if not path:
        return None
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    try:
        text = read_regular(resolve_in_roots(path, ToolContext.for_agent(agent))).decode("utf-8")
    except (ToolError, OSError, UnicodeDecodeError, ValueError):
        return None
    change = rewrite(text, reply)
    if change is None or (change[0] == "append_file" and "append_file" not in names) or not asked():
        return None
    if change[0] == "append_file":
        return "append_file", {"path": path, "text": change[2]}
    return "edit_file", {"path": path, "old": change[1], "new": change[2]}


def _the_file(typed: str, agent: Agent, seen: list[Event]) -> str:
    """The one file the message names in the roots, else the one file read this turn; "" otherwise."""
    from nanobot.tools.named import named, roots_of

    files = {n.path for n in named(typed, roots_of(agent.settings)) if n.kind == "file"}
    if not files:
        call: dict = {}
        for e in seen:
            if isinstance(e, ToolCall):
                call = e.arguments if e.name == "read_file" else {}
            elif isinstance(e, ToolResult) and e.ok and e.name == "read_file" and call.get("path"):
                files.add(str(call["path"]))
    return files.pop() if len(files) == 1 else ""


def rewrite(text: str, reply: str) -> tuple[str, str, str] | None:
    """("edit_file", the line before the added ones, it and them) or ("append_file", "", the lines added
    at the end) for the lines the reply's copy of ``text`` adds (see the module); None when it quotes too
    little, adds nothing, changes or drops a line, or adds too much."""
    fences = _FENCE.findall(reply)
    fenced = len(fences) == 1  # a fenced copy is the file whole: lines after its end are added lines
    mine, theirs = text.splitlines(), (fences[0] if fenced else reply).strip("\n").splitlines()
    ops = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False).get_opcodes()
    equal = [op for op in ops if op[0] == "equal"]
    if sum(1 for _, i1, i2, _, _ in equal for line in mine[i1:i2] if line.strip()) < ANCHORS:
        return None
    first, last = ops.index(equal[0]), ops.index(equal[-1])
    kept = [op for k, op in enumerate(ops) if op[0] != "equal" and (first < k < last or _edge(op, mine, fenced, k > last))]
    kept = [op for op in kept if _words(mine[op[1]:op[2]]) != _words(theirs[op[3]:op[4]])]
    if any(op[0] != "insert" for op in kept):
        return None  # only lines added: a rewritten line can be a wrong rewrite of what it had to keep
    if not kept or sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in kept) > MOST or any(
            op[3] < op[4] and not any(re.search(r"\w", line) for line in theirs[op[3]:op[4]]) for op in kept):
        return None  # none, a rewrite, or lines left out of the quote ("...")
    i1, j1, i2, j2 = kept[0][1], kept[0][3], kept[-1][2], kept[-1][4]
    if i1 == len(mine) and fenced and len(kept) == 1:  # lines only added after the file's last
        return "append_file", "", "\n".join(theirs[j1:j2])
    if len(kept) == 1 and i1 > 0:  # lines added after a quoted line: that line, kept, and them
        i1, j1 = i1 - 1, j1 - 1
    old, new = "\n".join(mine[i1:i2]), "\n".join(theirs[j1:j2])
    return ("edit_file", old, new) if old.strip() and text.count(old) == 1 else None


def _edge(op: tuple, mine: list[str], fenced: bool, after: bool) -> bool:
    """Whether lines the reply adds before the quote's first line or after its last are the reply's
    (in a fenced copy, lines added at the file's end) and not prose around it."""
    return op[0] == "insert" and fenced and after and op[1] == len(mine)


def _words(lines: list[str]) -> list[str]:
    return " ".join(lines).split()
