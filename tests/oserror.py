"""A read-only home or a full disk without a mount namespace: ``python -m nanobot`` with the file
layer of its ``$NANOBOT_HOME`` failing as the kernel would (``tests/test_faults.py`` also runs the
real thing under ``unshare -m`` where that is permitted; this path runs everywhere).

``NANOBOT_TEST_OSERROR=EROFS``: opening a file there for writing, creating, renaming or removing
anything fails with EROFS (reads work). ``=ENOSPC``: files open, every write to one fails with ENOSPC.
SQLite opens its files in C, out of reach here: run with memory off. Use ``[*CLI, "chat"]`` (cwd =
the repository root).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import sys

CLI = [sys.executable, "-c", "from tests.oserror import cli; cli()"]
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _fail(code: int, path) -> OSError:
    named = isinstance(path, (str, bytes, os.PathLike))  # os.fdopen's files are named by their fd
    return OSError(code, os.strerror(code), os.fsdecode(path) if named else None)


class _Full:
    """A writable file on a full disk: every write fails (what the kernel says then)."""

    def __init__(self, f, path):
        self._f, self._path = f, path

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def __iter__(self):
        return iter(self._f)

    def write(self, data):
        raise _fail(errno.ENOSPC, self._path)

    def writelines(self, lines):
        raise _fail(errno.ENOSPC, self._path)


def install(code: int, home: str) -> None:
    root = os.path.realpath(home)
    real_open, real_os_open, real_write = builtins.open, os.open, os.write
    real = {name: getattr(os, name) for name in ("mkdir", "replace", "rename", "unlink", "rmdir")}
    doomed: set[int] = set()

    def inside(path) -> bool:
        if isinstance(path, int):
            return False
        p = os.path.realpath(os.fsdecode(path))
        return p == root or p.startswith(root + os.sep)

    def opened(file, mode="r", *args, **kw):
        writing = any(c in mode for c in "wax+")
        if writing and code == errno.EROFS and inside(file):
            raise _fail(code, file)
        f = real_open(file, mode, *args, **kw)
        if isinstance(file, int) and file in doomed:  # os.fdopen: the file object owns the fd now
            doomed.discard(file)
            return _Full(f, file)
        if writing and code == errno.ENOSPC and inside(file):
            return _Full(f, file)
        return f

    def os_open(path, flags, *args, **kw):
        if flags & _WRITE_FLAGS and inside(path):
            if code == errno.EROFS:
                raise _fail(code, path)
            fd = real_os_open(path, flags, *args, **kw)
            doomed.add(fd)
            return fd
        return real_os_open(path, flags, *args, **kw)

    def os_write(fd, data):
        if fd in doomed:
            raise _fail(errno.ENOSPC, None)
        return real_write(fd, data)

    def guarded(name):
        def call(path, *args, **kw):
            if code == errno.EROFS and inside(path):
                if name == "mkdir" and os.path.exists(path):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(path))
                raise _fail(code, path)
            return real[name](path, *args, **kw)
        return call

    builtins.open = io.open = opened
    os.open, os.write = os_open, os_write
    for name in real:
        setattr(os, name, guarded(name))


def cli() -> None:
    """``python -m nanobot`` with the failure ``NANOBOT_TEST_OSERROR`` names under $NANOBOT_HOME."""
    install(getattr(errno, os.environ["NANOBOT_TEST_OSERROR"]), os.environ["NANOBOT_HOME"])
    sys.argv = ["nanobot", *sys.argv[1:]]
    from nanobot.cli import main

    main()
