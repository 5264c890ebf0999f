"""An edit that only repeats lines already there: refused, since it changes nothing the user asked.

Asked to fix ``square_area`` (``return side * 4``), a small model writes ``old = "def
square_area(side):"`` and ``new`` = that line plus the line after it, as it stands: the file gains a
second ``return side * 4`` under the first, the syntax check passes, and the reply describes a fix
that is not there. ``repeats(before, after)`` reads the change as lines (``difflib``): where every
difference is an insertion of lines equal (spacing aside) to the lines right before or right after
it, the edit only repeats them. The error says so, and the model's next call writes the changed line.

>>> repeats("def f(s):\\n    return s * 4\\n", "def f(s):\\n    return s * 4\\n    return s * 4\\n")
['return s * 4']
>>> repeats("def f(s):\\n    return s * 4\\n", "def f(s):\\n    return s * s\\n")
[]
>>> repeats("eggs\\nmilk\\n", "eggs\\nmilk\\nbread\\n")
[]
"""

from __future__ import annotations

import difflib


def repeats(before: str, after: str) -> list[str]:
    """The repeated lines (stripped) when every difference between ``before`` and ``after`` is an
    insertion of the lines next to it; [] otherwise (or when nothing differs)."""
    old, new = before.splitlines(), after.splitlines()
    ops = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops or any(tag != "insert" for tag, *_ in ops):
        return []
    out: list[str] = []
    for _, i1, _, j1, j2 in ops:
        added = [ln.strip() for ln in new[j1:j2]]
        k = len(added)
        beside = ([ln.strip() for ln in old[i1:i1 + k]], [ln.strip() for ln in old[max(0, i1 - k):i1]])
        if not any(added) or added not in beside:
            return []
        out += [ln for ln in added if ln]
    return out
