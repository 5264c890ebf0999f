"""Writing systems of a text (Latin, Cyrillic, CJK, ...), from Unicode character names: how a model's
output in another language than the user's is caught (the coding session's living description drops
items in a script the user never wrote in).

>>> sorted(scripts_of("Fix the parser 修复"))
['CJK', 'LATIN']
>>> foreign("修复 parser", scripts_of("please fix the parser"))
True
>>> foreign("parser.add_argument(--name)", scripts_of("please fix the parser"))
False
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_SAME = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK", "FULLWIDTH": "CJK", "HALFWIDTH": "CJK"}


@lru_cache(maxsize=4096)
def script_of(ch: str) -> str:
    """The script of one letter ("LATIN", "CYRILLIC", "CJK", ...); "" for non-letters."""
    if not ch.isalpha():
        return ""
    name = unicodedata.name(ch, "")
    first = name.split(" ", 1)[0] if name else ""
    return _SAME.get(first, first)


def scripts_of(text: str) -> set[str]:
    return {s for ch in text if (s := script_of(ch))}


def foreign(text: str, allowed: set[str]) -> bool:
    """Whether ``text`` has letters of a script outside ``allowed`` (never, when ``allowed`` is empty:
    with nothing to compare against, nothing is foreign)."""
    return bool(allowed) and bool(scripts_of(text) - allowed)
