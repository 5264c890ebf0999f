"""Folders opened below a root through directory file descriptors, never by path twice.

A path checked to be inside a root and then opened by name again is a race: swap a folder on it for a
symlink between the check and the write, and the write follows the link out of the root.
``open_below(root, names)`` opens ``root`` once, then each folder in ``names`` with
``os.open(name, O_DIRECTORY | O_NOFOLLOW, dir_fd=parent)``: a name that is (or has just become) a
link fails with ``LinkOnPath`` instead of being followed, and from then on the fd is the folder that
was opened, whatever happens to the names. ``create=True`` makes a missing folder on the way
(``os.mkdir(name, dir_fd=parent)``, which never follows a link either).

>>> import os, tempfile; root = tempfile.mkdtemp(); os.symlink("/etc", f"{root}/conf")
>>> try:
...     open_below(root, ["conf"])
... except LinkOnPath as e:
...     print(e.strerror)
the folder 'conf' on the path is a symbolic link; nanobot does not write through a linked folder below the root
"""

from __future__ import annotations

import errno
import os
import stat

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC


class LinkOnPath(OSError):
    """A folder below the root is a symlink (or stopped being a folder) while nanobot opened it."""


def open_root(root: str | os.PathLike) -> int:
    """An fd on the folder ``root`` (its own links followed: the root is what the user set)."""
    return os.open(root, _DIR)


def open_below(root: str | os.PathLike, names: list[str], create: bool = False) -> int:
    """An fd on ``root/names[0]/.../names[-1]``, each name opened below the last one's fd without
    following a link (the caller closes it). FileNotFoundError for a missing folder (without
    ``create``); LinkOnPath for a link or a non-folder on the way."""
    fd = open_root(root)
    try:
        for name in names:
            if name in ("", ".", "..") or os.sep in name:
                raise ValueError(f"{name!r} is not one folder name")
            nxt = _open_one(fd, name, create)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_one(fd: int, name: str, create: bool) -> int:
    try:
        return os.open(name, _DIR | os.O_NOFOLLOW, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
        try:
            os.mkdir(name, 0o777, dir_fd=fd)
        except FileExistsError:
            pass  # made meanwhile (by another writer, or as a link: the open below says which)
        return _open_one(fd, name, False)
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise
        try:
            link = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
        except OSError:
            link = True
        what = ("is a symbolic link; nanobot does not write through a linked folder below the root" if link
                else "is not a folder")
        raise LinkOnPath(e.errno, f"the folder '{name}' on the path {what}", name) from None
