"""Shortening text for the files nanobot writes about a session (CONTEXT.md, observations, MEMORY.md).

One rule everywhere: a cut falls at a clause boundary (after ``, ; : —`` or a sentence end) when one is
near the limit, otherwise between words, never inside a word, and never inside a quote or bracket: one that
cannot be kept whole is dropped with what follows it. ``sentences`` splits at ``.!?`` followed by a
space or the end, so ``utils.py`` stays one word, and not after a one- or two-digit number (an ordinal). ``whole_words`` trims a model's text that a
grammar bound stopped in mid-word.

>>> shorten("add a function called reverse_words to utils.py and test it", 40)
'add a function called reverse_words to…'
>>> shorten('the user said "use serde for the parser" and left', 30)
'the user said…'
>>> sentences("What does utils.py do? Add a test.")
['What does utils.py do?', 'Add a test.']
>>> sentences("Ich halte am 14. März einen Vortrag. Danach Pause.")
['Ich halte am 14. März einen Vortrag.', 'Danach Pause.']
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
_CLAUSE = re.compile(r"[,;:—–.!?)](?=\s)")
_QUOTES = ('"', "“", "”")
# a period after a one- or two-digit number ("am 14. März", "1. Preis") is an ordinal, not an end
_SENTENCE = re.compile(r"(?<!\s\d\.)(?<!\s\d\d\.)(?<!^\d\.)(?<!^\d\d\.)(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """``text``'s sentences, whitespace normalised; a sentence ends at ``.!?`` before a space."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE.split(text)) if s]


def open_quote(text: str) -> int:
    """Where an unclosed quote starts in ``text``; -1 when every quote closes."""
    at, opened = -1, False
    for i, ch in enumerate(text):
        if ch in _QUOTES:
            if ch == "”" or (ch == '"' and opened):
                opened, at = False, -1
            else:
                opened, at = True, i
    return at if opened else -1


def shorten(text: str, limit: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` on one line in at most ``limit`` characters, cut as the module docstring says."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return _balanced(text)
    room = max(1, limit - len(ellipsis))
    head = text[: room + 1]  # one more: a space right after the limit makes the last word whole
    cut = head.rfind(" ")
    head = head[:cut] if cut > 0 else ""
    clause = max((m.end() for m in _CLAUSE.finditer(head + " ")), default=0)
    if clause >= room * 0.6:
        head = head[:clause]
    head = _balanced(head).rstrip(" ,;:—–(")
    return head + ellipsis if head else ""


def _balanced(text: str) -> str:
    """``text`` without an unclosed quote or bracket and what follows it.

    >>> _balanced("edited utils.py at line 8 (defines reverse_words"), _balanced("ran f(x) (twice)")
    ('edited utils.py at line 8', 'ran f(x) (twice)')
    """
    while True:  # a cut before a bracket may leave a quote open, and the other way round
        at = open_quote(text)
        cut = text if at < 0 else text[:at].rstrip()
        for a, b in ("()", "[]"):
            depth, start = 0, -1
            for i, ch in enumerate(cut):
                if ch == a:
                    depth, start = depth + 1, start if depth else i
                elif ch == b and depth:
                    depth -= 1
            if depth:
                cut = cut[:start].rstrip()
        if cut == text:
            return text
        text = cut


def whole_words(text: str, bound: int, known: frozenset[str] = frozenset(), margin: int = 10,
                ellipsis: str = "") -> str:
    """A model's ``text`` that came within ``margin`` characters of its grammar ``bound`` without its
    last word: the grammar ends the string where the next token would pass the bound, and a token
    is several characters, so the last word there may be cut. A last word in ``known`` (the words
    the model read, lower-case) is whole and stays; shorter text is kept as it is. With an
    ``ellipsis``, text the bound stopped before a sentence end also goes back to its last clause
    (when that keeps over half of it) and says it was stopped: "... rounding as" is no reading.

    >>> whole_words("add a function called reverse_w", 32), whole_words("run the tests", 32)
    ('add a function called', 'run the tests')
    >>> whole_words("add a function called reverse_words", 36, frozenset({"reverse_words"}))
    'add a function called reverse_words'
    >>> whole_words("Elena can only do the 14th now, so we", 40, frozenset({"we"}), ellipsis=ELLIPSIS)
    'Elena can only do the 14th now…'
    """
    text = " ".join(text.split())
    last = text.rsplit(" ", 1)[-1].rstrip(".,;:!?)").lower()
    if len(text) < bound - margin or (last and last in known and not ellipsis):
        return _balanced(text)
    if not (last and last in known):
        text = text.rsplit(" ", 1)[0] if " " in text else ""
    if not ellipsis or text.endswith((".", "!", "?")):
        return _balanced(text).rstrip(" ,;:—–(")
    clause = max((m.end() for m in _CLAUSE.finditer(text + " ")), default=0)
    head = _balanced(text[:clause] if clause > len(text) / 2 else text).rstrip(" ,;:—–(.")
    return head + ellipsis if head else ""
