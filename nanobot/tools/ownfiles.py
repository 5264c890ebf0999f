"""nanobot's own bookkeeping files among the user's: what ``list_dir`` leaves out of a listing.

A listing of the workspace is read as the user's files; the lock sidecars every nanobot writer takes
(``base/filelock.py``: ``.NAME.lock`` beside NAME), the temp files of an interrupted atomic write
(``base/atomic.py``: ``.NAME.*.tmp``) and the workspace's databases (``nanobot.db``: cron and tasks,
``memory.db``: the memory index, each with SQLite's ``-wal``/``-shm``/``-journal``) are not. They are
left out of the listing only; reading, running a command (``ls``) or the protections see them as ever.
"""

from __future__ import annotations

import re
from pathlib import Path

DATABASES = ("nanobot.db", "memory.db")  # tools/dbtool.py, memory/service.py DB_NAME: the workspace's top
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
OWN_LOCKS = (".chat.json.lock", ".ledger.lock", ".meta.lock")  # chats/store, vault/apply, coding/store
_TEMP = re.compile(r"^\.(.+)\.[A-Za-z0-9_]{6,}\.tmp$")  # tempfile.mkstemp(prefix=".NAME.", suffix=".tmp")


def bookkeeping(path: Path, workspace: Path) -> bool:
    """Whether ``path`` is one of nanobot's own files (a lock sidecar, an atomic write's temp file, a
    workspace database) rather than the user's."""
    name = path.name
    if name.startswith(".") and name.endswith(".lock") and len(name) > 6:
        return name in OWN_LOCKS or (path.parent / name[1:-5]).exists()  # a sidecar beside its file
    if (m := _TEMP.match(name)) and (path.parent / m.group(1)).exists():
        return True
    try:
        top = path.parent.resolve() == workspace.resolve()
    except OSError:
        return False
    return top and any(name == db + s for db in DATABASES for s in SQLITE_SUFFIXES)
