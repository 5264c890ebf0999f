"""Hardened git: the argv and environment for every git command nanobot runs without asking.

A repository's own config can name programs git runs on a harmless-looking ``git status``:
``core.fsmonitor``, hooks (``post-index-change``), ``core.pager``, ``diff.external``. The file tools
refuse to write VCS metadata (``tools/protected.py``); this is the second wall, for repositories
someone else prepared. Settings given on the command line (``-c``) or through ``GIT_CONFIG_COUNT``
override every config file, so the repository's values are never used:

>>> git_cmd("/repo", "status", "--porcelain")[:6]
['git', '--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null']

``git_env`` carries the same settings for a shell command line (exec's allow-listed ``git ...``);
it leaves ``diff.external`` alone there (an empty value would make every ``git diff`` fail), which
is safe because nothing nanobot runs may write a repository's config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# (key, value) pairs that win over the repository's config
OVERRIDES: list[tuple[str, str]] = [
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("safe.bareRepository", "explicit"),  # a folder made to look like a bare repo is not one
]
# for nanobot's own calls only: an empty external diff driver (nanobot's diffs pass --no-ext-diff),
# no signing program, no signature check, no colour codes in parsed output, no auto-gc pause
OWN_ONLY: list[tuple[str, str]] = [
    ("diff.external", ""), ("commit.gpgSign", "false"), ("log.showSignature", "false"),
    ("color.ui", "false"), ("gc.auto", "0"),
]
# per-repository driver commands a .gitattributes line can run on add/status/diff
_DRIVER_KEYS = r"^(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)$"


def git_cmd(path: str | os.PathLike, *args: str, extra: list[tuple[str, str]] = ()) -> list[str]:
    """argv for ``git -C path ARGS`` with the overrides (plus ``extra``, e.g. ``repo_drivers``) and
    no pager."""
    opts = [x for k, v in [*OVERRIDES, *OWN_ONLY, *extra] for x in ("-c", f"{k}={v}")]
    return ["git", "--no-pager", *opts, "-C", str(path), *args]


def repo_drivers(path: str | os.PathLike, timeout: float = 5.0) -> list[tuple[str, str]]:
    """Overrides that blank every filter/diff/merge driver command set in the repository's own
    config (``filter.x.clean = ./evil`` with ``* filter=x`` in .gitattributes runs on ``git add``).
    Drivers from the user's own (global/system) config, e.g. git-lfs, are kept. Reading config
    runs nothing."""
    import subprocess

    try:
        out = subprocess.run(git_cmd(path, "config", "--show-scope", "--get-regexp", _DRIVER_KEYS),
                             capture_output=True, text=True, env=git_env(), timeout=timeout).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    keys = [line.split()[1] for line in out.splitlines()
            if len(line.split()) > 1 and line.split()[0] in ("local", "worktree", "command")]
    return [(k, "") for k in dict.fromkeys(keys)]


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default os.environ) plus the overrides as GIT_CONFIG_COUNT/KEY_n/VALUE_n (appended
    to any the user already set), GIT_PAGER=cat, no prompts. System and user config still apply:
    only the repository's own files are untrusted."""
    env = dict(os.environ if base is None else base)
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    for i, (key, value) in enumerate(OVERRIDES, start):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(start + len(OVERRIDES))
    env.update(GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env
