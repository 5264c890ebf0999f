"""Hardened git: the one runner for every git command nanobot runs (``run_git``).

A repository's own config can name programs git runs on a harmless-looking ``git status``:
``core.fsmonitor``, hooks (``post-index-change``), ``core.pager``, ``diff.external``, a
``filter.<x>.clean`` driver that a ``.gitattributes`` line switches on, a ``diff.<x>.textconv``,
``gpg.program`` (via ``log.showSignature`` on a signed commit), ``core.sshCommand``, credential
helpers -- also through ``include.path``/``includeIf`` files. The file tools refuse to write VCS
metadata (``tools/protected.py``); this is the second wall, for repositories someone else prepared.
Settings given on the command line (``-c``) override every config file, so:

1. fixed overrides (``OVERRIDES``) switch off fsmonitor, hooks, pager, signatures, auto-gc;
2. ``repo_programs`` (``gitrepo.repo_overrides``) blanks every program-naming key and resets every
   path-valued key that the repository's *own* config sets -- and the config of every submodule in
   its index, since git hands ``-c`` on to the git it runs inside a submodule; an include of a
   FIFO or device refuses the command; submodules are not entered by status and diff;
3. diffs pass ``--no-ext-diff --no-textconv`` (callers), and the environment drops
   ``GIT_EXTERNAL_DIFF`` and the system attributes file.

The user's own (global/system) config is trusted: git-lfs set up there keeps working.

>>> git_cmd("/repo", "status", "--porcelain")[:6]
['git', '--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null']

``git_env`` carries the fixed overrides for a shell command line (a user-approved ``exec``).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping

from nanobot.base.gitrepo import repo_overrides

# (key, value) pairs that win over the repository's config
OVERRIDES: list[tuple[str, str]] = [
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("safe.bareRepository", "explicit"),  # a folder made to look like a bare repo is not one
    ("log.showSignature", "false"),
    ("protocol.ext.allow", "never"),
    # submodules are not entered: porcelain status/diff compare their commits only, no recursion
    ("diff.ignoreSubmodules", "dirty"), ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"), ("fetch.recurseSubmodules", "false"),
]
# for nanobot's own calls: an empty external diff driver (diffs pass --no-ext-diff), no signing,
# no colour codes in parsed output, no auto-gc or maintenance pause
OWN_ONLY: list[tuple[str, str]] = [
    ("diff.external", ""), ("commit.gpgSign", "false"), ("tag.gpgSign", "false"),
    ("color.ui", "false"), ("gc.auto", "0"), ("maintenance.auto", "false"),
]


def git_cmd(path: str | os.PathLike, *args: str, extra: list[tuple[str, str]] = ()) -> list[str]:
    """argv for ``git -C path ARGS`` with the overrides (plus ``extra``, e.g. ``repo_programs``)."""
    opts = [x for k, v in [*OVERRIDES, *OWN_ONLY, *extra] for x in ("-c", f"{k}={v}")]
    return ["git", "--no-pager", *opts, "-C", str(path), *args]


def repo_programs(path: str | os.PathLike, timeout: float = 10.0) -> list[tuple[str, str]]:
    """The overrides for the repository at ``path`` and every repository nested in it
    (``gitrepo.repo_overrides``). Reading config runs nothing. OSError / TimeoutExpired propagate:
    a command is never run with its programs left in place."""
    deadline = time.monotonic() + timeout

    def run(where, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(git_cmd(where, *args), capture_output=True, env=git_env(),
                              timeout=max(0.1, deadline - time.monotonic()), stdin=subprocess.DEVNULL)

    return repo_overrides(path, run)


def run_git(path: str | os.PathLike, *args: str, input: str | bytes | None = None,
            env: Mapping[str, str] | None = None, timeout: float = 60.0,
            errors: str = "replace", raw: bool = False) -> subprocess.CompletedProcess:
    """Run ``git -C path ARGS`` hardened (fixed overrides + the repository's programs blanked),
    stdin closed unless ``input``. Output is decoded as UTF-8 with ``errors`` (never raises on a
    non-UTF-8 file name), or kept as bytes with ``raw``. Raises OSError / TimeoutExpired.
    Reads take no optional lock (GIT_OPTIONAL_LOCKS=0): a ``git status`` here never holds
    ``index.lock`` while another process (or the user) commits."""
    full_env = git_env() | {"LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"} | dict(env or {})
    data = input.encode("utf-8", "surrogateescape") if isinstance(input, str) else input
    deadline = time.monotonic() + timeout
    blank = repo_programs(path, timeout=timeout)
    proc = subprocess.run(git_cmd(path, *args, extra=blank), input=data, capture_output=True,
                          env=full_env, timeout=max(0.1, deadline - time.monotonic()),
                          stdin=subprocess.DEVNULL if data is None else None)
    if not raw:
        proc.stdout = proc.stdout.decode("utf-8", errors)
        proc.stderr = proc.stderr.decode("utf-8", errors)
    return proc


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default os.environ) plus the overrides as GIT_CONFIG_COUNT/KEY_n/VALUE_n (appended
    to any the user already set), GIT_PAGER=cat, no prompts, no system attributes file."""
    env = dict(os.environ if base is None else base)
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    for i, (key, value) in enumerate(OVERRIDES, start):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(start + len(OVERRIDES))
    env.update(GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0", GIT_ATTR_NOSYSTEM="1")
    for var in ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS"):
        env.pop(var, None)
    return env
