"""Prepared repositories (issue 28, class 1): no git command nanobot runs executes anything a
repository's config, attributes or hooks name -- the observer's start-up check, a coding session's
git, and ``exec``'s allow-listed git.

Every plant wires a program that touches a marker file. Each case first runs the same command with
plain git and checks the marker appears (the plant is live, so the test can fail), then runs
nanobot's path and checks the marker does not exist. Plants: a filter's clean/process driver
switched on by ``.gitattributes`` or ``.git/info/attributes``, set in ``.git/config``, an
``include.path`` file, an ``includeIf`` file or ``config.worktree``; ``diff.external``; a textconv
driver; ``gpg.program`` via ``log.showSignature`` on a signed commit; fsmonitor and hooks through
included files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.base.errors import ToolError
from nanobot.coding.gitvcs import GitVCS
from nanobot.config import load_settings
from nanobot.observer.external import git_changes
from nanobot.tools.base import ToolContext
from nanobot.tools.shell import Exec

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
       "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}


def git(repo: Path, *args: str, input: str | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=ENV, input=input, timeout=60).stdout


def make_repo(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main", ".")
    (repo / "f.txt").write_text("a\n")
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "first")
    (repo / "f.txt").write_text("a\nb\n")
    git(repo, "commit", "-qam", "second")
    return repo


def evil(tmp: Path, name: str) -> tuple[Path, Path]:
    """A program that touches ``ran-NAME`` and passes its input through (a working filter)."""
    marker, script = tmp / f"ran-{name}", tmp / f"evil-{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    return script, marker


def sign_head(repo: Path) -> None:
    """Rewrite HEAD as a commit carrying a (fake) PGP signature header."""
    raw = git(repo, "cat-file", "commit", "HEAD")
    head, _, msg = raw.partition("\n\n")
    sig = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    sha = git(repo, "hash-object", "-t", "commit", "-w", "--stdin", input=f"{head}\n{sig}\n\n{msg}").strip()
    git(repo, "update-ref", "HEAD", sha)


def touch_stat(repo: Path) -> None:
    """Same content, new mtime: git must read (and filter) the file to compare it."""
    st = (repo / "f.txt").stat()
    os.utime(repo / "f.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def plant(repo: Path, tmp: Path, kind: str) -> Path:
    script, marker = evil(tmp, kind)
    cfg = repo / ".git" / "config"
    extra = tmp / f"extra-{kind}.cfg"
    if kind == "clean-config":
        git(repo, "config", "filter.evil.clean", str(script))
        (repo / ".gitattributes").write_text("* filter=evil\n")
    elif kind == "required-info-attributes":
        git(repo, "config", "filter.evil.clean", str(script))
        git(repo, "config", "filter.evil.required", "true")
        (repo / ".git" / "info").mkdir(exist_ok=True)
        (repo / ".git" / "info" / "attributes").write_text("*.txt filter=evil\n")
    elif kind == "process-config":
        git(repo, "config", "filter.evil.process", str(script))
        (repo / ".gitattributes").write_text("* filter=evil\n")
    elif kind == "clean-include":
        extra.write_text(f'[filter "evil"]\n\tclean = {script}\n')
        git(repo, "config", "include.path", str(extra))
        (repo / ".gitattributes").write_text("* filter=evil\n")
    elif kind == "clean-includeif":
        extra.write_text(f'[filter "evil"]\n\tclean = {script}\n')
        with open(cfg, "a") as f:
            f.write(f'[includeIf "gitdir:{repo}/"]\n\tpath = {extra}\n')
        (repo / ".gitattributes").write_text("* filter=evil\n")
    elif kind == "clean-worktree-config":
        git(repo, "config", "extensions.worktreeConfig", "true")
        git(repo, "config", "--worktree", "filter.evil.clean", str(script))
        (repo / ".gitattributes").write_text("* filter=evil\n")
    elif kind == "fsmonitor-include":
        extra.write_text(f"[core]\n\tfsmonitor = {script}\n")
        git(repo, "config", "include.path", str(extra))
    elif kind == "hook-includeif":
        hooks = tmp / f"hooks-{kind}"
        hooks.mkdir()
        (hooks / "post-index-change").write_text(script.read_text())
        (hooks / "post-index-change").chmod(0o755)
        extra.write_text(f"[core]\n\thooksPath = {hooks}\n")
        with open(cfg, "a") as f:
            f.write(f'[includeIf "onbranch:main"]\n\tpath = {extra}\n')
    elif kind == "diff-external":
        git(repo, "config", "diff.external", str(script))
    elif kind == "textconv":
        git(repo, "config", "diff.evil.textconv", str(script))
        (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    elif kind == "gpg-showsignature":
        sign_head(repo)
        git(repo, "config", "log.showSignature", "true")
        git(repo, "config", "gpg.program", str(script))
    else:
        raise AssertionError(kind)
    return marker


def live(repo: Path, marker: Path, *args: str) -> None:
    """The plant runs under plain git for this command (else the test could not fail)."""
    touch_stat(repo)
    subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env=ENV, timeout=60,
                   stdin=subprocess.DEVNULL)
    assert marker.exists(), f"plain `git {' '.join(args)}` should run the plant"
    marker.unlink()
    touch_stat(repo)


# (plant, the plain git command that shows it is live)
STATUS_PLANTS = [("clean-config", "status"), ("process-config", "status"), ("required-info-attributes", "status"),
                 ("clean-include", "status"), ("clean-includeif", "status"),
                 ("clean-worktree-config", "status"), ("fsmonitor-include", "status"),
                 ("hook-includeif", "status")]


@pytest.mark.parametrize("kind", [k for k, _ in STATUS_PLANTS])
def test_observer_start_up_check_runs_nothing_the_repository_names(tmp_path, kind):
    repo = make_repo(tmp_path / "repo")
    marker = plant(repo, tmp_path, kind)
    live(repo, marker, "status", "--porcelain")
    changes = git_changes(repo, datetime.now().astimezone(), timeout=30)
    assert changes.git and changes.commits_12h == 2
    assert not marker.exists()


@pytest.mark.parametrize("kind", [k for k, _ in STATUS_PLANTS] + ["diff-external", "textconv"])
def test_coding_session_git_runs_nothing_the_repository_names(tmp_path, kind):
    repo = make_repo(tmp_path / "repo")
    marker = plant(repo, tmp_path, kind)
    live(repo, marker, *(["diff", "HEAD~1"] if kind in ("diff-external", "textconv") else ["status"]))
    vcs = GitVCS(repo)
    (repo / "f.txt").write_text("changed\n")
    change = vcs.start("task")
    assert vcs.dirty() and "+changed" in vcs.diff(change)
    assert not marker.exists()


@pytest.fixture
def ctx(home, tmp_path):
    settings = load_settings(home, tools={"roots": [str(tmp_path / "repo")],
                                          "exec_allow": ["git status", "git diff", "git log", "git show"]})
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


EXEC_CASES = [
    ("clean-config", "git status --porcelain"), ("clean-include", "git diff"),
    ("clean-includeif", "git status -s"), ("required-info-attributes", "git diff --stat"),
    ("clean-worktree-config", "git status"), ("fsmonitor-include", "git status"),
    ("hook-includeif", "git status --short"), ("diff-external", "git diff HEAD~1"),
    ("textconv", "git diff HEAD~1"), ("textconv", "git log -p -n 1"), ("textconv", "git show"),
    ("gpg-showsignature", "git log -n 1"), ("gpg-showsignature", "git show --stat"),
]


@pytest.mark.parametrize("kind,command", EXEC_CASES)
def test_allow_listed_git_runs_nothing_the_repository_names(ctx, tmp_path, kind, command):
    repo = make_repo(tmp_path / "repo")
    marker = plant(repo, tmp_path, kind)
    live(repo, marker, *command.split()[1:])
    out = Exec().run(Exec.Args(command=command, cwd=str(repo)), ctx)
    assert out.startswith("exit 0"), out
    assert not marker.exists()


@pytest.mark.parametrize("command,why", [
    ("git diff --output={victim} HEAD~1", "option '--output'"),
    ("git diff --output {victim} HEAD~1", "option '--output'"),
    ("git diff --no-index /etc/passwd /dev/null", "option '--no-index'"),
    ("git diff --ext-diff HEAD~1", "option '--ext-diff'"),
    ("git log --textconv -p", "option '--textconv'"),
    ("git log --show-signature", "option '--show-signature'"),
    ("git diff -O/etc/passwd", "path '/etc/passwd' is outside"),
    ("git show HEAD -- /etc/passwd", "path '/etc/passwd' is outside"),
    ("git log -- ../outside.txt", "path '../outside.txt' is outside"),
    ("git diff HEAD {victim}", "is outside"),
    ("git -c core.pager=touch log", "is not in tools.exec_allow"),
    ("git --git-dir=/tmp log", "is not in tools.exec_allow"),
    ("git status --porcelain --ignore-submodules=all --output=x", "option '--ignore-submodules'"),
])
def test_allow_listed_git_is_read_only_and_confined(ctx, tmp_path, command, why):
    repo = make_repo(tmp_path / "repo")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    with pytest.raises(ToolError, match="^exec refused") as e:
        Exec().run(Exec.Args(command=command.format(victim=victim), cwd=str(repo)), ctx)
    assert why in str(e.value)
    assert "not in tools.exec_allow" in why or "read-only and stay inside the roots" in str(e.value)
    assert victim.read_text() == "keep me\n"


def test_a_repository_whose_work_tree_or_git_dir_is_outside_the_roots_is_refused(ctx, tmp_path):
    repo = make_repo(tmp_path / "repo")
    secret = make_repo(tmp_path / "secret")  # a repository outside every root
    (secret / "f.txt").write_text("the secret\n")
    git(secret, "commit", "-qam", "secret commit")
    inner = repo / "inner"
    inner.mkdir()
    (inner / ".git").write_text(f"gitdir: {secret / '.git'}\n")  # a .git file pointing outside
    with pytest.raises(ToolError, match="outside the workspace and roots"):
        Exec().run(Exec.Args(command="git log -p", cwd=str(inner)), ctx)
    git(repo, "config", "core.worktree", str(secret))  # a work tree outside the roots
    with pytest.raises(ToolError, match="outside the workspace and roots"):
        Exec().run(Exec.Args(command="git diff", cwd=str(repo)), ctx)


def test_allowed_read_only_git_still_works(ctx, tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "f.txt").write_text("x\n")
    assert "f.txt" in Exec().run(Exec.Args(command="git status --porcelain", cwd=str(repo)), ctx)
    out = Exec().run(Exec.Args(command="git log --oneline -n 5", cwd=str(repo)), ctx)
    assert "second" in out and "first" in out
    assert "+x" in Exec().run(Exec.Args(command="git diff -- f.txt", cwd=str(repo)), ctx)
    assert "b" in Exec().run(Exec.Args(command="git show HEAD:f.txt", cwd=str(repo)), ctx)
