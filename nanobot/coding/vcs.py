"""The one small VCS interface a coding session needs, and the choice of backend per repository.

Both backends model jj's working-copy change: the session's *current change* is where edits land;
``new_change`` snapshots the working copy into it and starts a new empty change on top (a
checkpoint); ``describe`` rewrites only the description. Change ids survive rewrites (jj natively,
git through the ``Change-Id:`` trailer). ``open_vcs(path)`` picks jj when ``jj`` is on PATH and the
directory is a jj repo, else git; neither: a ``CodingError`` saying how to start one.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Protocol

from nanobot.coding.errors import CodingError

__all__ = ["VCS", "CodingError", "open_vcs"]


class VCS(Protocol):
    kind: str  # "git" | "jj"
    root: Path

    def start(self, description: str) -> str:
        """A new (empty) change on top of the working copy's change, described; its id."""

    def current(self) -> str | None:
        """The id of the working copy's change (None when it has none, e.g. a plain git commit)."""

    def new_change(self, description: str) -> str:
        """Checkpoint: snapshot the working copy into the current change, then a new empty change
        on top described by ``description``; returns the new id."""

    def describe(self, description: str, change_id: str | None = None) -> None:
        """Replace a change's description (default: the current change); nothing else changes."""

    def description(self, change_id: str) -> str:
        """A change's description (without any trailer)."""

    def parent(self, change_id: str) -> str | None:
        """The id of the change's first parent (None: a root, or a parent without an id)."""

    def exists(self, change_id: str) -> bool:
        """Whether the change is still visible (not abandoned, not rewritten away)."""

    def is_ancestor(self, ancestor: str, change_id: str) -> bool:
        """Whether ``ancestor`` is ``change_id`` or one of its ancestors."""

    def diff(self, change_id: str, stat: bool = False) -> str:
        """The change's diff against its parent (the working copy too, for the current change):
        ``--stat`` summary or git-format hunks."""

    def dirty(self) -> list[str]:
        """Paths with changes not yet in any change (git: uncommitted; jj: always []), decoded like
        ``os.fsdecode`` (a name that is not UTF-8 keeps its bytes as surrogates: ``shown`` prints it)."""


def open_vcs(path: Path) -> VCS:
    """The backend for the repository at (or above) ``path``."""
    from nanobot.coding.gitvcs import GitVCS
    from nanobot.coding.jjvcs import JjVCS

    path = Path(path).expanduser().resolve()
    if shutil.which("jj") and (root := JjVCS.find_root(path)) is not None:
        return JjVCS(root)
    if shutil.which("git") and (root := GitVCS.find_root(path)) is not None:
        return GitVCS(root)
    raise CodingError(f"{path} is not a git or jj repository; start one with `git init` "
                      "(or `jj git init`) there, or run nanobot session from inside one")
