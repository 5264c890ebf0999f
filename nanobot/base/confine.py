"""Values read from a file are data, never trusted as paths: ids and relative paths checked on load.

Background jobs read what an earlier process (or anyone who can write the home folder) left behind:
housekeeping job files, coding-session metadata, the vault's ledger and pending intent. A value
that becomes part of a path is checked when the model is validated, so a crafted
``"session": "../../.bashrc"`` makes the file unreadable (set aside with a warning) instead of
making nanobot write outside its folders:

>>> safe_id("2026-01-02-0930-ab12")
'2026-01-02-0930-ab12'
>>> safe_id("../x")
Traceback (most recent call last):
ValueError: '../x' is not a plain id (letters, digits, '.', '_', '-'; no path)
>>> inside(Path("/w/knowledge"), "a/../../etc/passwd")
Traceback (most recent call last):
ValueError: 'a/../../etc/passwd' leaves /w/knowledge
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def safe_id(value: str) -> str:
    """``value`` when it is one plain name component (usable as a file or folder name)."""
    if not isinstance(value, str) or not _ID.match(value) or ".." in value:
        raise ValueError(f"{value!r} is not a plain id (letters, digits, '.', '_', '-'; no path)")
    return value


def safe_rel(value: str) -> str:
    """``value`` when it is a relative posix path with no ``..``, no empty part and no control
    character (a ledger's ``knowledge/a/b.md``)."""
    parts = PurePosixPath(value).parts if isinstance(value, str) else ()
    if (not parts or value.startswith(("/", "\\")) or ".." in parts or "\\" in value
            or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value)):
        raise ValueError(f"{value!r} is not a relative path inside the workspace")
    return value


def inside(base: Path, rel: str) -> Path:
    """``base / rel`` resolved, when it stays inside ``base`` (symlinks followed); else ValueError."""
    root = base.resolve()
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        raise ValueError(f"{rel!r} leaves {base}")
    return target
