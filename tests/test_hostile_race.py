"""A folder swapped for a symlink while nanobot writes never sends a write outside the root (issue 76,
class 10).

A thread swaps a folder inside the workspace with a symlink to a folder outside, atomically and over
and over (``renameat2(RENAME_EXCHANGE)``, what an attacker racing a check would use), while write_file
and ``atomic_write`` write into that folder. The check (``resolve_in_roots``) and the write are apart in
time; the write opens every folder below the root with ``O_NOFOLLOW`` through directory fds
(``base/beneath.py``), so each write lands inside or fails with a clear error, and nothing appears
outside.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from pathlib import Path

import pytest

from nanobot.base.atomic import atomic_write
from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.files import WriteFile

_LIBC = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
SECONDS = 1.5  # of racing per test: several hundred writes


def exchange(a: Path, b: Path) -> None:
    """Swap the names ``a`` and ``b`` in one step (Linux ``renameat2``)."""
    if _LIBC.renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(a))


pytestmark = pytest.mark.skipif(not hasattr(_LIBC, "renameat2"), reason="needs Linux renameat2")


def racing(folder: Path, outside: Path, write) -> tuple[int, int]:
    """Run ``write(i)`` for SECONDS while ``folder`` and a link to ``outside`` swap names; (written, failed)."""
    link = folder.with_name("link")
    link.symlink_to(outside, target_is_directory=True)
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            exchange(folder, link)
            time.sleep(0.0002)
            exchange(folder, link)
            time.sleep(0.0002)

    swapper = threading.Thread(target=swap)
    swapper.start()
    written = failed = i = 0
    end = time.monotonic() + SECONDS
    try:
        while time.monotonic() < end:
            i += 1
            try:
                write(i)
                written += 1
            except (ToolError, OSError):
                failed += 1
    finally:
        stop.set()
        swapper.join()
    return written, failed


@pytest.fixture
def ctx(home):
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


def test_write_file_racing_a_link_swap_writes_nothing_outside(ctx, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (ctx.workspace / "sub").mkdir()
    written, failed = racing(ctx.workspace / "sub", outside, lambda i: WriteFile().run(
        WriteFile.Args(path=f"sub/d{i % 3}/f{i}.txt", content="x"), ctx))
    assert sorted(p.name for p in outside.rglob("*")) == []
    assert written > 20 and written + failed > 100  # the race ran, and writes got through


def test_atomic_write_below_a_root_racing_a_link_swap_writes_nothing_outside(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a").mkdir(parents=True)
    outside.mkdir()
    written, failed = racing(root / "a", outside, lambda i: atomic_write(root / "a" / "b" / f"f{i}", "x", root=root))
    assert sorted(p.name for p in outside.rglob("*")) == []
    assert written > 20 and written + failed > 100


def test_a_link_below_the_root_is_refused_with_a_clear_error(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a").symlink_to(outside)
    with pytest.raises(OSError, match="symbolic link"):
        atomic_write(root / "a" / "f.txt", "x", root=root)
    assert list(outside.iterdir()) == []
    atomic_write(root / "new" / "deeper" / "f.txt", "x", root=root)  # missing folders are made
    assert (root / "new" / "deeper" / "f.txt").read_text() == "x"
