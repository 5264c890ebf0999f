"""The workspace database: one SQLite file with sqlite-vec loaded, WAL mode and a busy timeout.

Many Pythons (pyenv, macOS system Python, this project's CI) ship a ``sqlite3`` that cannot load
extensions; then we use ``sqlean`` (package sqlean-py), a drop-in sqlite3 that can, or
``pysqlite3`` (pysqlite3-binary). Everything else in nanobot gets its connection from ``connect``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import ModuleType

from nanobot.errors import MissingDependency, WorkspaceError

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
        raise WorkspaceError(f"cannot open database {path}: {e}; move the file aside and nanobot will rebuild it") from None
    if vec:
        try:
            import sqlite_vec
        except ImportError:
            raise MissingDependency("sqlite-vec is not installed; run: pip install sqlite-vec") from None
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    return conn
