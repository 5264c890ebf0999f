"""What an allow-listed ``git ...`` in ``exec`` may do: read, inside the roots, through nanobot's git.

An allow-list of command *prefixes* cannot make git safe (``git diff --output=FILE`` writes any file,
``git diff --no-index /etc/passwd /dev/null`` reads any file, ``git grep -O`` runs a pager, a
repository's config names programs). So a command that ``exec_allow`` admits and that starts with
``git`` is parsed (``shlex``) and runs without asking only when:

- the subcommand is one of ``SUBCOMMANDS`` (read-only) and no global option comes before it;
- every option is in ``OPTIONS`` (``--name=value`` forms by name, ``-n5``/``-U3``/``-3`` counts);
- every path argument (after ``--``, or any word that names an existing file or contains a ``/``)
  resolves inside the workspace or a root, and so do the repository's work tree and git directory;

and then runs argv-only (no shell) through ``gitsafe.run_git``, so no repository-local program runs.
Anything else is not allow-listed: an interactive chat asks, other sessions refuse, naming why.

>>> check(["git", "log", "--oneline", "-n", "5"], "/w", ["/w"]) is None
True
>>> check(["git", "diff", "--output=/tmp/x"], "/w", ["/w"])
"option '--output' is not on nanobot's read-only git list"
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nanobot.base.gitsafe import run_git

SUBCOMMANDS = {"status", "diff", "log", "show", "blame", "ls-files", "shortlog", "describe", "grep",
               "branch", "rev-parse", "whatchanged"}
DIFFS = {"diff", "log", "show", "whatchanged"}  # get --no-ext-diff --no-textconv
# options that take the next word as their value (never a path)
VALUED = {"-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--author",
          "--committer", "--grep", "-e", "--format", "--pretty", "--date", "-S", "-G", "--max-depth"}
OPTIONS = VALUED | {
    "-s", "--short", "-b", "--branch", "--porcelain", "--long", "-z", "--ignored", "-v", "--verbose",
    "--show-stash", "--ahead-behind", "--no-ahead-behind", "--renames", "--no-renames",
    "--stat", "--numstat", "--shortstat", "--dirstat", "--summary", "--name-only", "--name-status",
    "--cached", "--staged", "-p", "--patch", "--no-patch", "--raw", "--minimal", "--patience",
    "--histogram", "--word-diff", "--color-words", "--no-color", "--color", "-w", "--ignore-all-space",
    "--ignore-space-change", "--ignore-blank-lines", "--exit-code", "--quiet", "-q", "-M", "-C",
    "--find-renames", "--find-copies", "--check", "--full-index", "--binary", "--abbrev-commit",
    "--no-abbrev-commit", "--oneline", "--graph", "--all", "--branches", "--tags", "--remotes",
    "--decorate", "--no-decorate", "--first-parent", "--no-merges", "--merges", "--reverse",
    "--follow", "--topo-order", "--date-order", "--relative-date", "--left-right", "--cherry-pick",
    "--source", "--regexp-ignore-case", "-i", "--all-match", "--invert-grep", "--ignore-case",
    "-n", "--line-number", "-l", "--files-with-matches", "-L", "--files-without-match", "-c",
    "--count", "-h", "-H", "--full-name", "-E", "--extended-regexp", "-F", "--fixed-strings",
    "-P", "--perl-regexp", "--word-regexp", "--untracked", "--no-index-is-refused", "-a", "-r",
    "--list", "--show-current", "--contains", "--merged", "--no-merged", "--others", "--modified",
    "--deleted", "--exclude-standard", "--error-unmatch", "--show-toplevel", "--abbrev-ref",
    "--verify", "--is-inside-work-tree", "--show-prefix", "--always", "--dirty", "-t",
    "-e", "--stdin-refused", "--sn", "--numbered", "--email", "-sn", "-ns",
    "--unified", "--stat-width", "--no-ext-diff", "--no-textconv", "--text", "--function-context",
    "-m", "-u", "--untracked-files", "--abbrev", "--diff-filter",
}
OPTIONS -= {"--no-index-is-refused", "--stdin-refused"}


def check(argv: list[str], cwd: str | Path, roots: list[str | Path]) -> str | None:
    """Why ``argv`` (``git SUB ...``) is not allow-listed, or None when it may run."""
    if len(argv) < 2 or argv[0] != "git":
        return "not a git command"
    sub = argv[1]
    if sub.startswith("-"):
        return f"global option '{sub}' before the subcommand"
    if sub not in SUBCOMMANDS:
        return f"'git {sub}' is not on nanobot's read-only git list ({', '.join(sorted(SUBCOMMANDS))})"
    words, paths_only, i = argv[2:], False, 0
    while i < len(words):
        w = words[i]
        i += 1
        if paths_only or not w.startswith("-") or w == "-":
            if (why := _path(w, cwd, roots, force=paths_only)) is not None:
                return why
            continue
        if w == "--":
            paths_only = True
            continue
        name = w.split("=", 1)[0]
        if name not in OPTIONS and not _count(w):
            return f"option '{name}' is not on nanobot's read-only git list"
        if name in VALUED and "=" not in w and w == name:
            i += 1  # its value, never a path
        if sub == "branch" and name in ("-d", "-D", "-m", "-M", "-c", "-C"):
            return f"'git branch {name}' changes branches"
    if sub == "branch" and any(not w.startswith("-") for w in words):
        return "'git branch NAME' creates a branch"
    return None


def _count(word: str) -> bool:
    """-3, -n5, -U10 (a number glued to a counting option)."""
    return (word[1:].isdigit() or (len(word) > 2 and word[:2] in ("-n", "-U") and word[2:].isdigit())
            or word in ("-uno", "-unormal", "-uall"))


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def _path(word: str, cwd, roots, force: bool) -> str | None:
    """A word that names a path (or must: after ``--``) has to resolve inside the roots."""
    candidate = Path(cwd, word).expanduser()
    if not (force or "/" in word or word.startswith("~") or candidate.exists()):
        return None  # a revision (HEAD~2, main..topic) or a pattern
    if ":" in word.split("/")[0] and not force:
        return None  # HEAD:path/in/the/repo names a blob, not a file
    if not _inside(candidate.resolve(), [Path(r).resolve() for r in roots]):
        return f"path '{word}' is outside the workspace and roots"
    return None


def repo_outside(cwd: Path, roots: list[str | Path]) -> str | None:
    """Why the repository at ``cwd`` may not be read (work tree or git dir outside the roots)."""
    proc = run_git(cwd, "rev-parse", "--show-toplevel", "--git-common-dir", timeout=10)
    if proc.returncode != 0:
        return None  # not a repository: git itself says so
    resolved = [Path(r).resolve() for r in roots]
    for line in proc.stdout.splitlines():
        if line and not _inside((cwd / line).resolve(), resolved):
            return f"the repository's {line} is outside the workspace and roots"
    return None


def run(argv: list[str], cwd: Path, timeout: float) -> tuple[int, str]:
    """(exit status, stdout+stderr) of a checked command, through the hardened runner."""
    sub, rest = argv[1], argv[2:]
    extra = ["--no-ext-diff", "--no-textconv", "--no-show-signature"] if sub in DIFFS else []
    try:
        proc = run_git(cwd, sub, *extra, *rest, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"'git {sub}' timed out after {timeout:g}s (tools.exec_timeout)"
    return proc.returncode, proc.stdout + proc.stderr
