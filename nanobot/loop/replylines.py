"""A change written as the file's own lines in the reply, made as the edit it describes.

Asked "I misspelled a weekday in letter.txt, could you fix that?", a small model often reads the file
and answers with its text, corrected, and no call. When the user asked for a change, the message names
one file that exists in the roots (or one file was read this turn), nothing changed this turn, and the
reply quotes at least ``ANCHORS`` of the file's lines word for word with a few lines changed among or
beside them, the reply is that change: one ``edit_file`` call whose ``old`` is the file's changed run
of lines (with the line before it, for lines only added) and ``new`` the reply's, or ``append_file``
for lines a fenced copy of the file adds at its end. It runs like a call the model wrote as text
(``loop/textcall.py``: the call policy and the loss guard included, so a quote that leaves lines out
removes nothing unasked). Prose around the quote is not taken: only lines between quoted ones, or a
changed line that is still like the one it replaces at either end of the quote. These are facts (a
named file, its lines, the reply's) in any language.

>>> letter = "Dear Mr Okafor,\\nthe parcel came on Wendesday.\\nKind regards,\\nLinnea\\n"
>>> rewrite(letter, "Sure:\\nDear Mr Okafor,\\nthe parcel came on Wednesday.\\nKind regards,\\nLinnea")
('edit_file', 'the parcel came on Wendesday.', 'the parcel came on Wednesday.')
>>> rewrite(letter, "Dear Mr Okafor,\\nthe parcel came on Wendesday.\\nKind regards,") is None  # quoted, unchanged
True
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from nanobot.core.events import Event, ToolCall, ToolResult

ANCHORS = 2  # the file's non-blank lines the reply must quote word for word
MOST = 6  # the most lines a reply's change may touch: more is a rewrite, not an edit
LIKE = 0.6  # how alike (difflib's ratio) a changed line at the quote's edge must be to the one it replaces
_FENCE = re.compile(r"```[\w+-]*\n(.*?)(?:```|$)", re.S)


def lines_edit(typed: str, reply: str, agent: Any, seen: list[Event], asked: Any) -> tuple[str, dict] | None:
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


def _the_file(typed: str, agent: Any, seen: list[Event]) -> str:
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
    """("edit_file", the file's lines, the reply's) or ("append_file", "", the lines added at the end)
    for the change the reply's copy of ``text`` makes (see the module); None when it quotes too little,
    changes nothing, or changes too much."""
    fences = _FENCE.findall(reply)
    fenced = len(fences) == 1  # a fenced copy is the file whole: lines after its end are added lines
    mine, theirs = text.splitlines(), (fences[0] if fenced else reply).strip("\n").splitlines()
    ops = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False).get_opcodes()
    equal = [op for op in ops if op[0] == "equal"]
    if sum(1 for _, i1, i2, _, _ in equal for line in mine[i1:i2] if line.strip()) < ANCHORS:
        return None
    first, last = ops.index(equal[0]), ops.index(equal[-1])
    kept = [op for k, op in enumerate(ops) if op[0] != "equal" and (first < k < last or _edge(op, mine, theirs, fenced, k > last))]
    kept = [op for op in kept if _words(mine[op[1]:op[2]]) != _words(theirs[op[3]:op[4]])]
    if not kept or sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in kept) > MOST or any(
            op[3] < op[4] and not any(re.search(r"\w", line) for line in theirs[op[3]:op[4]]) for op in kept):
        return None  # none, a rewrite, or lines left out of the quote ("...")
    i1, j1, i2, j2 = kept[0][1], kept[0][3], kept[-1][2], kept[-1][4]
    if i1 == len(mine) and fenced and len(kept) == 1:  # lines only added after the file's last
        return "append_file", "", "\n".join(theirs[j1:j2])
    if (i1 == i2 or j1 == j2) and len(kept) == 1 and i1 > 0:  # lines only added or removed: and the line before
        i1, j1 = i1 - 1, j1 - 1
    old, new = "\n".join(mine[i1:i2]), "\n".join(theirs[j1:j2])
    return ("edit_file", old, new) if old.strip() and text.count(old) == 1 else None


def _edge(op: tuple, mine: list[str], theirs: list[str], fenced: bool, after: bool) -> bool:
    """Whether a change before the quote's first line or after its last is the reply's (a line still
    like the one it replaces; in a fenced copy, lines added at the file's end) and not prose around it."""
    tag, i1, i2, j1, j2 = op
    if tag == "insert":
        return fenced and after and i1 == len(mine)
    return tag == "replace" and i2 - i1 == j2 - j1 and all(
        difflib.SequenceMatcher(a=a, b=b).ratio() >= LIKE for a, b in zip(mine[i1:i2], theirs[j1:j2]))


def _words(lines: list[str]) -> list[str]:
    return " ".join(lines).split()
