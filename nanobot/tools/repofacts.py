"""The repository the file tools work in, as facts for the prompt: the branch, the last commit's
subject and age, how many commits the branch has, how many files are changed and untracked -- what
"which branch am I on?", "what was the last commit?", "how many commits so far?" and "is anything
uncommitted?" ask, answered without a tool.

The repositories are those of the folder relative paths start in (``tools.paths.base_dir``: the
start folder when it is inside a root, else the workspace) and of each root, at most ``MAX_REPOS``.
Git runs hardened (``base.gitsafe``) with a timeout. ``stamp`` is a few ``stat`` calls (HEAD, the
index, the branch's ref): the facts are read again only when it changes (``tools.feature``).

>>> RepoFacts(label="shop", branch="feature/x", subject="Add tax", age="2 h", changed=3, untracked=1, commits=5).line()
'Git shop: branch feature/x (5 commits); last commit "Add tax" 2 h ago; uncommitted: 3 changed, 1 untracked'
>>> RepoFacts(label="shop", branch="c0de", detached=True, subject="Add tax", commits=5).line()
'Git shop: HEAD detached at c0de (5 commits); last commit "Add tax"; nothing uncommitted'
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from pydantic import BaseModel

from nanobot.base.gitsafe import run_git
from nanobot.base.regular import read_regular
from nanobot.base.safe_text import one_line

MAX_REPOS = 2
SUBJECT_CHARS = 48
MAX_NAMES = 3  # uncommitted files named, at most; more: counted


class RepoFacts(BaseModel):
    label: str
    branch: str
    subject: str = ""
    age: str = ""
    changed: int = 0
    untracked: int = 0
    names: list[str] = []  # the uncommitted files as "path (changed)" / "path (untracked)", when few
    commits: int = 1  # on the branch (HEAD's history); 0: none yet
    counted: bool = True  # the count is shown (``fitted`` drops it with the age)
    detached: bool = False  # HEAD is a commit, not a branch: ``branch`` holds its short hash

    def line(self) -> str:
        last = (f'last commit "{self.subject}"' + (f" {self.age} ago" if self.age else "") if self.subject
                else "no commits yet" if self.commits == 0 else "")
        state = ("uncommitted: " + (", ".join(self.names) if self.names else
                                    f"{self.changed} changed, {self.untracked} untracked")
                 if self.changed or self.untracked else "nothing uncommitted")
        count = f" ({self.commits} commit{'s' if self.commits != 1 else ''})" if self.commits and self.counted else ""
        head = f"HEAD detached at {self.branch}" if self.detached else f"branch {self.branch}"
        return "; ".join(x for x in (f"Git {self.label}: {head}{count}", last, state) if x)


def fitted(facts: list[RepoFacts], budget: int, count) -> str:
    """The facts' lines within ``budget`` tokens (``count``): the commits' ages go first, then the
    uncommitted files' names give way to their counts, then the subjects are cut to about 24 characters
    at a word, then the branch's number of commits goes, then the subjects; the branch and what is
    uncommitted stay. Counts are true as they stand (a question for the names looks them up), while a
    cut subject was copied as the last commit's message."""
    def cut(subject: str) -> str:
        return _cut(subject.removesuffix("…"), 24) if len(subject) > 24 else subject

    steps = [lambda f: f, lambda f: f.model_copy(update={"age": ""}),
             lambda f: f.model_copy(update={"age": "", "names": []}),
             lambda f: f.model_copy(update={"age": "", "subject": cut(f.subject), "names": []}),
             lambda f: f.model_copy(update={"age": "", "subject": cut(f.subject), "names": [], "counted": False}),
             lambda f: f.model_copy(update={"age": "", "subject": "", "names": [], "counted": False})]
    text = ""
    for step in steps:
        text = "\n".join(step(f).line() for f in facts)
        if count(text) <= budget:
            break
    return text


def top_of(path: Path) -> Path | None:
    """The work tree holding ``path`` (the nearest folder with a ``.git``), or None."""
    for folder in [path, *path.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def uncommitted(path: Path, timeout: float = 2.0) -> bool:
    """Whether ``path`` is a tracked file of a work tree with changes not committed yet (what
    ``git diff`` shows; an untracked file has none to show)."""
    top = top_of(path.parent)
    if top is None:
        return False
    try:
        proc = run_git(top, "status", "--porcelain", "--untracked-files=no", "--", str(path.relative_to(top)),
                       timeout=timeout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


def stamp(top: Path) -> tuple:
    """What changes when a commit, a checkout or a staging happens: HEAD, the index, the branch's ref."""
    git = top / ".git"
    files = [git / "HEAD", git / "index", git / "packed-refs"]
    try:
        head = read_regular(git / "HEAD").decode("utf-8", "replace").strip()
        if head.startswith("ref: "):
            files.append(git / head[5:])
    except (OSError, ValueError):
        pass
    return tuple(f.stat().st_mtime_ns if f.exists() else 0 for f in files)


def _cut(text: str, chars: int) -> str:
    """``text`` in at most ``chars`` characters, cut at a word and marked "…" where it is cut: a cut
    subject must not read as the whole one."""
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + "…"


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return "under a minute"


def _stdout(top: Path, args: tuple[str, ...], timeout: float) -> str | None:
    """What hardened git prints for ``args`` in ``top``; None when it fails, times out or is missing."""
    try:
        proc = run_git(top, *args, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def read(top: Path, timeout: float = 2.0, names: bool = True) -> RepoFacts | None:
    """The facts of the work tree at ``top``; None when git fails or is missing. ``names``: with the
    uncommitted files' names (when few), else their counts only."""
    def git(*args: str) -> str | None:
        return _stdout(top, args, timeout)

    branch = git("symbolic-ref", "--short", "-q", "HEAD")
    detached = branch is None  # a checked-out commit or tag: no branch to name
    if detached:
        branch = git("rev-parse", "--short", "HEAD")
    if branch is None:
        return None
    facts = RepoFacts(label=one_line(top.name), branch=one_line(branch.strip()) or "(unknown)", detached=detached)
    facts.commits = 0
    if (log := git("log", "-1", "--format=%ct%x00%s")) and "\0" in log:
        facts.commits = int(n) if (n := (git("rev-list", "--count", "HEAD") or "").strip()).isdigit() else 1
        when, subject = log.strip().split("\0", 1)
        facts.subject = _cut(one_line(subject), SUBJECT_CHARS)
        facts.age = _age(max(0.0, time.time() - int(when or 0)))
    _uncommitted(facts, git("status", "--porcelain", "--untracked-files=normal") or "")
    if not names:
        facts.names = []
    return facts


def _uncommitted(facts: RepoFacts, porcelain: str) -> None:
    names = []
    for row in porcelain.splitlines():
        if row.startswith("??"):
            facts.untracked += 1
            names.append(f"{one_line(row[3:])} (untracked)")
        elif row.strip():
            facts.changed += 1
            names.append(f"{one_line(row[3:])} (changed)")
    facts.names = names if len(names) <= MAX_NAMES else []


def repositories(folders: list[Path]) -> list[Path]:
    """The distinct work trees holding ``folders``, in order, at most ``MAX_REPOS``."""
    tops = [t for f in folders if (t := top_of(f)) is not None]
    return list(dict.fromkeys(tops))[:MAX_REPOS]


def told(reply: str, section: str) -> list[str]:
    """Which of the prompt's repository facts (``section``: ``RepoFacts.line``s) ``reply`` gives: the
    branch, the last commit's subject, for ``nanobot chat -v`` to mark a reply answered from the prompt.

    >>> told("You are on feature/x.", 'Git a: branch feature/x; last commit "Add tax" 2 h ago; nothing uncommitted')
    ['branch feature/x']
    """

    found = []
    low = reply.lower()
    for m in re.finditer(r'branch (\S+)(?: \(\d+ commits?\))?; last commit "([^"]*)"', section):
        if re.search(rf"(?<![\w/.-]){re.escape(m.group(1).lower())}(?![\w/-])", low):
            found.append(f"branch {m.group(1)}")
        if m.group(2) and m.group(2).lower() in low:
            found.append(f"last commit \"{m.group(2)}\"")
    return found


def cut_copied(reply: str, section: str) -> bool:
    """Whether ``reply`` copies a last commit's subject that the prompt's section shows cut ("…",
    ``fitted``): the prompt does not hold that answer whole, so it is no answer from the prompt.

    >>> cut_copied('The last commit was "bisque: hold 20 min at…".', 'Git a: branch k; last commit "bisque: hold 20 min at…"')
    True
    """

    return any(m.group(1).endswith("…") and m.group(1)[:-1].strip().lower() in reply.lower()
               for m in re.finditer(r'last commit "([^"]*)"', section))

