"""Reading a file nanobot did not necessarily write: a regular file, or a clear error, never a hang.

``open()`` on a FIFO blocks until someone writes to it; a directory, a device or a socket where a
ledger, a config or a job file should be makes reads fail in odd ways or never return. Every file
nanobot reads goes through ``read_regular``: it opens with ``O_NONBLOCK`` (a FIFO opens at once),
checks with ``fstat`` that it is a regular file, and reads at most ``limit`` bytes (what enters the
prompt is bounded at read time), so a 10 MB file costs what the caller asked for.

>>> import tempfile, os; d = tempfile.mkdtemp(); os.mkfifo(f"{d}/ledger.jsonl")
>>> try:
...     read_regular(f"{d}/ledger.jsonl")
... except NotRegularFile as e:
...     print(e.strerror)
is a FIFO, not a regular file (replace it with a regular file)
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


class NotRegularFile(OSError):
    """A FIFO, device, socket or directory where a file was expected (an OSError: callers that
    handle a missing or unreadable file handle this one the same way)."""

    def __str__(self) -> str:
        return f"{self.filename} {self.strerror}"


def check_regular(fd: int, path) -> os.stat_result:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a plain file")
        code = errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL
        raise NotRegularFile(code, f"is {kind}, not a regular file (replace it with a regular file)",
                             os.fspath(path))
    return st


def open_regular(path) -> int:
    """A read-only fd on ``path`` once it is known to be a regular file (the caller closes it)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        check_regular(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` (at most ``limit``). FileNotFoundError as usual; NotRegularFile for
    anything but a regular file."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb", closefd=True) as f:
        return f.read() if limit is None else f.read(limit)


def regular_text(path, limit: int | None = None) -> str:
    """``read_regular`` decoded as UTF-8 with U+FFFD for bad bytes (a cut multi-byte tail too)."""
    return read_regular(path, limit).decode("utf-8", errors="replace")


def open_append(path):
    """A binary append handle on ``path`` (created 0644 if missing) once it is known to be a regular
    file: a FIFO with no reader fails at once (ENXIO) instead of blocking, a directory says so."""
    import fcntl

    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                 0o644)
    try:
        check_regular(fd, path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "ab")


def tail_lines(path, n: int, block: int = 64 * 1024) -> list[str]:
    """The last ``n`` lines of a log, reading only its last ``block`` bytes."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - block))
        return f.read().decode("utf-8", errors="replace").splitlines()[-n:]
