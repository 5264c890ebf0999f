"""One copy per NANOBOT_HOME: an fcntl lock on ``$NANOBOT_HOME/<name>.lock`` holding the owner's pid.

The kernel drops the lock when the process dies (even on SIGKILL), so a stale file never blocks.
Usage: ``lock = acquire(settings.home, "daemon")`` and keep ``lock`` referenced while the work runs.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from nanobot.base.errors import NanobotError
from nanobot.base.regular import open_regular, open_write


class AlreadyRunning(NanobotError):
    pass


def acquire(home: Path, name: str):
    """Take the lock at once or raise ``AlreadyRunning`` naming the pid that holds it; keep the
    returned file open for as long as the lock must hold (closing it lets go)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / f"{name}.lock"
    f = os.fdopen(open_write(path, os.O_RDWR | os.O_CREAT), "r+")  # held open for the process lifetime
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        pid = f.read().strip() or "?"
        f.close()
        raise AlreadyRunning(f"nanobot {name} already runs for {home} (pid {pid}); stop it first "
                             f"(kill {pid})") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def holder(home: Path, name: str) -> int | None:
    """The pid holding ``name``'s lock now, or None when nobody does (reads, never takes it)."""
    path = home / f"{name}.lock"
    try:
        f = os.fdopen(open_regular(path), "r")  # closed below
    except OSError:
        return None
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = f.read().strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(f, fcntl.LOCK_UN)
        return None
