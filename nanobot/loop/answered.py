"""Whether a reply to "show me / run X" says anything of what the look showed (``unanswered``).

The look ran and succeeded and the reply shares no word with its result ("Done.", a canned "I'm sorry,
but I can't help with that.", an earlier answer copied from the history): ``replycheck.check`` retries
it once with the result in the note (the retry does not see the turn's tool steps), else shows the user
the result itself as a correction: they asked to see it.

Words are compared, not meaning: the result's words (numbers too; a word and its longer form,
"add"/"adds"), less the tool's own header ("todo.md lines 1-3 of 3", "exit 0") and the words of the
user's message, against the reply's. A listing's count names none of its entries. A file read whole
shows its length, and how many of its lines open with the same word ("There are 2 functions in
utils.py."): those answer, and are never words to miss. A reply in other words entirely costs one retry,
not a wrong answer.
"""

from __future__ import annotations

import re
from collections import Counter

from nanobot.tools.listing import COUNTS

_HEADER = re.compile(rf"\A(?:exit -?\d+|\S+ lines \d+-\d+ of \d+|\S+: empty file|\S+: {COUNTS})\s*$\n?", re.M)
_WHOLE = re.compile(r"\A\S+ lines 1-(\d+) of (\d+)\s*$", re.M)  # a read's header, when it showed the whole file
_READ = re.compile(r"\A\S+ lines \d+-\d+ of \d+\s*$", re.M)  # a read's header (a listing's counts do not answer)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_COMMON = frozenset(
    "an and are as at be but by can do does file for from has have he her his how if in into is it its me my no "
    "not of on or our result says she so that the their them then there these they this those to up us was we "
    "were what when which who will with you your".split())


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text))
            if w.isdigit() or (len(w) >= 2 and w not in _COMMON)}


def _shares(reply: set[str], shown: set[str]) -> bool:
    if reply & shown:
        return True
    return any(len(a) >= 3 and len(b) >= 3 and (a.startswith(b) or b.startswith(a)) for a in reply for b in shown
               if not a.isdigit() and not b.isdigit())


def unanswered(user_text: str, reply: str, result: str) -> str:
    """The result's body (what the look showed) when ``reply`` says nothing of it; "" when it does,
    or when there was nothing to show.

    >>> unanswered("show me todo.md", "Done.", "todo.md lines 1-2 of 2\\n# Todo\\n- buy milk")
    '# Todo\\n- buy milk'
    >>> unanswered("show me todo.md", "You need to buy milk.", "todo.md lines 1-2 of 2\\n- buy milk")
    ''
    >>> unanswered("run date", "It printed nothing.", "exit 0")  # nothing shown: nothing to miss
    ''
    >>> unanswered("what is in trips?", "There are 21 entries in trips.", "trips: 2 files\\noslo.md\\nrome.md")
    'oslo.md\\nrome.md'
    >>> unanswered("What files are in trips?", "There are 2 files.", "trips: 2 files\\noslo.md\\nrome.md")
    'oslo.md\\nrome.md'
    >>> unanswered("How many lines are in packing.txt?", "It has 2 lines.", "packing.txt lines 1-2 of 2\\npassport\\nadapter")
    ''
    >>> unanswered("show me big.txt", "It has 300 lines.", "big.txt lines 1-2 of 300\\nalpha\\nbeta")
    'alpha\\nbeta'
    >>> unanswered("how many functions are in u.py?", "It has 2.", "u.py lines 1-4 of 4\\ndef a():\\n  pass\\ndef b():\\n  pass")
    ''
    >>> unanswered("how many functions are in u.py?", "It has 3.", "u.py lines 1-4 of 4\\ndef a():\\n  pass\\ndef b():\\n  pass")
    'def a():\\n  pass\\ndef b():\\n  pass'
    """
    body = _HEADER.sub("", result, count=1).strip()
    shown = _words(body) - _words(user_text)
    if not shown or body == "(no output)":
        return ""
    if (whole := _WHOLE.match(result)) and whole.group(1) == whole.group(2):  # a file read whole: its length
        shown = shown | {whole.group(1)}  # answers too; it is never a word to miss
    if _READ.match(result):  # a read: how many lines open with one word answers a count
        opened = Counter(ln.split()[0] for ln in body.splitlines() if ln.split())
        shown = shown | {str(n) for n in opened.values() if n > 1}  # one of a kind is every line's first word
    return "" if _shares(_words(reply), shown) else body
