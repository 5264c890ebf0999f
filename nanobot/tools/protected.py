"""Places the file tools may read but never write: what would let a tool call run code later. Refused
for write_file and edit_file (on the fully resolved path):

- version-control metadata at any depth: a ``.git``, ``.jj``, ``.hg`` or ``.svn`` component (a
  ``.git`` *file* too), and any folder git would take for a repository (``HEAD`` plus ``objects`` and
  ``refs``, or a ``commondir``/``gitdir`` file, counting what the write itself would add: where a
  worktree's ``.git`` file points, a separate git dir). Its config and hooks name programs ``git status`` runs.
- nanobot's own home outside the workspace (``config.toml``, state, sessions, caches, the KV cache
  nanobot loads into the model), and the workspace's ``nanobot.db`` (cron and task state, including
  SQLite's ``-wal``/``-journal`` companions).
- git's user config (``~/.gitconfig``, ``~/.config/git/``), which every git command reads.

Workspace text (SOUL.md, USER.md, MEMORY.md, skills/, knowledge/) stays writable: it is prompt
material the user asks the model to edit, never executed.

Asked first, whatever the call policy decided (``autorun.py``): a file something else runs with nobody
starting it (a ``.pth``, a shell rc file, git hooks, ``.envrc``, CI workflows, cron and systemd, ...),
checked on the path as the model gave it and as resolved (a link to ``.bashrc`` is ``.bashrc``). The
user says yes or no (``ToolContext.confirm``); where nobody can be asked the write is refused.
"""

from __future__ import annotations

from pathlib import Path

from nanobot.base.errors import ToolError
from nanobot.base.safe_text import printable
from nanobot.tools.autorun import runs_on_its_own
from nanobot.tools.base import ToolContext

VCS_DIRS = {".git", ".jj", ".hg", ".svn"}
STATE_FILES = ("nanobot.db",)  # in the workspace, with any -wal/-shm/-journal suffix


def looks_like_git_dir(folder: Path, writing: Path | None = None) -> bool:
    """Roughly git's own test (setup.c is_git_directory): ``HEAD`` with ``objects`` or ``refs``, or a
    worktree's ``commondir``/``gitdir``. A name counts as present when ``writing`` would create it,
    so the write that would complete a repository folder is the one refused."""
    def has(name: str) -> bool:
        return (folder / name).exists() or (writing is not None and _inside(writing, folder / name))
    return has("HEAD") and (has("objects") or has("refs") or has("commondir") or has("gitdir"))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def why_protected(real: Path, ctx: ToolContext) -> str | None:
    """The reason ``real`` (a resolved path) must not be written, or None."""
    vcs = VCS_DIRS.intersection(p.lower() for p in real.parts)
    if vcs:
        return f"it is inside version-control metadata ({sorted(vcs)[0]})"
    for folder in real.parents:
        if looks_like_git_dir(folder, real):
            return f"{folder} is a git repository's metadata folder"
    home, workspace = ctx.settings.home.resolve(), ctx.workspace.resolve()
    if _inside(real, home) and not _inside(real, workspace):
        return "it is nanobot's own configuration or state"
    if _inside(real, workspace / "audit"):
        return "it is the knowledge vault's append-only audit ledger (knowledge_apply writes it)"
    if real.parent == workspace and real.name.startswith(STATE_FILES):
        return "it is nanobot's cron and task database"
    user = Path.home().resolve()
    if real == user / ".gitconfig" or _inside(real, user / ".config" / "git"):
        return "it is git's user configuration"
    return None


def check_writable(real: Path, raw: str, ctx: ToolContext) -> None:
    """ToolError when ``real`` is a protected path (``raw`` is what the model asked for), or a file that
    runs on its own and the user, asked, does not say yes (or cannot be asked)."""
    why = why_protected(real, ctx)
    if why:
        raise ToolError(f"writing '{raw}' is refused: {why}; the file tools never write there "
                        "(ask the user to make this change)")
    why = runs_on_its_own(real) or runs_on_its_own(Path(raw.strip()).expanduser())
    if not why:
        return
    shown = printable(raw, keep="")
    if ctx.confirm is None:
        raise ToolError(f"writing '{shown}' is refused: {why}, so what is written there runs later by itself; "
                        "such a file is changed only with the user's yes, and this session cannot ask "
                        "(tell the user the change to make)")
    if not ctx.confirm(f"Write `{shown}`? What is written there runs later by itself ({why})"):
        raise ToolError(f"the user declined writing '{shown}' ({why}); nothing was changed")
