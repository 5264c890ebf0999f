"""Prepared repositories at depth (issue 41, class 2): a submodule's own config never makes nanobot's
git run a program, and a path-valued key or an include never makes git read a device.

A real submodule (``git submodule add``) whose own ``.git/config`` names a ``filter.evil.clean``
that its ``.gitattributes`` switches on: plain ``git status`` / ``git add -A`` in the parent run it
(checked first, so each test can fail); the observer's start-up check, a coding session and
allow-listed ``exec git status`` must not. ``core.attributesFile=/dev/zero`` (git grows without
bound reading it) and an ``include.path`` of a FIFO (git blocks) must not be read.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.base.errors import ToolError
from nanobot.base.gitrepo import UnsafeRepository
from nanobot.base.gitsafe import run_git
from nanobot.coding.errors import CodingError
from nanobot.coding.gitvcs import GitVCS
from nanobot.observer.external import git_changes
from nanobot.tools.shell import Exec
from tests.test_hostile_git import ENV, ctx, evil, git, make_repo  # noqa: F401 - ctx is a fixture


def with_submodule(tmp: Path, *, ignore_none: bool = False, nested: bool = False) -> tuple[Path, Path]:
    """(parent repository, marker): the submodule's own config runs ``evil.sh`` as a clean filter."""
    script, marker = evil(tmp, "sub")
    sub = make_repo(tmp / "sub-origin")
    if nested:  # the evil one is a submodule of the submodule
        inner = make_repo(tmp / "inner-origin")
        git(sub, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "inner")
        git(sub, "commit", "-qm", "inner")
    top = make_repo(tmp / "repo")
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(top, "commit", "-qm", "submodule")
    if nested:
        git(top, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q")
    target = top / "sub" / "inner" if nested else top / "sub"
    git(target, "config", "filter.evil.clean", str(script))
    (target / ".gitattributes").write_text("* filter=evil\n")
    if ignore_none:  # the parent's .gitmodules asks git to look inside the submodule
        git(top, "config", "-f", ".gitmodules", "submodule.sub.ignore", "none")
    return top, marker


def stale(repo: Path) -> None:
    """Every file under ``repo`` gets a new mtime: git must read (and filter) it to compare it."""
    bump = time.time() + 5
    for p in repo.rglob("*.txt"):
        os.utime(p, (bump, bump))


def live(top: Path, marker: Path, *args: str) -> None:
    stale(top)
    subprocess.run(["git", "-C", str(top), *args], capture_output=True, env=ENV, timeout=60,
                   stdin=subprocess.DEVNULL)
    assert marker.exists(), f"plain `git {' '.join(args)}` should run the submodule's filter"
    marker.unlink()
    stale(top)


@pytest.mark.parametrize("ignore_none,nested", [(False, False), (True, False), (False, True)])
def test_the_observers_check_never_runs_a_submodules_filter(tmp_path, ignore_none, nested):
    top, marker = with_submodule(tmp_path, ignore_none=ignore_none, nested=nested)
    live(top, marker, "status", "--porcelain")
    changes = git_changes(top, datetime.now().astimezone(), timeout=30)
    assert changes.git
    assert not marker.exists()


@pytest.mark.parametrize("args", [("status", "--porcelain"), ("add", "-A"), ("diff-index", "HEAD")])
def test_run_git_never_runs_a_submodules_filter(tmp_path, args):
    top, marker = with_submodule(tmp_path, ignore_none=True)
    live(top, marker, *args)
    assert run_git(top, *args).returncode == 0
    assert not marker.exists()


def test_a_coding_session_never_runs_a_submodules_filter(tmp_path):
    top, marker = with_submodule(tmp_path, ignore_none=True)
    live(top, marker, "add", "-A")
    vcs = GitVCS(top)
    (top / "f.txt").write_text("changed\n")
    change = vcs.start("task")
    assert "+changed" in vcs.diff(change)
    assert not marker.exists()


def test_allow_listed_exec_git_status_never_runs_a_submodules_filter(ctx, tmp_path):  # noqa: F811
    top, marker = with_submodule(tmp_path, ignore_none=True)
    live(top, marker, "status")
    out = Exec().run(Exec.Args(command="git status --porcelain", cwd=str(top)), ctx)
    assert out.startswith("exit 0"), out
    assert not marker.exists()


def _limited(limit: int):
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def bounded_run_git(repo: Path, *args: str) -> int:
    """``run_git``'s exit status, run in a child whose memory (and its git's) is capped at 1 GiB: a
    git that reads /dev/zero fails there instead of growing on the test machine."""
    code = ("import sys; from nanobot.base.gitsafe import run_git; "
            "p = run_git(sys.argv[1], *sys.argv[2:], timeout=20); sys.stderr.write(p.stderr); "
            "sys.exit(p.returncode)")
    proc = subprocess.run([sys.executable, "-c", code, str(repo), *args], capture_output=True, text=True,
                          timeout=60, preexec_fn=_limited(1 << 30), cwd=Path(__file__).parent.parent)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


@pytest.mark.parametrize("key", ["core.attributesFile", "mailmap.file",
                                 "diff.orderFile"])
def test_a_path_valued_key_never_makes_git_read_a_device(tmp_path, key):
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", key, "/dev/zero")
    args = {"diff.orderFile": ("diff", "--no-ext-diff", "HEAD~1"),
            "mailmap.file": ("log", "-1", "--format=%aN")}.get(key, ("status", "--porcelain"))
    started = time.monotonic()
    assert bounded_run_git(repo, *args) == 0
    assert time.monotonic() - started < 20


def test_a_path_valued_key_in_a_submodule_is_reset_too(tmp_path):
    top, _ = with_submodule(tmp_path)
    git(top / "sub", "config", "core.attributesFile", "/dev/zero")
    plain = subprocess.run(["git", "-C", str(top), "status", "--porcelain"], capture_output=True, env=ENV,
                           timeout=20, preexec_fn=_limited(1 << 30))
    assert plain.returncode != 0  # plain git runs out of memory reading /dev/zero (the plant is live)
    assert bounded_run_git(top, "status", "--porcelain") == 0


def test_the_users_own_path_value_is_kept(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    ignore = tmp_path / "global-ignore"
    ignore.write_text("*.log\n")
    cfg = tmp_path / "gitconfig"
    cfg.write_text(f"[core]\n\texcludesFile = {ignore}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    git(repo, "config", "core.excludesFile", "/dev/zero")
    (repo / "x.log").write_text("x\n")
    out = run_git(repo, "status", "--porcelain", "--untracked-files=all").stdout
    assert "x.log" not in out


@pytest.mark.parametrize("how", ["fifo", "device", "nested-fifo"])
def test_an_include_of_a_fifo_or_device_refuses_at_once(tmp_path, how):
    repo = make_repo(tmp_path / "repo")
    fifo = tmp_path / "cfg.fifo"
    os.mkfifo(fifo)
    target = {"fifo": str(fifo), "device": "/dev/zero", "nested-fifo": str(tmp_path / "a.cfg")}[how]
    (tmp_path / "a.cfg").write_text(f"[include]\n\tpath = {fifo}\n")
    with open(repo / ".git" / "config", "a") as f:
        f.write(f"[include]\n\tpath = {target}\n")
    started = time.monotonic()
    with pytest.raises(UnsafeRepository, match="not a regular file"):
        run_git(repo, "status", "--porcelain", timeout=20)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("value", ["/dev/zero", "{secret}"])
def test_blames_ignore_revs_file_outside_the_repository_refuses(tmp_path, value):
    repo = make_repo(tmp_path / "repo")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET LINE\n")
    git(repo, "config", "blame.ignoreRevsFile", value.format(secret=secret))
    with pytest.raises(UnsafeRepository, match="blame.ignorerevsfile names a file outside"):
        run_git(repo, "blame", "f.txt", timeout=20)


def test_a_path_valued_key_naming_a_file_inside_the_repository_is_kept(tmp_path):
    repo = make_repo(tmp_path / "repo")
    first = git(repo, "rev-parse", "HEAD~1").strip()
    (repo / ".git-blame-ignore-revs").write_text(first + "\n")
    git(repo, "config", "blame.ignoreRevsFile", ".git-blame-ignore-revs")
    assert run_git(repo, "blame", "f.txt").returncode == 0


def test_allow_listed_exec_in_a_repository_including_a_device_is_one_line(ctx, tmp_path):  # noqa: F811
    repo = make_repo(tmp_path / "repo")
    with open(repo / ".git" / "config", "a") as f:
        f.write("[include]\n\tpath = /dev/zero\n")
    with pytest.raises(ToolError, match="^exec refused") as e:
        Exec().run(Exec.Args(command="git status", cwd=str(repo)), ctx)
    assert "/dev/zero" in str(e.value) and "not a regular file" in str(e.value) and "\n" not in str(e.value)


def test_a_coding_session_in_a_repository_including_a_fifo_is_one_line(tmp_path):
    repo = make_repo(tmp_path / "repo")
    os.mkfifo(tmp_path / "cfg.fifo")
    with open(repo / ".git" / "config", "a") as f:
        f.write(f"[include]\n\tpath = {tmp_path / 'cfg.fifo'}\n")
    with pytest.raises(CodingError, match="cfg.fifo: the repository's config includes it") as e:
        GitVCS(repo).start("task")
    assert "\n" not in str(e.value)
