"""What a repository's own config may make git do, read before nanobot's git runs: at every depth.

``run_git`` passes ``-c`` overrides; they win over every config file and git hands them on to the git
it starts inside a submodule (``git status``/``add -A``/``diff-index`` in the parent run
``git status`` in each submodule). So ``repo_overrides`` reads the config of the repository *and of
every repository registered in its index* (submodules, nested ones too) and returns:

- every program-naming key (``PROGRAM_KEYS``) set at local/worktree scope anywhere, blanked;
- every path-valued key (``PATH_KEYS``: attributes, excludes, blame's ignore-revs, mailmap, diff order
  file, commit template, ...) set at local/worktree scope to anything but a regular file inside the
  repository, set back to the user's own (global/system) value or a neutral one, so a repository
  never makes git read ``/dev/zero``, a FIFO or a file outside (``blame.ignoreRevsFile`` is a list
  that ``-c`` cannot empty: such a value refuses the command, ``UnsafeRepository``);
- a local ``submodule.<name>.ignore`` forced to ``all``.

An ``include.path``/``includeIf.*.path`` that a repository's config names is read by git before any
override applies, so it must be a regular file (or missing): a FIFO or a device there raises
``UnsafeRepository`` (an OSError) and the command does not run. Reading config runs no program.

>>> _override("filter.lfs.clean"), _override("core.attributesfile"), _override("submodule.x.ignore")
('', '', 'all')
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

# keys (as git canonicalises them: section and name lower case) whose value is a program to run
PROGRAM_KEYS = ("filter\\..+\\.(clean|smudge|process|required)"
                "|diff\\..+\\.(command|textconv)|diff\\.external|merge\\..+\\.driver"
                "|(diff|merge)tool\\..+\\.(cmd|path)|pager\\..+|alias\\..+"
                "|core\\.(fsmonitor|hookspath|pager|sshcommand|editor|askpass|gitproxy"
                "|alternaterefscommand)|sequence\\.editor|ssh\\.variant"
                "|gpg\\.program|gpg\\..+\\.program|gpg\\.ssh\\.defaultkeycommand"
                "|credential\\.helper|credential\\..+\\.helper|uploadpack\\.packobjectshook"
                "|remote\\..+\\.(uploadpack|receivepack|vcs)|sendemail\\..+")
# keys whose value is a file git reads
PATH_KEYS = ("core\\.(attributesfile|excludesfile)|blame\\.ignorerevsfile|diff\\.orderfile"
             "|mailmap\\.(file|blob)|commit\\.template|format\\.signaturefile|init\\.templatedir"
             "|gpg\\.ssh\\.(allowedsignersfile|revocationfile)"
             "|http\\.(.+\\.)?(cookiefile|sslcert|sslkey|sslcainfo|sslcapath)")
MULTI_PATH_KEYS = {"blame.ignorerevsfile"}
_KEYS = f"^({PROGRAM_KEYS}|{PATH_KEYS}|submodule\\..+\\.ignore)$"
_INCLUDES = "^include(if\\..+)?\\.path$"
_SAFE_VALUE = {"core.fsmonitor": "false", "core.hookspath": "/dev/null", "core.pager": "cat"}
MAX_REPOS = 64  # a repository with more nested repositories than this is refused
MAX_INCLUDE_DEPTH = 10  # git's own limit

Runner = Callable[..., subprocess.CompletedProcess]


class UnsafeRepository(OSError):
    """A repository whose config would make git read a FIFO, a device or a file outside it."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def repo_overrides(path: str | os.PathLike, run: Runner) -> list[tuple[str, str]]:
    """``(key, value)`` overrides for ``path``'s repository and every repository nested in its index.
    ``run(path, *args)`` runs git hardened by the fixed overrides only and returns bytes."""
    todo, seen = [Path(path)], set()
    own: dict[str, str] = {}  # set by a repository: the override
    user: dict[str, str] = {}  # the user's own (global/system) value of a path key
    while todo:
        repo = todo.pop()
        if len(seen) >= MAX_REPOS:
            raise UnsafeRepository(errno.EMLINK, f"more than {MAX_REPOS} nested repositories: "
                                                 "nanobot's git does not run there", str(path))
        seen.add(repo.resolve())
        _check_includes(repo, run)  # before any other git command reads them
        bounds = _bounds(repo, run)
        for scope, key, value in _entries(run(repo, "config", "-z", "--show-scope", "--get-regexp", _KEYS)):
            if scope in ("system", "global") and _is_path_key(key):
                user[key] = value
            elif scope in ("local", "worktree") and not (_is_path_key(key) and _within(value, bounds)):
                if key in MULTI_PATH_KEYS:  # a later -c adds to the list instead of replacing it
                    raise UnsafeRepository(errno.EPERM, f"the repository's {key} names a file outside "
                                                        "it or not a regular file", value)
                own[key] = _override(key)
        todo += [repo / sub for sub in _gitlinks(repo, run)
                 if (repo / sub).resolve() not in seen and (repo / sub / ".git").exists()]
    return [(k, user.get(k, v)) for k, v in own.items()]


def _bounds(repo: Path, run: Runner) -> list[Path]:
    """The repository's work tree and git directory (resolved), [] when ``repo`` is not in one."""
    proc = run(repo, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    return [Path(x).resolve() for x in lines if x] if proc.returncode == 0 else []


def _within(value: str, bounds: list[Path]) -> bool:
    """``value`` (relative to the work tree) is a regular file inside the repository."""
    if not bounds:
        return False
    target = (bounds[0] / Path(value).expanduser()).resolve()
    return target.is_file() and any(target == b or b in target.parents for b in bounds)


def _override(key: str) -> str:
    if key.startswith("submodule.") and key.endswith(".ignore"):
        return "all"
    if key.startswith("filter.") and key.endswith(".required"):
        return "false"
    return _neutral(key) if _is_path_key(key) else _SAFE_VALUE.get(key, "")


def _neutral(key: str) -> str:
    return "/dev/null" if key == "diff.orderfile" else ""  # an empty order file path is an error


def _is_path_key(key: str) -> bool:
    return re.fullmatch(PATH_KEYS, key) is not None


def _entries(proc: subprocess.CompletedProcess) -> list[tuple[str, str, str]]:
    """``git config -z --show-scope`` records: ``scope NUL key [LF value] NUL``."""
    tokens = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out = []
    for scope, rest in zip(tokens[0::2], tokens[1::2]):
        key, _, value = rest.partition("\n")
        out.append((scope, key, value))
    return out


def _toplevel(path, run: Runner) -> Path | None:
    proc = run(path, "rev-parse", "--show-toplevel")
    top = proc.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top) if proc.returncode == 0 and top else None


def _gitlinks(repo: Path, run: Runner) -> list[str]:
    """Paths (relative to ``repo``) of the repositories registered in its index (mode 160000)."""
    proc = run(repo, "ls-files", "--stage", "-z", "--", ":/")
    return [rec.split("\t", 1)[1] for rec in proc.stdout.decode("utf-8", "surrogateescape").split("\0")
            if rec.startswith("160000 ") and "\t" in rec]


def _check_includes(repo: Path, run: Runner) -> None:
    """Every file a repository's config includes (at any include depth) is a regular file or missing."""
    files: list[tuple[str | None, int]] = [(None, 0)]
    while files:
        cfg, depth = files.pop()
        proc = run(repo, "config", "-z", "--no-includes", "--show-scope", "--show-origin",
                   *(("--file", cfg) if cfg else ()), "--get-regexp", _INCLUDES)
        tokens = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
        for scope, origin, rest in zip(tokens[0::3], tokens[1::3], tokens[2::3]):
            if cfg is None and scope not in ("local", "worktree"):
                continue  # the user's own includes are trusted
            value = rest.partition("\n")[2]
            target = Path(value).expanduser()
            if not target.is_absolute():  # relative to the including file
                target = Path(repo, origin.removeprefix("file:")).parent / target
            try:
                st = os.stat(target)
            except OSError:
                continue  # git skips a missing include
            if not stat.S_ISREG(st.st_mode):
                raise UnsafeRepository(errno.EINVAL, "the repository's config includes it (include.path) "
                                                     "and it is not a regular file", str(target))
            if depth < MAX_INCLUDE_DEPTH:
                files.append((str(target), depth + 1))
