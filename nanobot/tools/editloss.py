"""Edits that cannot destroy what they were not asked to touch: the lines a write or an edit removes,
checked against what the user asked, before anything is written.

A removed line is **lost** when no added line is a changed form of it (``similar``: a value set, a
typo fixed, ``return a + b`` become ``return a - b``; a definition line only by its own name) and the
user's last two messages do not mention it (its text, or a word of it of 4+ letters: "remove the line
about the budget" mentions ``Budget: 3200 EUR.``). An edit that loses lines is refused with the lines
and the way to keep them ("to add a line, keep old's text in new"), typed ``Refusal.LOSES_LINES``. An
append is then an append: "add a line at the end" that replaced the last line is refused, and the
model's next call keeps it. Facts of the text, no word list: a request in any language that names
what it removes is allowed.

>>> lost("a = 1\\nb = 2\\n", "a = 1\\nc = 3\\n", ["add c = 3 at the end"])
['b = 2']
>>> lost("port = 80\\nlog = warn\\n", "port = 80\\nlog = debug\\n", ["set the log level to debug"])
[]
>>> lost("def slugify(s):\\n    return s\\n", "def reverse_words(s):\\n    return s\\n", ["add reverse_words"])
['def slugify(s):']
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from nanobot.core.provenance import PolicyError, Refusal, Refused

_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|fn|func)\s+([\w$]+)")
_HEAD = re.compile(r"^\s*([\w.\-\[\]\"']+)\s*(?:[:=]\s)")  # a setting's key: "log = warn", "port: 80"
_WORD = re.compile(r"[^\W_]{4,}|\d{2,}")
SIMILAR = 0.6  # difflib ratio above which an added line is a changed form of a removed one


def similar(old: str, new: str) -> bool:
    """Whether ``new`` is a changed form of ``old``: a definition or a setting with the same name, any
    other line mostly the same text."""
    for form in (_DEF, _HEAD):
        a, b = form.match(old), form.match(new)
        if a and b:
            return a.group(1) == b.group(1)
        if form is _DEF and (a or b):
            return False
    return SequenceMatcher(None, old.strip(), new.strip()).ratio() >= SIMILAR


def _mentioned(line: str, asked: list[str]) -> bool:
    said = " ".join(asked).lower()
    return line.strip().lower() in said or any(w.lower() in said for w in _WORD.findall(line))


def lost(before: str, after: str, asked: list[str]) -> list[str]:
    """The lines of ``before`` that ``after`` loses (see the module docstring), in file order."""
    removed = Counter(x.strip() for x in before.splitlines() if x.strip())
    removed.subtract(x.strip() for x in after.splitlines())
    kept = set(x.strip() for x in before.splitlines())
    added = [x for x in after.splitlines() if x.strip() and x.strip() not in kept]
    out = []
    for line in dict.fromkeys(x.strip() for x in before.splitlines() if x.strip()):
        if removed[line] > 0 and not _mentioned(line, asked) and not any(similar(line, a) for a in added):
            out.append(line)
    return out


def refuse_loss(before: str, after: str, asked: list[str] | None, raw: str, tool: str) -> None:
    """Refuse (``PolicyError``, ``Refusal.LOSES_LINES``) a write of ``after`` over ``before`` that loses
    lines the user did not mention; ``asked`` None (no conversation: ``nanobot tools run``) checks nothing."""
    if asked is None or not (gone := lost(before, after, asked)):
        return
    shown = "; ".join(f"'{x[:60]}'" for x in gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
    how = ("put old's text in new as well, with the added lines before or after it (lines at the end of "
           "the file: append_file)" if tool == "edit_file"
           else "write the whole file with its existing lines kept")
    raise PolicyError(Refused(f"{tool} refused: it would remove {shown} from {raw}, which the user did not ask to "
                              f"remove; the file was not changed. To add, {how}", Refusal.LOSES_LINES))
