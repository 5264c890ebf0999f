"""The "In short" lines put under a git read the model ran (``tools.gitexec``): the work tree's state
and the branch's newest commits in a few words, from git's own porcelain, whatever command was run.

A small model misreads ``git status``'s long form ("no changes added to commit", hints) as a clean tree,
miscounts a long log, cannot see in ``--oneline``'s subjects which files a commit touched, and picks
``git log -1`` for "is anything uncommitted?". So a read of the repository's state (a ``status``, a ``log`` of HEAD's own
history) ends with both lines, and the question is answered from them. A ``git branch`` gets none: its
one line is the answer, and lines under it draw a small model's "which branch?" reply away from it.

>>> short_data('In short: this branch has 1 commit; the newest, c0de "Tax", changed a.py.')
'1 c0de "Tax", a.py.'
"""

from __future__ import annotations

import re
from pathlib import Path

from nanobot.base.safe_text import one_line
from nanobot.tools.repofacts import MAX_NAMES, SUBJECT_CHARS, RepoFacts, _cut, _stdout, _uncommitted

STATUS = {"A": "added", "M": "changed", "D": "deleted", "T": "changed"}


def in_short(cwd: Path, timeout: float = 2.0) -> str:
    """The work tree's line and the commits' line, each "" when git fails; "" when both do."""
    lines = [line for line in (work_tree(cwd, timeout), commits(cwd, timeout)) if line]
    return "\n".join(lines)


def work_tree(cwd: Path, timeout: float = 2.0) -> str:
    """Whether the work tree at ``cwd`` is clean, from ``git status --porcelain``."""
    porcelain = _stdout(cwd, ("status", "--porcelain", "--untracked-files=normal"), timeout)
    if porcelain is None:
        return ""
    facts = RepoFacts(label="", branch="")
    _uncommitted(facts, porcelain)
    if not (facts.changed or facts.untracked):
        return "In short: the work tree is clean (nothing uncommitted)."
    what = ", ".join(facts.names) if facts.names else f"{facts.changed} changed, {facts.untracked} untracked"
    return f"In short: the work tree is not clean; uncommitted: {what}."


def commits(cwd: Path, timeout: float = 2.0) -> str:
    """How many commits the branch has and what its newest two did, each with its subject and files."""
    count = (_stdout(cwd, ("rev-list", "--count", "HEAD"), timeout) or "").strip()
    if not count.isdigit():
        return ""
    n, said = int(count), []
    for rev, name in (("HEAD", "the newest"), ("HEAD~1", "the one before"))[:min(2, n)]:
        head = _stdout(cwd, ("log", "-1", "--format=%h%x00%s", rev), timeout)
        if not head or "\0" not in head:
            break
        short, subject = head.strip().split("\0", 1)
        files = _stdout(cwd, ("show", "--name-status", "--format=", "--no-renames", rev), timeout) or ""
        said.append(f'{name}, {short} "{_cut(one_line(subject), SUBJECT_CHARS * 2)}", {_touched(files)}')
    return f"In short: this branch has {n} commit{'s' if n != 1 else ''}" + "".join(f"; {s}" for s in said) + "."


def _touched(name_status: str) -> str:
    """"added a.py and changed b.py" from ``--name-status`` rows; a count past ``MAX_NAMES`` files."""
    rows = [r.split("\t", 1) for r in name_status.splitlines() if "\t" in r]
    if not rows:
        return "changed no file"
    if len(rows) > MAX_NAMES:
        return f"changed {len(rows)} files"
    kinds: dict[str, list[str]] = {}
    for status, path in rows:
        kinds.setdefault(STATUS.get(status[:1], "changed"), []).append(one_line(path))
    return " and ".join(f"{kind} {', '.join(paths)}" for kind, paths in kinds.items())


# The words of the In short lines' own wording, not of git's output: a reply that shares only these
# with a look ("Yes, your last commit went through.") says nothing of it.
SHORT_WORDING = frozenset(re.findall(r"[a-z]+", "in short: this branch has commit commits; the newest, the one before, "
                                                "added changed deleted no file files and. the work tree is clean not "
                                                "(nothing uncommitted); uncommitted: changed, untracked"))


def short_data(line: str) -> str:
    """An In short line without its own wording: the counts, names and subject it gives."""
    return " ".join(w for w in line.split() if re.sub(r"\W", "", w).lower() not in SHORT_WORDING)
