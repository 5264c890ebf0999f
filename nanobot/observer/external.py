"""External change detection: what changed in the workspace and project dirs while nanobot was away.

For each directory: ``git status --porcelain`` counts and the commits of the last 12 hours (``git log``
reads at most the ``LOG_CAP`` = 5 most recent; five read "5+ commits") when it is a git work tree and
git is installed (otherwise silently skipped), and the files modified since the last
session that nanobot did not write itself. Every git call has a timeout and the file walk has a
deadline and a file cap, so a huge repository cannot stall start-up. Git runs hardened
(``nanobot/base/gitsafe.py``): a repository's fsmonitor, hooks, pager or filter drivers never run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.base.gitsafe import run_git
from nanobot.base.safe_text import one_line

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", "observations"}
LOG_CAP = 5  # git log reads at most this many of the last 12 hours' commits (the most recent)
SKIP_SUFFIXES = (".tmp", ".db", ".sqlite", ".sqlite3", "-wal", "-shm", ".pyc")


class DirChanges(BaseModel):
    path: Path
    git: bool = False
    modified: int = 0  # tracked files changed (staged or not)
    untracked: int = 0
    commits_12h: int = 0
    changed_files: list[str] = Field(default_factory=list)  # modified since the last session
    partial: bool = False  # a timeout or the file cap cut the check short

    def line(self, label: str, detail: int = 2) -> str:
        """One line for CONTEXT.md's External section, or '' when nothing changed. ``detail`` 2 names
        up to three files by path, 1 by file name (and the folder by its last part), 0 counts only."""
        if detail < 2:
            label = Path(label).name or label
        label = one_line(label)
        bits = []
        if self.modified or self.untracked:
            bits.append(f"git: {self.modified} modified, {self.untracked} untracked")
        if self.commits_12h:
            n = f"{LOG_CAP}+" if self.commits_12h >= LOG_CAP else str(self.commits_12h)
            bits.append(f"{n} commit{'s' * (self.commits_12h != 1)} in the last 12 h")
        if self.changed_files:
            shown = [one_line(f if detail == 2 else Path(f).name) for f in self.changed_files[:3]]
            names = f" ({', '.join(shown)}{' …' if len(self.changed_files) > 3 else ''})" if detail else ""
            bits.append(f"{len(self.changed_files)} file(s) changed since the last session{names}")
        if not bits:
            return ""
        return f"{label}: " + "; ".join(bits) + (" (partial)" if self.partial else "")


def git_changes(path: Path, now: datetime, timeout: float) -> DirChanges:
    """Porcelain counts and 12-hour commit count; ``git=False`` when not a repo or no git."""
    out = DirChanges(path=path)
    if shutil.which("git") is None or not path.is_dir():
        return out
    status = _git(path, timeout, "status", "--porcelain", "--untracked-files=all", "--", ".")
    if status is None:
        return out
    out.git = True
    if status is _TIMEOUT:
        out.partial = True
        return out
    for line in status.splitlines():
        if line.startswith("??"):
            out.untracked += 1
        elif line.strip():
            out.modified += 1
    since = (now - timedelta(hours=12)).isoformat(timespec="seconds")
    log = _git(path, timeout, "log", f"--since={since}", f"--max-count={LOG_CAP}", "--format=%H", "--", ".")
    if log is _TIMEOUT:
        out.partial = True
    elif log:
        out.commits_12h = len(log.split())
    return out


def changed_since(root: Path, since: datetime, *, ignore: dict[str, int] | None = None,
                  deadline_s: float = 1.0, max_files: int = 5000) -> tuple[list[str], bool]:
    """Files under ``root`` modified after ``since`` (relative paths, newest first), skipping VCS
    and cache folders, dot-folders and ``ignore`` (relative path -> the mtime_ns nanobot wrote it
    with: such a file counts only if changed again after that). Returns (files, partial)."""
    ignore = ignore or {}
    cutoff = since.timestamp()
    stop = time.monotonic() + deadline_s
    found: list[tuple[float, str]] = []
    seen = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > max_files or time.monotonic() > stop:
                return _newest(found), True
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIP_DIRS and not entry.name.startswith("."):
                    stack.append(Path(entry.path))
                continue
            if entry.name.startswith(".") or entry.name.endswith(SKIP_SUFFIXES):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            rel = os.path.relpath(entry.path, root)
            if st.st_mtime > cutoff and ignore.get(rel) != st.st_mtime_ns:
                found.append((st.st_mtime, rel))
    return _newest(found), False


def detect(dirs: list[tuple[str, Path]], now: datetime, last_session: datetime | None, *,
           timeout: float, ignore: dict[str, int] | None = None) -> list[str]:
    """External-section lines for each (label, dir); nothing for dirs with no changes."""
    return [line for label, changes in detect_changes(dirs, now, last_session, timeout=timeout,
                                                      ignore=ignore) if (line := changes.line(label))]


def detect_changes(dirs: list[tuple[str, Path]], now: datetime, last_session: datetime | None, *,
                   timeout: float, ignore: dict[str, int] | None = None) -> list[tuple[str, DirChanges]]:
    """(label, changes) for each dir that exists; ``DirChanges.line`` renders them."""
    found = []
    for label, path in dirs:
        if not path.is_dir():
            continue
        changes = git_changes(path, now, timeout)
        if last_session is not None:
            files, partial = changed_since(path, last_session, deadline_s=timeout,
                                           ignore=ignore if label == "workspace" else None)
            changes.changed_files, changes.partial = files, changes.partial or partial
        found.append((label, changes))
    return found


def fit_line(changes: list[tuple[str, DirChanges]], room: int, count) -> str:
    """The "Changed outside" line within ``room`` tokens: paths shortened to names, then counts
    only, then as many folders as fit (it is never dropped for other Time lines).

    >>> c = [("~/code/app", DirChanges(path=Path("."), modified=2, changed_files=["src/a/b.py"]))]
    >>> fit_line(c, 100, lambda t: len(t.split()))
    'Changed outside: ~/code/app: git: 2 modified, 0 untracked; 1 file(s) changed since the last session (src/a/b.py)'
    >>> fit_line(c, 14, lambda t: len(t.split()))
    'Changed outside: app: git: 2 modified, 0 untracked; 1 file(s) changed since the last session'
    """
    def render(detail: int, n: int | None = None) -> str:
        parts = [line for label, ch in changes if (line := ch.line(label, detail))]
        more = f"; +{len(parts) - n} more" if n is not None and n < len(parts) else ""
        return ("Changed outside: " + "; ".join(parts[:n]) + more) if parts else ""

    for detail in (2, 1):
        if count(text := render(detail)) <= room:
            return text
    shown = sum(1 for label, ch in changes if ch.line(label, 0))
    for n in range(shown, 1, -1):
        if count(text := render(0, n)) <= room:
            return text
    return render(0, 1)


_TIMEOUT = object()


def _git(path: Path, timeout: float, *args: str):
    """stdout of a git command, None when it fails (not a repo), _TIMEOUT when it ran too long."""
    try:
        proc = run_git(path, *args, timeout=timeout)
    except subprocess.TimeoutExpired:
        return _TIMEOUT
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def _newest(found: list[tuple[float, str]]) -> list[str]:
    return [rel for _, rel in sorted(found, reverse=True)]
