"""The one door for opening files: a regular file, or a clear error -- never a hang, never a link.

``open()`` on a FIFO blocks until someone writes to it; a directory, a device or a socket where a
ledger, a config or a job file should be makes reads fail in odd ways or never return; a symlink
where a log should be makes an append land in whatever file it points at (outside the home).
Every file nanobot reads goes through ``read_regular``/``open_regular``: it opens with
``O_NONBLOCK`` (a FIFO opens at once), checks with ``fstat`` that it is a regular file, and reads at
most ``limit`` bytes (what enters the prompt is bounded at read time). Every file nanobot appends
to or creates goes through ``open_write`` (``open_append``, ``atomic.append_line``,
``create_new``): ``O_NOFOLLOW`` as well, so a symlink as the last component is refused (ELOOP ->
``NotRegularFile``); ``atomic.atomic_write`` refuses to rename over a symlink.
``tests/test_runtime_files.py`` walks the code for raw ``open(``/``read_text(``/``write_text(``.

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

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
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
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC)
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


def open_write(path, flags: int, mode: int = 0o644) -> int:
    """A blocking fd (``os.open(path, flags)``) on ``path`` once it is known to be a regular file that
    is not a symlink: a FIFO with no reader fails at once (ENXIO), a link or a directory says so."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise NotRegularFile(errno.ELOOP, "is a symbolic link; nanobot does not write through "
                                 "links (replace it with a regular file)", os.fspath(path)) from None
        if e.errno == errno.ENXIO:
            raise NotRegularFile(errno.ENXIO, "is a FIFO, not a regular file (replace it with a "
                                 "regular file)", os.fspath(path)) from None
        raise
    try:
        check_regular(fd, path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_link(path) -> None:
    """NotRegularFile when ``path`` is a symlink (before a rename would replace it)."""
    if os.path.islink(path):
        raise NotRegularFile(errno.ELOOP, "is a symbolic link; nanobot does not write through or "
                             "replace links (replace it with a regular file)", os.fspath(path))


def open_append(path):
    """A binary append handle on ``path`` (created 0644 if missing): regular files only, no links."""
    return os.fdopen(open_write(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab")


def create_new(path, data: bytes) -> None:
    """Write ``data`` to a file that must not exist yet (a staging file), durably."""
    with os.fdopen(open_write(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def tail_lines(path, n: int, block: int = 64 * 1024) -> list[str]:
    """The last ``n`` lines of a log, reading only its last ``block`` bytes."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - block))
        return f.read().decode("utf-8", errors="replace").splitlines()[-n:]
