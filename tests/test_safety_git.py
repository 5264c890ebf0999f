"""The exec allow-list bypass, for real: a repository whose config or hooks name a program.

Attack: write_file puts ``core.fsmonitor = ./evil`` into ``.git/config`` (or a hook into
``.git/hooks``), then an allow-listed ``git status`` or the observer's start-up ``git status`` runs it.
Each test first shows with plain git that the planted program really runs, then that nanobot never
writes it and never runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.base.errors import ToolError
from nanobot.base.gitsafe import git_cmd, git_env
from nanobot.config import load_settings
from nanobot.observer.external import git_changes
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.tools.shell import Exec

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def make_repo(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", ".")
    (repo / "f.txt").write_text("a\n")
    git(repo, "add", "f.txt")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "first")
    return repo


def plant(repo: Path, tmp_path: Path, kind: str) -> Path:
    """A program that touches a marker file, wired as core.fsmonitor or a post-index-change hook."""
    marker = tmp_path / f"ran-{kind}"
    script = tmp_path / f"evil-{kind}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    script.chmod(0o755)
    if kind == "fsmonitor":
        git(repo, "config", "core.fsmonitor", str(script))
    else:
        hook = repo / ".git" / "hooks" / "post-index-change"
        hook.write_text(script.read_text())
        hook.chmod(0o755)
    return marker


def stale_index(repo: Path) -> None:
    """Make ``git status`` refresh (and so rewrite) the index: the hook fires on that write."""
    st = (repo / "f.txt").stat()
    os.utime(repo / "f.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def plain_status_runs(repo: Path, marker: Path) -> bool:
    stale_index(repo)
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, check=True)
    ran = marker.exists()
    marker.unlink(missing_ok=True)
    return ran


@pytest.fixture
def ctx(home, tmp_path):
    extra = tmp_path / "project"
    make_repo(extra)
    settings = load_settings(home, tools={"roots": [str(extra)], "exec_allow": ["git status"]})
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


# -- the file tools never write VCS metadata -------------------------------------------------------
@pytest.mark.parametrize("path", [
    ".git/config", ".git/hooks/post-index-change", "sub/.git/config", ".git", "deep/er/.GIT/hooks/x",
    ".hg/hgrc", ".jj/repo/config.toml", ".svn/entries",
])
def test_write_file_refuses_vcs_metadata_in_the_workspace(ctx, path):
    make_repo(ctx.workspace)
    before = (ctx.workspace / ".git" / "config").read_text()
    with pytest.raises(ToolError, match="refused: it is inside version-control metadata"):
        WriteFile().run(WriteFile.Args(path=path, content="[core]\n\tfsmonitor = ./evil\n"), ctx)
    assert (ctx.workspace / ".git" / "config").read_text() == before
    target = ctx.workspace / path
    assert not target.is_file() or "evil" not in target.read_text()


def test_edit_file_refuses_a_roots_git_config(ctx, tmp_path):
    config = tmp_path / "project" / ".git" / "config"
    before = config.read_text()
    with pytest.raises(ToolError, match="version-control metadata"):
        EditFile().run(EditFile.Args(path=str(config), old="[core]", new="[core]\n\tfsmonitor = /x"), ctx)
    assert config.read_text() == before


def test_a_git_file_target_and_a_home_made_repository_are_refused(ctx, tmp_path):
    # a worktree whose .git is a file pointing at a separate git dir (no ".git" in that path)
    store = tmp_path / "project" / "store"
    wt = ctx.workspace / "wt"
    wt.mkdir()
    git(wt, "init", "-q", f"--separate-git-dir={store}")
    assert (wt / ".git").is_file() and (store / "config").is_file()
    with pytest.raises(ToolError, match="is a git repository's metadata folder"):
        WriteFile().run(WriteFile.Args(path=str(store / "config"), content="x"), ctx)
    with pytest.raises(ToolError, match="git repository's metadata folder"):
        WriteFile().run(WriteFile.Args(path=str(store / "hooks" / "post-index-change"), content="x"), ctx)
    # building a bare repository file by file: the write that would complete it is refused
    WriteFile().run(WriteFile.Args(path="bare/objects/keep", content=""), ctx)
    WriteFile().run(WriteFile.Args(path="bare/config", content="[core]\n\tfsmonitor = /x\n"), ctx)
    with pytest.raises(ToolError, match="git repository's metadata folder"):
        WriteFile().run(WriteFile.Args(path="bare/HEAD", content="ref: refs/heads/main\n"), ctx)


def test_nanobots_own_config_and_state_are_refused(home, tmp_path):
    settings = load_settings(home, tools={"roots": [str(home)]})  # even when home itself is a root
    settings.workspace.mkdir(parents=True)
    ctx = ToolContext(settings=settings)
    for path in (str(home / "config.toml"), str(home / "state" / "x.json"), "nanobot.db", "nanobot.db-wal"):
        with pytest.raises(ToolError, match="refused: it is nanobot's own|refused: it is nanobot's cron"):
            WriteFile().run(WriteFile.Args(path=path, content="[tools]\nexec_allow = ['sh']\n"), ctx)
    assert not (home / "config.toml").exists()
    # prompt material the user asks the model to edit stays writable
    for path in ("USER.md", "skills/deploy.md", "notes/git.md"):  # a CI workflow asks first: test_hostile_autorun
        assert WriteFile().run(WriteFile.Args(path=path, content="ok"), ctx).startswith("created")


# -- git runs hardened: nanobot's own and exec's allow-listed -------------------------------------
@pytest.mark.parametrize("kind", ["fsmonitor", "hook"])
def test_observer_git_status_never_runs_the_repositorys_programs(tmp_path, kind):
    repo = make_repo(tmp_path / "repo")
    marker = plant(repo, tmp_path, kind)
    assert plain_status_runs(repo, marker), "the planted program should run under plain git"
    (repo / "new.txt").write_text("x")
    stale_index(repo)
    changes = git_changes(repo, datetime.now().astimezone(), timeout=30)
    assert changes.git and changes.untracked == 1 and not changes.partial
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["fsmonitor", "hook"])
def test_allow_listed_git_status_never_runs_the_repositorys_programs(ctx, tmp_path, kind):
    repo = tmp_path / "project"
    marker = plant(repo, tmp_path, kind)
    assert plain_status_runs(repo, marker), "the planted program should run under plain git"
    stale_index(repo)
    out = Exec().run(Exec.Args(command="git status --porcelain", cwd=str(repo)), ctx)
    assert out.startswith("exit 0")
    assert not marker.exists()


def test_git_env_appends_to_the_users_own_git_config_env():
    env = git_env({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"})
    assert env["GIT_CONFIG_KEY_0"] == "user.name" and env["GIT_CONFIG_VALUE_0"] == "me"
    keys = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))}
    assert keys["core.fsmonitor"] == "false" and keys["core.hooksPath"] == "/dev/null"
    assert env["GIT_PAGER"] == "cat"
    argv = git_cmd("/r", "status")
    assert argv[:2] == ["git", "--no-pager"] and argv[-3:] == ["-C", "/r", "status"]
    assert "diff.external=" in argv and "core.pager=cat" in argv
