"""Changing a file the user owns (MEMORY.md, USER.md, SOUL.md, CONTEXT.md, knowledge docs) without
losing what the user writes meanwhile.

``update_user_file(path, fn)`` is read-merge-write under one inter-process lock (``filelock.file_lock``
on a sidecar ``.NAME.lock``, which every nanobot writer of that file takes) with a compare-and-retry
against writers that take no lock (an editor, ``echo >> MEMORY.md``): the file is read, ``fn`` merges
its change into that text, and just before the atomic rename the file is read again; if it changed,
the merge is redone on the new text (up to ``retries`` times). ``fn`` must therefore be a pure
function of the text it is given, e.g.::

    update_user_file(ws / "MEMORY.md", lambda old: old + "- a fact\\n")

Text is decoded with ``errors="replace"`` (see ``workspace.read_text``); the file is written as UTF-8.
Returns (old, new) text; old == new means nothing was written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nanobot.base import faults
from nanobot.base.atomic import atomic_write
from nanobot.base.errors import WorkspaceError
from nanobot.base.filelock import file_lock
from nanobot.base.regular import read_regular


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def update_user_file(path: Path, fn: Callable[[str], str], *, retries: int = 5,
                     fault: str = "") -> tuple[str, str]:
    path = Path(path)
    with file_lock(path.parent / f".{path.name}.lock"):
        for _ in range(retries + 1):
            raw = _read(path)
            old = (raw or b"").decode("utf-8", errors="replace")
            new = fn(old)
            if fault:
                faults.point(fault)
            if _read(path) != raw:  # someone wrote meanwhile: merge again on their text
                continue
            if new != old:
                atomic_write(path, new)
            return old, new
    raise WorkspaceError(f"{path} kept changing while nanobot tried to update it; try again when it is not being edited")
