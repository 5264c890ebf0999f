"""A command that failed on a path that is not there: the fact, and the names near it.

``exec`` reads a failed command's file-shaped words (``python3 pricing_script.py``: a name with an
extension or a slash, no glob, no option) against the folder it ran in. Where one is missing, the
command's failure is a tool error that names it and the entries of that folder whose names are close
(``difflib``), so the next step calls again with a path that is there ("pricing.py") instead of a
reply that explains the error. The check reads the file system, not the command's output, so it holds
in any language and for any program.

>>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "pricing.py").write_text("")
>>> missing("python3 pricing_script.py --dry", d), missing("python3 pricing.py", d), missing("ls *.md", d)
(['pricing_script.py'], [], [])
>>> note(["pricing_script.py"], d)
"'pricing_script.py' does not exist in the folder the command ran in; did you mean 'pricing.py'?"
>>> note(["tests/price.py"], d)
"'tests/price.py' does not exist in the folder the command ran in; did you mean 'pricing.py'?"
"""

from __future__ import annotations

import difflib
import re
import shlex
from pathlib import Path

_PATHLIKE = re.compile(r"(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,5}|\.{0,2}/[\w./-]+")


def missing(command: str, cwd: Path) -> list[str]:
    """The file-shaped words of ``command`` that name nothing under ``cwd`` (or, absolute, anywhere)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    out = []
    for word in words[1:]:
        if word.startswith("-") or not _PATHLIKE.fullmatch(word) or "://" in word:
            continue
        path = Path(word).expanduser()
        if not (path if path.is_absolute() else cwd / path).exists():
            out.append(word)
    return out


def note(gone: list[str], cwd: Path) -> str:
    """What a failed command's error adds: the first missing path and the close names next to it, in
    its folder or, where that folder is not there either, the nearest one above it inside ``cwd``
    ("python3 tests/shape_tests.py" with no tests/ offers ``test_shapes.py``)."""
    word = gone[0]
    folder = (cwd / word).parent if not Path(word).is_absolute() else Path(word).parent
    while not folder.is_dir() and not Path(word).is_absolute() and folder != cwd and cwd in folder.parents:
        folder = folder.parent
    try:
        names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        names = []
    shown = "" if Path(word).is_absolute() or folder == cwd else f"{folder.relative_to(cwd).as_posix()}/"
    near = [shown + n for n in difflib.get_close_matches(Path(word).name, names, n=3, cutoff=0.5)]
    there = f"did you mean {' or '.join(repr(n) for n in near)}?" if near else "list_dir shows what is there"
    return f"'{word}' does not exist in the folder the command ran in; {there}"
