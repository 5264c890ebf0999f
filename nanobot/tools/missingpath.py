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
>>> note(["tests/price.py"], d, "python3 tests/price.py -v")
"'tests/price.py' does not exist in the folder the command ran in; did you mean 'pricing.py'? Call it as `python3 pricing.py -v` for the first."
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


def note(gone: list[str], cwd: Path, command: str = "") -> str:
    """What a failed command's error adds: the first missing path and the close names next to it, in
    its folder or, where that folder is not there either, the nearest one above it inside ``cwd``
    ("python3 tests/shape_tests.py" with no tests/ offers ``test_shapes.py``); with ``command``, that
    command with the closest name in the missing one's place (a small model calls again with the
    path it guessed, the error above it, unless the call to make is spelled out)."""
    word = gone[0]
    folder = (cwd / word).parent if not Path(word).is_absolute() else Path(word).parent
    while not folder.is_dir() and not Path(word).is_absolute() and folder != cwd and cwd in folder.parents:
        folder = folder.parent
    try:
        names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        names = []
    shown = "" if Path(word).is_absolute() or folder == cwd else f"{folder.relative_to(cwd).as_posix()}/"
    near = [shown + n for n in closest(Path(word).name, names)]
    there = f"did you mean {' or '.join(repr(n) for n in near)}?" if near else "list_dir shows what is there"
    fixed = f" Call it as `{_swapped(command, word, near[0])}` for the first." if command and near else ""
    return f"'{word}' does not exist in the folder the command ran in; {there}{fixed}"


def _swapped(command: str, word: str, name: str) -> str:
    """``command`` with the word ``word`` replaced by ``name``, quoted for a shell where it needs it."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    return shlex.join([name if w == word else w for w in words])


def _parts(name: str) -> set[str]:
    """A file name's words without its extension, a trailing plural "s" dropped: ``{"shape", "test"}``
    for both ``shape_tests.py`` and ``test_shapes.py``."""
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.split(r"[\W_]+", stem.lower()) if w}


def closest(name: str, names: list[str], n: int = 3) -> list[str]:
    """Up to ``n`` of ``names`` near ``name``: by the share of their words in common (a name with its
    words in another order first), then by ``difflib``'s likeness.

    >>> closest("shape_tests.py", ["shapes.py", "test_shapes.py", "notes.md"])
    ['test_shapes.py', 'shapes.py']
    """
    want = _parts(name)

    def words(other: str) -> float:
        have = _parts(other)
        return len(want & have) / len(want | have) if want | have else 0.0

    like = {o: difflib.SequenceMatcher(None, name, o).ratio() for o in names}
    near = [o for o in names if like[o] >= 0.5 or words(o) >= 0.5]
    return sorted(near, key=lambda o: (-words(o), -like[o]))[:n]
