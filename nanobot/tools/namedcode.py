"""A name the user's message gives that a file named earlier in the session defines.

"what does add do?" after "In calc.py, fix sub: it should return a - b" is a question about ``add`` in
calc.py, which the message does not name; a small model without the file in view answers with any
"add" it knows (a tool's action). ``defined_in`` finds such a file: one the user named in one of their
last messages (a file that exists in the roots, ``tools.named``: one walk of the roots for all of
them) whose text defines a word of the new message (``def``/``class``/``function``/``func``/``fn`` and the name, in any programming
language that spells a definition so). The first step is then a look at it (``firstlook``). Facts only:
the files the user named and what they define; no word of the message is read as English.

>>> sorted(definitions("def add(a, b):\\n    pass\\nclass Box:\\n    async def get(self): ...\\nexport function toCelsius(f) {}\\n"))
['Box', 'add', 'get', 'toCelsius']
"""

from __future__ import annotations

import re
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.tools.named import named

_DEF = re.compile(r"^[ \t]*(?:export\s+)?(?:pub\s+)?(?:async\s+)?(?:def|class|function|func|fn)\s+([A-Za-z_$][\w$]*)",
                  re.M)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
MAX_BYTES = 200_000  # a file read for its definitions at most
EARLIER = 3  # the user's messages before the last whose files count


def definitions(text: str) -> set[str]:
    """The names ``text`` defines, by the keyword that spells a definition before them."""
    return set(_DEF.findall(text))


def defined_in(said: list[str], roots: list[Path]) -> str | None:
    """The file (as named, relative to its root) that one of the user's ``EARLIER`` messages before the
    last named and that defines a word of the last message; None when there is none."""
    earlier = said[-1 - EARLIER:-1]
    if not earlier:
        return None
    words = set(_NAME.findall(said[-1]))
    for n in reversed(named("\n".join(earlier), roots)):  # the latest message's files first
        if n.kind == "file":
            for root in roots:
                path = root / n.path
                try:
                    if path.is_file() and path.stat().st_size <= MAX_BYTES and words & definitions(
                            read_regular(path).decode("utf-8", "replace")):
                        return n.path
                except OSError:
                    continue
    return None
