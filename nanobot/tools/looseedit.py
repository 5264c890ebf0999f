"""edit_file's second chance: the old text found with other whitespace than the model gave it.

Small models copy code with its whitespace changed: an ``old`` of ``def add(a, b): return a + b``
for a file holding ``def add(a, b):\\n    return a + b`` (copied from a memory line that collapsed
it), or a block without its indentation. As aider and other
coding agents do, an ``old`` that is not in the file as given is looked for again with every run of
whitespace free (``\\s+`` where it had any, its ends trimmed); a single such match is the text
meant. When the match differs only by a uniform indentation, the replacement gets that indentation
too. Two or more matches, or none, are still errors: nothing is guessed beyond whitespace.

>>> loose_replace("def add(a, b):\\n    return a + b\\n", "def add(a, b): return a + b", "def add(a, b): return a - b")
('def add(a, b): return a - b\\n', 0)
>>> loose_replace("class A:\\n    def f(self):\\n        return 1\\n", "def f(self):\\n    return 1", "def f(self):\\n    return 2")
('class A:\\n    def f(self):\\n        return 2\\n', 13)
>>> loose_replace("x = 1\\nx = 1\\n", "x =  1", "x = 2") is None
True
"""

from __future__ import annotations

import re


def _pattern(old: str) -> re.Pattern[str] | None:
    parts = old.split()
    if not parts:
        return None
    return re.compile(r"\s+".join(re.escape(p) for p in parts))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _reindent(old: str, found: str, new: str) -> str:
    """``new`` with the indentation ``found`` has and ``old`` lacked, when that is one prefix on every
    line (the model dropped a block's indentation); else ``new`` as given."""
    olds, founds = old.splitlines(), found.splitlines()
    if len(olds) != len(founds) or any(a.strip() != b.strip() for a, b in zip(olds, founds)):
        return new
    # the match starts mid-line: its first line's indentation is the file line's, before the match
    pairs = [(_indent(a), _indent(b)) for a, b in zip(olds[1:], founds[1:]) if a.strip()]
    prefixes = {b[: len(b) - len(a)] if b.endswith(a) else None for a, b in pairs}
    prefix = prefixes.pop() if len(prefixes) == 1 else None
    if not prefix:  # none, several, or one the model's lines do not end with
        return new
    lines = new.splitlines(keepends=True)
    return lines[0] + "".join(prefix + ln if ln.strip() else ln for ln in lines[1:]) if lines else new


def loose_replace(text: str, old: str, new: str) -> tuple[str, int] | None:
    """(``text`` with the one whitespace-free match of ``old`` replaced by ``new``, the match's offset),
    or None when ``old`` matches nowhere or more than once that way."""
    pattern = _pattern(old)
    if pattern is None:
        return None
    matches = list(pattern.finditer(text))
    if len(matches) != 1:
        return None
    m = matches[0]
    lead, trail = old[: len(old) - len(old.lstrip())], old[len(old.rstrip()):]
    if lead and new.startswith(lead):  # the ends trimmed from old are not part of the match
        new = new[len(lead):]
    if trail and new.endswith(trail):
        new = new[: len(new) - len(trail)]
    new = _reindent(old.strip(), m.group(0), new)
    return text[: m.start()] + new + text[m.end():], m.start()
