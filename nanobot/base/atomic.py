"""Crash-safe file writes: every file the runtime owns goes through here.

``atomic_write`` writes a temp file in the same directory, fsyncs it, renames it over the target and
fsyncs the directory, so a reader sees either the old file or the new one, never a torn one.
The new file keeps the permission bits of the file it replaces (a 0755 script stays executable, a
0644 note stays readable by others); a new file gets the usual ``0666 & ~umask``.
The folder is opened once and everything after goes through its fd (``base/beneath.py``: the temp file
made with ``dir_fd``, ``os.replace`` with ``src_dir_fd``/``dst_dir_fd``); given the ``root`` a path was
checked to be inside (the file tools' roots), every folder below the root is opened without following a
link, so a folder swapped for a symlink after the check makes the write fail, never land outside.
``append_line`` appends one line to a log with a single ``write`` + fsync; readers skip a torn last line.
Neither writes through a symlink nor blocks on a FIFO (``regular.open_write``; a link as the target is refused).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from nanobot.base.beneath import open_below
from nanobot.base.regular import NotRegularFile, open_write

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def atomic_write(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8", *,
                 root: str | os.PathLike | None = None) -> None:
    """Replace ``path`` with ``data`` atomically. ``root``: a folder ``path`` is inside (lexically);
    the folders between them are opened (made where missing) without following links."""
    path = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        base, names = path.parent, []
    else:
        base = Path(os.path.abspath(root))
        names = list(Path(os.path.abspath(path.parent)).relative_to(base).parts)
    folder = open_below(base, names, create=True)
    try:
        _replace(folder, path.name, raw, path)
    finally:
        os.close(folder)


def _replace(folder: int, name: str, raw: bytes, path: Path) -> None:
    """``raw`` written to a temp file in ``folder`` (an fd) and renamed over ``name`` there."""
    try:
        old = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    if old is not None and stat.S_ISLNK(old.st_mode):  # the rename would replace the link; a runtime file is never one
        raise NotRegularFile(errno.ELOOP, "is a symbolic link; nanobot does not write through or "
                             "replace links (replace it with a regular file)", os.fspath(path))
    mode = old.st_mode & 0o7777 if old is not None else 0o666 & ~_umask()
    tmp, fd = _temp_in(folder, name)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=folder)
        except FileNotFoundError:
            pass
        raise
    try:
        os.fsync(folder)
    except OSError:
        pass


def _temp_in(folder: int, name: str) -> tuple[str, int]:
    """A new temp file ``.NAME.XXXXXXXX.tmp`` in ``folder`` (``tools/ownfiles.py`` knows the shape)."""
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC, 0o600,
                                dir_fd=folder)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", name)


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
