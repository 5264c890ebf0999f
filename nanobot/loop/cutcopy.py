"""A reply cut at the token limit while it copied a look's output, finished from that output.

A small model often answers "show me the log" by copying the command's output; with a tight
``max_tokens`` the copy stops mid-line ("Date:   Wed"), before the part the user asked for. Whether
the reply is such a copy is a fact of the two texts, in any language: the generation stopped at its
length limit, and the reply's last lines occur in the output of a look that succeeded this turn (list
markers and indentation aside). The rest of the output follows, as it came, up to ``REST_CHARS``.

>>> out = "exit 0\\ncommit 1a2b\\nAuthor: u <u@x>\\nDate:   Wed Nov 25\\n\\n    Fix the parser\\n"
>>> rest("Here is the log:\\n- commit 1a2b\\n  Author: u <u@x>\\n  Date:   Wed", [out])
' Nov 25\\n\\n    Fix the parser'
>>> rest("The log says the parser was fixed", [out])
''
"""

from __future__ import annotations

import re

REST_CHARS = 1500  # of the output, after the copy: what a terminal screen would show
TAIL_MIN = 8  # characters of the reply found in the output, at least, to be a copy
GAP = 40  # characters of the output between the line before last and the cut line, at most
_MARK = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+)?")


def rest(reply: str, outputs: list[str]) -> str:
    """What follows the reply's copy in the first of ``outputs`` it copies ("" when it copies none): its
    cut last line (a list marker aside) is in the output, within ``GAP`` characters after the end of its
    line before last where that is in the output too (a line too short to tell by itself, "Date:",
    counts only so)."""
    lines = [_MARK.sub("", line).strip() for line in reply.rstrip().splitlines() if line.strip()]
    if not lines:
        return ""
    tail, before = lines[-1], lines[-2][-TAIL_MIN * 3:] if len(lines) > 1 else ""
    if len(before) < TAIL_MIN and len(tail) < TAIL_MIN:
        return ""
    for output in outputs:
        at = _find(before, output) if len(before) >= TAIL_MIN else None
        start = at.end() if at else 0
        if not at and len(tail) < TAIL_MIN:
            continue
        found = _find(tail, output, start)
        if not found or (at and found.start() - start > GAP):
            continue
        more = output[found.end():].rstrip()
        if len(more) > REST_CHARS:
            more = more[:more.rfind("\n", 0, REST_CHARS) if "\n" in more[:REST_CHARS] else REST_CHARS] + "\n…"
        return more
    return ""


def _find(text: str, output: str, start: int = 0) -> re.Match | None:
    """``text`` in ``output`` from ``start``, any run of whitespace matching any other (a copy joins lines)."""
    return re.compile(r"\s+".join(map(re.escape, text.split()))).search(output, start)


def finished(reply: str, cut: bool, seen: list) -> str:
    """The rest of a tool's output (a look's, as a rule: a change's result is one line) for a reply the
    token limit ``cut`` mid-copy; "" otherwise."""
    if not cut:
        return ""
    outputs = [ev.text for ev in reversed(seen) if getattr(ev, "kind", "") == "tool_result" and ev.ok
               and ev.text.strip()]
    return rest(reply, outputs)
