"""Which lines a read_file call shows: the window the call asks for, or the whole file when the file
fits one read and the window is the model's own guess.

A small model writes a window nobody asked for: ``"lines": 2`` for "Tell me which log_level
server.toml uses" (then answers from the two lines it saw), ``"start": 7`` in a five-line file (an
error). Whether the user gave the window is a fact of their message, in any language: it holds the
numbers (the first line, the count or the last line: "show me lines 3-5 of a.txt", "the first 2
lines"). A window the message does not hold, over a file of at most ``max_lines`` lines, is widened
to the whole file; a longer file is read as asked (the model pages through it with the ``[more: ...]``
line the read ends with).

>>> whole(2, 1, 5, "Tell me which log_level server.toml uses", 200)
True
>>> whole(3, 3, 9, "show me lines 3-5 of a.txt", 200)
False
>>> whole(1, 2, 9, "the first 2 lines of a.txt", 200)
False
>>> whole(1, 100, 300, "read big.txt", 200)
False
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d+")


def whole(start: int, lines: int, total: int, said: str, max_lines: int) -> bool:
    """Whether a read of ``lines`` lines from ``start`` in a file of ``total`` lines shows the whole
    file instead: it fits one read (``max_lines``), the window does not cover it, and the user's
    message ``said`` gives none of the window's numbers."""
    if total > max_lines or (start == 1 and lines >= total):
        return False
    given = set(_NUMBER.findall(said))
    window = {str(start)} if start != 1 else set()
    return not (window | {str(lines), str(start + lines - 1)}) & given
