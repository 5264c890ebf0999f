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

The same slip inside a real change: ``old = "def greeting(name):"``, ``new`` = the renamed line plus the
body line after it, as it stands, leaves that body line twice. ``restated`` trims from ``new`` the lines
it restates of those right after (or right before) ``old``: they are still there once the edit is made.
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


def restated(text: str, old: str, new: str) -> str:
    """``new`` without its last (first) lines where they equal, spacing aside, the lines right after
    (before) ``old`` in ``text``: context the model restated, which stays in the file anyway. ``new`` as
    it is where ``old`` is not once in ``text``, or where only ``old`` itself would be left.

    >>> restated("def greeting(n):\\n    return n\\n", "def greeting(n):", "def welcome(n):\\n    return n")
    'def welcome(n):'
    >>> restated("def f(x):\\n    return x\\n", "def f(x):", "def f(x):\\n    if x is None:\\n        return 0\\n    return x")
    'def f(x):\\n    if x is None:\\n        return 0'
    >>> restated("a\\nb\\n", "b", "a\\nc"), restated("a\\nb\\n", "a", "a\\nb")
    ('c', 'a\\nb')
    """
    if text.count(old) != 1 or not old.strip():
        return new
    at = text.index(old)
    after = [ln.strip() for ln in text[at + len(old):].split("\n")[1:]]  # the whole lines after old's last
    before = [ln.strip() for ln in text[:at].split("\n")[:-1]]  # the whole lines before old's first
    lines = new.split("\n")
    mine = [ln.strip() for ln in lines]
    tail = next((k for k in range(len(lines) - 1, 0, -1) if mine[-k:] == after[:k] and any(mine[-k:])), 0)
    head = next((k for k in range(len(lines) - 1 - tail, 0, -1)
                 if len(before) >= k and mine[:k] == before[-k:] and any(mine[:k])), 0)
    kept = "\n".join(lines[head:len(lines) - tail])
    return new if kept == new or kept.strip() == old.strip() else kept
