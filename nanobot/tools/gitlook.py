"""What git knows of a file the message names, as the turn's first look: its uncommitted changes
(``git diff``) or its history (``git log``), where a read would show only the file as it is now.

"What did I change in lamp.py?" and "which commit added budget.csv?" both name a file that is there, so
the facts would read it; neither is answered by its text. Each look needs the facts (``exec`` runs the
git command unasked; the file is in a work tree, with uncommitted changes for a diff, with commits for
a history) and the model's own classifier (``loop.judge``: "diff", "history") sure, and the change
classifier not sure of a change ("Añade a lamp.py una función ..." is the model's own call). The
command is written here, not by the model, which picks another git command for it.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nanobot.base.gitsafe import run_git
from nanobot.core.features import Agent

# the history look: the file's newest commits, each with its date, author, subject and what it changed
# in the file (the tool's output cap shortens a long one)
HISTORY = ("log", "-n", "3", "--date=short", "--format=commit %h, %ad, %an: %s", "-p", "--")


def diffed(agent: Agent, settings: Any, paths: list[str], change: Callable[[], bool | None]) -> Path | None:
    """The file of ``paths`` (in the roots) whose uncommitted changes the message asks for: ``git
    diff`` runs unasked, the file has such changes, the model's diff classifier says yes and its
    change classifier (``change``, asked only when the facts hold) is not sure of a change."""
    from nanobot.tools.repofacts import uncommitted

    if "git diff" not in _unasked(settings):
        return None
    changed = next((f for f in _files(settings, paths) if uncommitted(f)), None)
    return changed if changed is not None and change() is not True and agent.judge.sure(agent, "diff") is True else None


def historied(agent: Agent, settings: Any, paths: list[str], change: Callable[[], bool | None]) -> Path | None:
    """The file of ``paths`` whose git history the message asks for: ``git log`` runs unasked, the file
    has commits, the model's history classifier says yes and its change classifier is not sure of a
    change."""
    if "git log" not in _unasked(settings):
        return None
    kept = next((f for f in _files(settings, paths) if _committed(f)), None)
    return kept if kept is not None and change() is not True and agent.judge.sure(agent, "history") is True else None


def look_args(agent: Agent, change: Callable[[], bool | None]) -> dict | None:
    """``exec``'s arguments for the look ``diffed`` or ``historied`` chose, in the file's work tree;
    None when neither did."""
    from nanobot.tools.named import named, roots_of
    from nanobot.tools.repofacts import top_of

    said, settings = agent.provenance.said, agent.settings
    if not said or settings is None:
        return None
    found = [n.path for n in named(said[-1], roots_of(settings)) if n.kind == "file"]
    if not found:
        return None
    words, path = ["diff", "--"], diffed(agent, settings, found, change)
    if path is None:
        words, path = list(HISTORY), historied(agent, settings, found, change)
    top = top_of(path.parent) if path is not None else None
    if path is None or top is None:
        return None
    return {"command": shlex.join(["git", *words, str(path.relative_to(top))]), "cwd": str(top)}


def _unasked(settings: Any) -> list[str]:
    from nanobot.tools.gitexec import unasked

    return unasked(settings.tools)


def _files(settings: Any, paths: list[str]) -> list[Path]:
    from nanobot.tools.named import roots_of

    return [r / p for p in paths for r in roots_of(settings) if (r / p).is_file()]


def _committed(path: Path, timeout: float = 2.0) -> bool:
    """Whether git has a commit of ``path`` (a file of a work tree)."""
    from nanobot.tools.repofacts import top_of

    top = top_of(path.parent)
    if top is None:
        return False
    try:
        proc = run_git(top, "log", "-1", "--format=%h", "--", str(path.relative_to(top)), timeout=timeout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())
