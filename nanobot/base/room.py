"""Room on a file system for data nanobot can rebuild (the disk KV cache): such a file is written only
where it leaves ``RESERVE`` free, so a cache never takes the space the user's own files, sessions and
notes need. A write that would not leave it raises ``NoRoom``, one line naming the figures.

>>> import tempfile
>>> try: check(tempfile.gettempdir(), 2**60)
... except NoRoom as e: print(str(e).split("; ")[1])
the file takes 1099511627776.0 MiB and 64 MiB are kept free for your files
"""

from __future__ import annotations

import os
from pathlib import Path

RESERVE = 64 * 1024 * 1024  # bytes left free after a rebuildable file is written


class NoRoom(OSError):
    """A rebuildable file is not written: the file system would keep less than ``RESERVE`` free."""


def free_bytes(directory: str | os.PathLike) -> int | None:
    """Bytes an unprivileged writer may still use on ``directory``'s file system (the nearest folder
    that exists); None where the system cannot say."""
    path = Path(directory)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def check(directory: str | os.PathLike, size: int) -> None:
    """Raise ``NoRoom`` unless ``size`` bytes written under ``directory`` leave ``RESERVE`` free."""
    free = free_bytes(directory)
    if free is not None and free - size < RESERVE:
        mib = 1024 * 1024
        raise NoRoom(f"{free / mib:.1f} MiB free there; the file takes {size / mib:.1f} MiB and "
                     f"{RESERVE // mib} MiB are kept free for your files")
