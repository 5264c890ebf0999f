"""A folder listing's text (``list_dir``'s result): its header line and, read back, its entries.

The header counts files and folders apart ("notes: 3 files, 2 folders"): a small model answers
"how many files are here?" from the header it is given, and one total ("19 entries") read back as
"19 files" counted the folders as files. The reply checks read a listing back from a turn's events
(``entries``) to tell whether a reply names anything it showed.

>>> header("notes", 2, 1)
'notes: 2 files, 1 folder'
>>> header(".", 0, 1)
'.: 1 folder'
>>> entries("notes: 2 files, 1 folder\\nold/\\na.txt (3 B)\\nb.md (1 B)\\n[4 more not shown]")
['old', 'a.txt', 'b.md']
>>> listed = read("(directory 'nots' does not exist; this is 'notes')\\nnotes: 2 files, 1 folder\\nold/\\na.txt (3 B)")
>>> sorted(listed.counts), listed.names, listed.body, listed.notes
([1, 2, 3], ['old', 'a.txt'], 'old/\\na.txt (3 B)', "(directory 'nots' does not exist; this is 'notes')")
>>> entries("todo.md lines 1-2 of 2\\nInventory: 3 files\\nbolts") is None  # a file's text is no listing
True
"""

from __future__ import annotations

import re
from typing import NamedTuple

# the header's counts, as ``header`` writes them; the answered check skips it as the tool's own words
COUNTS = r"(?:\d+ files?(?:, \d+ folders?)?|\d+ folders?)"
_HEADER = re.compile(rf"\A(?:\(.*\)\n)*(.+?): ({COUNTS})[ \t]*$", re.M)  # after list_dir's "(...)" lines only
_ENTRY = re.compile(r"^(.+?)(?:/| \(\d+ B\)| \(unreadable\)| -> \(link\))?$")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def header(shown: str, files: int, folders: int) -> str:
    """The listing's first line: the folder as shown, then its files and folders counted apart (every
    entry, those past the shown limit too; a link out of the roots is no folder)."""
    counts = [_plural(files, "file")] * bool(files) + [_plural(folders, "folder")] * bool(folders)
    return f"{shown}: {', '.join(counts)}"


class Listing(NamedTuple):
    counts: frozenset[int]  # the header's counts (files, folders) and their sum
    body: str  # the entries' lines, as shown
    notes: str  # list_dir's own "(...)" lines before the header ("this is nanobot's workspace, not ..."), or ""
    names: list[str]  # the entries' names, folders without their slash


def read(text: str) -> Listing | None:
    """A listing's text read back, or None when ``text`` is no listing (a file's text, a command's
    output). The header is found after list_dir's own "(...)" lines only."""
    m = _HEADER.match(text)
    if not m:
        return None
    found = [int(n) for n in re.findall(r"\d+", text[m.start(2):m.end()])]
    body = text[m.end():].lstrip("\n")
    names = [_ENTRY.match(line).group(1) for line in map(str.strip, body.splitlines())
             if line and not line.startswith("[")]
    return Listing(counts=frozenset({*found, sum(found)}), body=body, names=names,
                   notes=text[:m.start(2)].rpartition("\n")[0])


def entries(text: str) -> list[str] | None:
    """The names a listing's text shows, or None when ``text`` is no listing."""
    listing = read(text)
    return listing.names if listing else None
