"""The workspace database: one SQLite file with sqlite-vec loaded, WAL mode and a busy timeout.

Many Pythons (pyenv, macOS system Python, this project's CI) ship a ``sqlite3`` that cannot load
extensions; then we use ``sqlean`` (package sqlean-py), a drop-in sqlite3 that can, or
``pysqlite3`` (pysqlite3-binary). Everything else in nanobot gets its connection from ``connect``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import ModuleType

from nanobot.base.errors import MissingDependency, WorkspaceError

BUSY_TIMEOUT_MS = 10_000


def sqlite_module() -> ModuleType:
    """A sqlite3-compatible module whose connections can load extensions."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    for name in ("sqlean", "pysqlite3"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        if hasattr(mod.Connection, "enable_load_extension"):
            return mod
    raise MissingDependency(
        "this Python's sqlite3 cannot load extensions (needed for sqlite-vec); run: pip install sqlean-py"
    )


_DAMAGE = ("malformed", "not a database", "vtable constructor failed", "corrupt")


class DatabaseDamaged(WorkspaceError):
    """The SQLite file itself is damaged (not the disk or its permissions)."""


def is_damaged(e: BaseException) -> bool:
    """Is ``e`` SQLite reporting a damaged file (rather than a locked, full or read-only one)?"""
    if isinstance(e, DatabaseDamaged):
        return True
    return type(e).__name__ == "DatabaseError" and any(k in str(e).lower() for k in _DAMAGE)


def explain(e: BaseException, path: Path | str, *, derived: bool = True) -> WorkspaceError:
    """A one-line error for a failed database operation that names the real cause and the fix
    (``derived``: the file holds only what nanobot can rebuild, like the memory index)."""
    msg = str(e).lower()
    if "readonly" in msg or "read-only" in msg or "unable to open" in msg:
        ro = _read_only(Path(path).parent)
        why = "the file system is read-only" if ro else "nanobot may not write it (permissions)"
        return WorkspaceError(f"cannot write database {path}: {why}; make it writable or set NANOBOT_HOME to a writable folder")
    if "disk is full" in msg or _disk_full(Path(path).parent):
        return WorkspaceError(f"cannot write database {path}: the disk is full; free some space and try again")
    if is_damaged(e):
        fix = ("it holds derived data only: delete it and nanobot rebuilds it" if derived else
               "restore it from a backup, or move it aside to start with an empty one")
        return DatabaseDamaged(f"database {path} is damaged ({e}); {fix}")
    return WorkspaceError(f"cannot use database {path}: {e}")


def _disk_full(directory: Path) -> bool:
    import os

    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False


def _read_only(directory: Path) -> bool:
    import os

    try:
        return bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def connect(path: Path | str, *, vec: bool = True):
    """Open ``path`` (created if missing) with WAL, a busy timeout and sqlite-vec loaded."""
    mod = sqlite_module()
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = mod.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except mod.DatabaseError as e:
        raise explain(e, path) from None
    if vec:
        try:
            import sqlite_vec
        except ImportError:
            raise MissingDependency("sqlite-vec is not installed; run: pip install sqlite-vec") from None
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    return conn
