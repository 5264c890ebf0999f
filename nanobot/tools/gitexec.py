"""What an allow-listed ``git ...`` in ``exec`` may do: read, inside the roots, through nanobot's git.

With ``tools.git_reads`` (on by default) every read-only subcommand counts as allow-listed
(``unasked``), held to the same rules. An allow-list of command *prefixes* cannot make git safe (``git diff --output=FILE`` writes any file,
``git diff --no-index /etc/passwd /dev/null`` reads any file, ``git grep -O`` runs a pager, a
repository's config names programs). So a command that ``exec_allow`` admits and that starts with
``git`` is parsed (``shlex``) and runs without asking only when:

- the subcommand is one of ``SUBCOMMANDS`` (read-only) and no global option comes before it;
- every option is in its subcommand's table (``gitoptions.TABLE``: flags, values, and the options
  whose value is a file, which must resolve inside the roots too); any other option is refused;
- every path argument (after ``--``, or any word that names an existing file or contains a ``/``)
  resolves inside the workspace or a root, and so do the repository's work tree and git directory;

and then runs argv-only (no shell) through ``gitsafe.run_git``, so no repository-local program runs.
Anything else is not allow-listed: an interactive chat asks, other sessions refuse, naming why.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nanobot.base.gitsafe import run_git
from nanobot.tools.gitoptions import FLAG, PATH, SUBCOMMANDS, TABLE, VALUE
from nanobot.tools.gitshort import in_short

DIFFS = {"diff", "log", "show", "whatchanged"}  # get --no-ext-diff --no-textconv


def unasked(tools) -> list[str]:
    """The command starts ``exec`` runs without asking under ``tools`` (``ToolSettings``): its
    ``exec_allow`` and, with ``git_reads``, ``git SUB`` for every read-only subcommand (each held to
    ``check`` when it runs, as an allow-listed git command is). Reading a repository inside the roots
    is what ``read_file`` may do there; what changes it stays the user's to allow.

    >>> from nanobot.config import ToolSettings
    >>> "git status" in unasked(ToolSettings()), unasked(ToolSettings(exec_allow=["ls"], git_reads=False))
    (True, ['ls'])
    """
    allow = [a.strip() for a in tools.exec_allow if a.strip()]
    reads = [f"git {sub}" for sub in sorted(SUBCOMMANDS)] if tools.git_reads else []
    return allow + [r for r in reads if r not in allow]


def check(argv: list[str], cwd: str | Path, roots: list[str | Path]) -> str | None:
    """Why ``argv`` (``git SUB ...``) is not allow-listed, or None when it may run.

    >>> check(["git", "log", "--oneline", "-n", "5"], "/w", ["/w"]) is None
    True
    >>> check(["git", "diff", "--output=/tmp/x"], "/w", ["/w"])
    "option '--output' is not on nanobot's read-only git list for 'git diff'"
    """
    if len(argv) < 2 or argv[0] != "git":
        return "not a git command"
    sub = argv[1]
    if sub.startswith("-"):
        return f"global option '{sub}' before the subcommand"
    if sub not in SUBCOMMANDS:
        return f"'git {sub}' is not on nanobot's read-only git list ({', '.join(sorted(SUBCOMMANDS))})"
    table, words, paths_only, i, positional = TABLE[sub], argv[2:], False, 0, []
    while i < len(words):
        w = words[i]
        i += 1
        if paths_only or not w.startswith("-") or w == "-":
            positional.append(w)
            if (why := _path(w, cwd, roots, force=paths_only)) is not None:
                return why
            continue
        if w == "--":
            paths_only = True
            continue
        why, value, takes_next = _option(table, w, sub)
        if why:
            return why
        if takes_next:
            if i >= len(words):
                return f"option '{w}' needs a value"
            value, i = words[i], i + 1
        if table.get(_name(w)) == PATH and (why := _path(value, cwd, roots, force=True)):
            return why
        if sub == "branch" and _name(w) in ("-d", "-D", "-m", "-M", "-c", "-C"):
            return f"'git branch {_name(w)}' changes branches"
    if sub == "branch" and positional:
        return "'git branch NAME' creates a branch"
    return None


def _name(word: str) -> str:
    return word.split("=", 1)[0] if word.startswith("--") else word[:2]


def _option(table: dict[str, str], word: str, sub: str) -> tuple[str | None, str, bool]:
    """(why refused, the value given with the option, whether the next word is its value)."""
    if word in table:  # the whole word: a flag, a bare OPT, or a VALUE/PATH whose value follows
        return None, "", table[word] in (VALUE, PATH)
    if word[1:].isdigit() and sub in DIFFS | {"shortlog"}:
        return None, "", False  # -3: the last three commits
    name = _name(word)
    kind = table.get(name)
    if kind is None or kind == FLAG:
        shown = name if word.startswith("--") else word
        return f"option '{shown}' is not on nanobot's read-only git list for 'git {sub}'", "", False
    value = word.split("=", 1)[1] if word.startswith("--") else word[2:]
    return None, value, False


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
    try:
        proc = run_git(cwd, "rev-parse", "--show-toplevel", "--git-common-dir", timeout=10)
    except OSError as e:  # gitrepo.UnsafeRepository: an include of a FIFO, an ignore-revs file outside
        return str(e)
    except subprocess.TimeoutExpired:
        return "git did not answer in 10 s in this repository"
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
    except OSError as e:
        return 1, f"'git {sub}' did not run: {e}"
    out = proc.stdout + proc.stderr
    short = ""
    if proc.returncode == 0 and (sub == "status" or sub == "log" and _head_only(cwd, rest, timeout)):
        short = in_short(cwd, timeout)  # the repository's state, whichever read of it was run
    if short:
        out = f"{out.rstrip()}\n\n{short}\n" if out.strip() else f"{short}\n"
    return proc.returncode, out


def _head_only(cwd: Path, words: list[str], timeout: float) -> bool:
    """Whether a ``git log`` with ``words`` shows HEAD's own history: options, an option's number
    (``-n 5``), and no revision or path but ``HEAD`` or the branch checked out."""
    rest = [w for w in words if not (w.startswith("-") and w != "--" or w.isdigit())]
    if not rest:
        return True
    try:
        branch = run_git(cwd, "symbolic-ref", "--short", "-q", "HEAD", timeout=timeout).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return all(w in ("HEAD", branch) for w in rest)
