"""Crash-safe file writes: every file the runtime owns goes through here.

``atomic_write`` writes a temp file in the same directory, fsyncs it, renames it over the target and
fsyncs the directory, so a reader sees either the old file or the new one, never a torn one.
The new file keeps the permission bits of the file it replaces (a 0755 script stays executable, a
0644 note stays readable by others); a new file gets the usual ``0666 & ~umask``.
``append_line`` appends one line to a log with a single ``write`` + fsync; readers skip a torn last line.
Neither writes through a symlink nor blocks on a FIFO (``regular.open_write``/``refuse_link``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from nanobot.base.regular import open_write, refuse_link


def atomic_write(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode(encoding) if isinstance(data, str) else data
    refuse_link(path)  # the rename would replace the link; a runtime file is never a link
    mode = _mode_of(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append ``line`` (a newline is added) durably. A torn previous line is terminated first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = open_write(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)  # no FIFO, device or symlink
    with os.fdopen(fd, "ab+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                data = b"\n" + data  # isolate a torn line left by a crash
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _mode_of(path: Path) -> int:
    """The permission bits to give the new file: the old file's, else what ``open`` would give."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for a moment, in every thread)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
