"""Edits that cannot destroy what they were not asked to touch: the lines a write or an edit removes,
checked against what the user asked, before anything is written.

A removed line is **lost** when no added line is a changed form of it (``similar``: a value set, a typo
fixed, ``return a + b`` become ``return a - b``; a definition line only by its own name) or extends it
(``extends``: ``{ add, sub }`` widened to ``{ add, sub, mul }``) and the user's
last two messages do not mention it (its text, or a word of it of 4+ letters; a definition line also by
its whole name outside the file's name). A word that names the edited file, or that the added lines
hold, mentions nothing; a line the user dictated is an addition, not a changed form of the line it
replaced. An edit that loses lines is refused with the lines and the way to keep them, typed
``Refusal.LOSES_LINES``; where the request dictates the new line, the line goes after the last one and
that one stays (``added_after``). A Python file that parses before and after is read as code
(``pyloss``): what it loses is a definition, an imported name, a name a module or class assigns, or a
block that is gone. Facts of the text, no word list: a request in any language that names what it
removes is allowed.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from nanobot.base.pysyntax import is_python
from nanobot.core.provenance import PolicyError, Refusal, Refused
from nanobot.tools.pyloss import gone

_DEF = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|fn|func)\s+([\w$]+)")
_HEAD = re.compile(r"^\s*([\w.\-\[\]\"']+)\s*(?:[:=]\s)")  # a setting's key: "log = warn", "port: 80"
_WORD = re.compile(r"[^\W_]{4,}|\d{2,}")
SIMILAR = 0.6  # difflib ratio above which an added line is a changed form of a removed one


def similar(old: str, new: str, said: str = "") -> bool:
    """Whether ``new`` is a changed form of ``old``: a definition or a setting with the same name, any
    other line mostly the same text and not dictated by the request ``said`` (``_dictated``)."""
    for form in (_DEF, _HEAD):
        a, b = form.match(old), form.match(new)
        if a and b:
            return a.group(1) == b.group(1)
        if form is _DEF and (a or b):
            return False
    return SequenceMatcher(None, old.strip(), new.strip()).ratio() >= SIMILAR and not _dictated(old, new, said)


_TOKEN = re.compile(r"\w+|[^\w\s]")


def extends(old: str, new: str) -> bool:
    """Whether ``new`` keeps every token of ``old`` in order and adds some: a line extended (an import
    widened, an argument added, a list grown) loses nothing, whatever language. A line of fewer than two
    words (a brace, a bare name) extends into too much to count.

    >>> extends('const { add, sub } = require("./calc");', 'const { add, sub, mul } = require("./calc");')
    True
    >>> extends("import a, b", "import a"), extends("}", "});")
    (False, False)
    """
    a, b = _TOKEN.findall(old), iter(_TOKEN.findall(new))
    return len(re.findall(r"\w+", old)) >= 2 and len(a) < len(_TOKEN.findall(new)) and all(t in b for t in a)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _mentioned(line: str, said: str, neutral: set[str], path: str = "") -> bool:
    return line.lower() in said or any(w in said for w in _words(line) - neutral) or _named_def(line, said, path)


def _named_def(line: str, said: str, path: str) -> bool:
    """``line`` defines a name that ``said`` holds as a whole name, the file's own name left out."""
    return bool(m := _DEF.match(line)) and m.group(1).lower() in _named(said, path)


def _dictated(old: str, new: str, said: str) -> bool:
    """``new`` brings words of its own (vs ``old``), and the request holds every one of them."""
    fresh = _words(new) - _words(old)
    return bool(fresh) and all(w in said for w in fresh)


def _added(before: str, after: str) -> str:
    kept = set(x.strip() for x in before.splitlines())
    return "\n".join(x for x in after.splitlines() if x.strip() and x.strip() not in kept)


def _named(said: str, path: str) -> set[str]:
    """The whole names ``said`` holds, the file's own name left out (``_named_def``'s reading)."""
    for name in sorted({path.lower(), path.lower().rsplit("/", 1)[-1]} - {""}, key=len, reverse=True):
        said = said.replace(name, " ")
    return set(re.findall(r"[\w$]+", said))


def lost(before: str, after: str, asked: list[str], path: str = "") -> list[str]:
    """The lines of ``before`` that ``after`` (an edit of the file ``path``) loses (see the module
    docstring), in file order.

    >>> lost("a = 1\\nb = 2\\n", "a = 1\\nc = 3\\n", ["add c = 3 at the end"])
    ['b = 2']
    >>> lost("port = 80\\nlog = warn\\n", "port = 80\\nlog = debug\\n", ["set the log level to debug"])
    []
    >>> lost("06-01 picked radishes\\n", "06-08 picked strawberries\\n", ["add: 06-08 picked strawberries"])
    ['06-01 picked radishes']
    >>> lost("- buy milk\\n", "- buy eggs\\n", ["add eggs to shopping.txt"])
    ['- buy milk']
    >>> lost("def slugify(s):\\n    return s\\n", "def reverse_words(s):\\n    return s\\n", ["add reverse_words"])
    ['def slugify(s):']
    >>> lost("def greet(n):\\n", "def welcome(n):\\n", ["in greet.py rename greet to welcome"], "greet.py")
    []
    >>> lost("def greet(n):\\n", "def welcome(n):\\n", ["add welcome to greet.py"], "greet.py")
    ['def greet(n):']
    >>> lost("from m import a, b\\n", "from m import a, b, c\\n\\ndef test_c():\\n    assert c()\\n", ["add a test for c"], "t.py")
    []
    >>> lost("def test_a():\\n    pass\\n\\n\\ndef test_days_any_order():\\n    pass\\n", "def test_a():\\n    pass\\n    pass\\n",
    ...      ["the number of days is wrong, fix it"], "test_w.py")
    ['def test_days_any_order():']
    """
    said = " ".join(asked).lower()
    if is_python(path) and (pieces := gone(before, after, _named(said, path))) is not None:  # the code's, not lines
        neutral = _words(path) | _words(_added(before, after))  # a definition is named whole, not by a word of it
        return [x for x in pieces if not (_named_def(x, said, path) if _DEF.match(x) else _mentioned(x, said, neutral, path))]
    removed = Counter(x.strip() for x in before.splitlines() if x.strip())
    removed.subtract(x.strip() for x in after.splitlines())
    added = _added(before, after).splitlines()
    neutral = _words(path) | _words("\n".join(added))
    out = []
    for line in dict.fromkeys(x.strip() for x in before.splitlines() if x.strip()):
        if removed[line] > 0 and not _mentioned(line, said, neutral, path) and not any(
                similar(line, a, said) or extends(line, a) for a in added):
            out.append(line)
    return out


def added_after(before: str, old: str, new: str, asked: list[str]) -> str | None:
    """``before`` with ``new`` on lines of its own after the line where ``old`` ends, ``old`` kept: the
    edit of a model that pointed at a line to say where a line the user dictated goes (every word of
    ``new`` in the request: "Ajoute 'lampe frontale' à ma liste" replacing ``passport``). None where
    ``new`` is not dictated or ``old`` is not once in ``before``: the loss is refused then.

    >>> added_after("passport\\nadapter\\n", "passport", "lampe frontale", ["Ajoute 'lampe frontale'"])
    'passport\\nlampe frontale\\nadapter\\n'
    """
    if not _dictated("", new, " ".join(asked).lower()) or before.count(old) != 1:
        return None
    end = before.find("\n", before.index(old) + len(old))
    end = len(before) if end < 0 else end
    return f"{before[:end]}\n{new.strip(chr(10))}{before[end:]}"


def refuse_loss(before: str, after: str, asked: list[str] | None, raw: str, tool: str) -> None:
    """Refuse (``PolicyError``, ``Refusal.LOSES_LINES``) a write of ``after`` over ``before`` that loses
    lines the user did not mention; ``asked`` None (no conversation: ``nanobot tools run``) checks nothing."""
    if asked is None or not (gone := lost(before, after, asked, raw)):
        return
    shown = "; ".join(f"'{x[:60]}'" for x in gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
    how = ("put old's text in new as well, with the added lines before or after it (lines at the end of "
           "the file: append_file)" if tool == "edit_file"
           else "write the whole file with its existing lines kept")
    raise PolicyError(Refused(f"{tool} refused: it would remove {shown} from {raw}, which the user did not ask to "
                              f"remove; the file was not changed. To add, {how}", Refusal.LOSES_LINES))
