"""An edit of a Python file kept to the definitions the request names.

Asked "In calc.py, fix sub: it should return a - b", a small model often rewrites the block around
``sub`` and changes ``add`` too. ``pydefs.unnamed_changes`` finds such definitions; ``named_only``
makes the edit the user asked for out of it: each top-level definition the request names takes the
edit's text, every other one keeps the file's. It applies only where that is all the edit did --
the same definitions in the same order, the statements between them unchanged -- and only when a
named definition changed; else the edit is refused as before. Facts only: the two parse trees and
the names the request holds as words, in any language. ``named_occurrence`` picks, among the places
a text to replace occurs, the one inside the one definition the request names ("fix sub": the
``return a + b`` of ``sub``, not of ``add``).

>>> calc = "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b\\n"
>>> named_only(calc, calc.replace("+", "-"), "In calc.py, fix sub: it should return a - b")
('def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a - b\\n', ['add'])
"""

from __future__ import annotations

import ast
import re

from nanobot.tools.pydefs import _DEFS, _span, said_words


def named_only(before: str, after: str, said: str) -> tuple[str, list[str]] | None:
    """(the file with only the named definitions' changes, the unnamed ones kept as they were), or
    None when the edit did more than change definitions or changed none the request names."""
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    old = [n for n in old_tree.body if isinstance(n, _DEFS)]
    new = [n for n in new_tree.body if isinstance(n, _DEFS)]
    others = [[ast.dump(n) for n in t.body if not isinstance(n, _DEFS)] for t in (old_tree, new_tree)]
    if [n.name for n in old] != [n.name for n in new] or others[0] != others[1]:
        return None
    words = said_words(said)
    lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    taken, kept = [], []
    for a, b in reversed(list(zip(old, new))):
        old_src, new_src = ast.get_source_segment(before, a), ast.get_source_segment(after, b)
        if old_src == new_src:
            continue
        if a.name in words:
            (s, e), (ns, ne) = _span(a), _span(b)
            chunk = new_lines[ns:ne]
            if chunk and lines[e - 1].endswith("\n") and not chunk[-1].endswith("\n"):
                chunk[-1] += "\n"
            lines[s:e] = chunk
            taken.append(a.name)
        else:
            kept.append(a.name)
    result = "".join(lines)
    if not taken or result == before:
        return None
    try:
        ast.parse(result)
    except SyntaxError:
        return None
    return result, sorted(kept)


def named_occurrence(text: str, old: str, said: str) -> int | None:
    """The offset of the one occurrence of ``old`` inside a top-level definition the request names, when
    ``old`` occurs more than once and exactly one occurrence is inside a named definition; else None."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    words = said_words(said)
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = [(starts[a], starts[min(b, len(starts) - 1)]) for n in tree.body
             if isinstance(n, _DEFS) and n.name in words for a, b in [_span(n)]]
    found = [m.start() for m in re.finditer(re.escape(old), text)] if old else []
    inside = [at for at in found if any(a <= at and at + len(old) <= b for a, b in spans)]
    return inside[0] if len(found) > 1 and len(inside) == 1 else None
