"""The inter-process lock every nanobot writer of a shared file takes: ``file_lock(path)``, an
exclusive ``fcntl.flock`` on a sidecar lock file (a user file's ``.NAME.lock``, a chat's, the vault
ledger's, a coding session's metadata, a model install). Closing the descriptor releases it, so a
killed process never leaves it held."""

from __future__ import annotations

import os
from pathlib import Path

from nanobot.base.regular import open_write


class file_lock:
    """An exclusive advisory lock held on ``path`` (fcntl where available; a no-op elsewhere)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd: int | None = None

    def __enter__(self) -> file_lock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = open_write(self.path, os.O_RDWR | os.O_CREAT)  # no FIFO or symlink as a lock
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None
