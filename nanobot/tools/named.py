"""The one path detector: which files and folders a message names, as facts about the roots.

A word of the message names a path when it is one there (``notes/meeting.txt``, a file name found
at most two folders down, a folder's name), or when it is one edit away from one (``inventry.csv``
for ``inventory.csv``: a typo, in any language's sentence); a file's name is also named as spoken,
its separators as spaces ("the garden log" for ``garden.log``), and by its name without the
extension where the message names its folder too ("the roster is in the crew folder"). A word shaped like a file name
(``hello.txt``) that does not exist is named too, as ``new``: a file the user may want created. No
list of words is read: the roots are.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from nanobot.core.asks import _FILE

_SHAPED = _FILE  # a file-shaped name (``core.asks``)
_WORD = re.compile(r"[\w./-]{3,}")
_SKIP = {".git", "node_modules", "__pycache__", ".venv", ".nanobot"}
MAX_ENTRIES = 2000


def roots_of(settings) -> list[Path]:
    """The folders the tools may reach: the workspace, then ``[tools] roots``."""
    return [settings.workspace.resolve(), *(Path(r).expanduser().resolve() for r in settings.tools.roots)]


@dataclass(frozen=True)
class Named:
    path: str  # as it is in the root (the typo corrected)
    kind: str  # "file", "folder" or "new" (file-shaped, not there)
    said: str  # as the message wrote it


def entries(roots: list[Path], depth: int = 2) -> dict[str, str]:
    """{relative path: "file" | "folder"} of the roots, ``depth`` folders down, at most MAX_ENTRIES."""
    out: dict[str, str] = {}
    for root in roots:
        for top, dirs, files in os.walk(root):
            rel = Path(top).relative_to(root)
            dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))[:200] if len(rel.parts) < depth else []
            for d in dirs:
                out.setdefault(str(rel / d), "folder")
            for f in sorted(files)[:500]:
                out.setdefault(str(rel / f), "file")
            if len(out) >= MAX_ENTRIES:
                return out
    return out


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def named(text: str, roots: list[Path]) -> list[Named]:
    """The paths ``text`` names, in the order it names them (see the module docstring).

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp()); (d / "notes").mkdir()
    >>> _ = (d / "notes" / "meeting.txt").write_text("x"); _ = (d / "todo.md").write_text("x")
    >>> [(n.path, n.kind) for n in named("Zeig mir bitte tod.md und notes", [d])]
    [('todo.md', 'file'), ('notes', 'folder')]
    >>> _ = (d / "garden.log").write_text("x"); [n.path for n in named("what did the garden log say?", [d])]
    ['garden.log']
    >>> [(n.path, n.kind) for n in named("create hello.txt", [d])]
    [('hello.txt', 'new')]
    >>> [n.path for n in named("the meeting is somewhere in notes", [d])], [n.path for n in named("a meeting", [d])]
    (['notes/meeting.txt', 'notes'], [])
    """
    have = entries(roots)
    by_name: dict[str, list[str]] = {}
    for rel in have:
        by_name.setdefault(Path(rel).name.lower(), []).append(rel)
    found: list[tuple[int, Named]] = []
    shaped = {m.group(1) for m in _SHAPED.finditer(text)}
    for m in _WORD.finditer(text):
        word = m.group(0).strip("./").rstrip(",;:!?") if m.group(0) not in shaped else m.group(0)
        if len(word) < 3 or word.isdigit():
            continue
        hit = _find(word, have, by_name)
        if hit:
            found.append((m.start(), Named(hit, have[hit], word)))
        elif word in shaped and not re.match(r"^\d|^\w\.\w$", word):  # "e.g" is no file
            found.append((m.start(), Named(word, "new", word)))
    found += _spoken(text, have, by_name)
    found += _in_folder(text, have, {n.path for _, n in found if n.kind == "folder"})
    out: dict[str, Named] = {}
    for _, n in sorted(found, key=lambda f: f[0]):
        out.setdefault(n.path, n)
    return list(out.values())


def _spoken(text: str, have: dict[str, str], by_name: dict[str, list[str]]) -> list[tuple[int, Named]]:
    """Files named as spoken, their separators as spaces: "the garden log" names ``garden.log``."""
    low = text.lower()
    out = []
    for name, rels in by_name.items():
        words = re.sub(r"[._-]+", " ", name).split()
        if len(words) < 2 or have[rels[0]] != "file":
            continue
        if m := re.search(rf"(?<!\w){re.escape(' '.join(words))}(?!\w)", low):
            out.append((m.start(), Named(rels[0], "file", text[m.start():m.end()])))
    return out


STEM_MIN = 4  # letters of a file's name without its extension, at least, to be named by it


def _in_folder(text: str, have: dict[str, str], folders: set[str]) -> list[tuple[int, Named]]:
    """Files named by their name without the extension, in a folder the message names too: "the roster
    is somewhere in the crew folder" names ``crew/roster.txt`` (two facts of the roots, not one word)."""
    low, out = text.lower(), []
    for rel, kind in have.items():
        path = Path(rel)
        if (kind != "file" or str(path.parent) not in folders or len(stem := path.stem.lower()) < STEM_MIN
                or stem == path.parent.name.lower()):  # "notes" names the folder notes/, not notes/notes.md
            continue
        if m := re.search(rf"(?<![\w.]){re.escape(stem)}(?![\w.])", low):
            out.append((m.start(), Named(rel, "file", text[m.start():m.end()])))
    return out


def nearest(raw: str, roots: list[Path]) -> str:
    """The one root entry ``raw`` names with a typo (one edit away), "" when none or several: a
    missing path's error offers it (``read_file``, ``list_dir``).

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "inventory.csv").write_text("x")
    >>> nearest("inventry.csv", [d]), nearest("sales.csv", [d])
    ('inventory.csv', '')
    """
    have = entries(roots)
    by_name: dict[str, list[str]] = {}
    for rel in have:
        by_name.setdefault(Path(rel).name.lower(), []).append(rel)
    word = raw.strip().strip("./").lower()
    if hit := _find(word, have, by_name):
        return hit if hit != raw else ""
    name = word.rsplit("/", 1)[-1]  # a path is meant here, so a folder's name is compared too
    near = [rel for n, rels in by_name.items() if len(n) >= 5 and _one_edit(name, n) for rel in rels]
    return near[0] if len(near) == 1 else ""


def _find(word: str, have: dict[str, str], by_name: dict[str, list[str]]) -> str:
    """The root entry ``word`` names: itself, a file or folder name, or one edit away (names of 5+ chars)."""
    key = word.lower().rstrip("/")
    if key in {k.lower() for k in have}:
        return next(k for k in have if k.lower() == key)
    if key in by_name and (have[by_name[key][0]] == "folder" or "." in key):
        return by_name[key][0]
    if "." in key or "/" in key:  # a file-shaped word with a typo: compare the names
        name = key.rsplit("/", 1)[-1]
        near = [rel for n, rels in by_name.items() if len(n) >= 5 and "." in n and _one_edit(name, n) for rel in rels]
        if len(near) == 1:
            return near[0]
    return ""
