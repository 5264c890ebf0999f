"""A repository prepared by someone else cannot make nanobot's coding-session git commands run its
programs: core.fsmonitor, hooks, core.pager, filter/textconv drivers, diff.external, a signing program.

Each plant is first shown to run under plain git (so the test can fail); then a whole session (start,
edits, diff, checkpoint, describe, query) runs through ``nanobot.base.gitsafe`` and none of them runs.
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
from pathlib import Path

import pytest

from nanobot.base.gitsafe import git_cmd, git_env
from nanobot.coding.query import query
from nanobot.coding.session import CodingSession
from nanobot.config import load_settings
from tests.codingrepo import Repo, isolate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

HOOKS = ["pre-commit", "commit-msg", "post-commit", "post-index-change", "post-rewrite",
         "reference-transaction", "prepare-commit-msg"]


def script(tmp: Path, name: str) -> tuple[Path, Path]:
    marker = tmp / f"ran-{name}"
    path = tmp / f"evil-{name}.sh"
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    path.chmod(0o755)
    return path, marker


def plant_all(repo: Repo, tmp: Path) -> dict[str, Path]:
    markers = {}
    for kind in ("fsmonitor", "pager", "clean", "textconv", "external", "gpg"):
        markers[kind] = script(tmp, kind)
    cfg = {"core.fsmonitor": "fsmonitor", "core.pager": "pager", "filter.evil.clean": "clean",
           "diff.evil.textconv": "textconv", "diff.external": "external", "gpg.program": "gpg"}
    for key, kind in cfg.items():
        repo.run("config", key, str(markers[kind][0]))
    repo.run("config", "commit.gpgSign", "true")
    repo.write(".gitattributes", "* filter=evil diff=evil\n")
    hooks = repo.path / ".git" / "hooks"
    out = {k: m for k, (_, m) in markers.items()}
    for hook in HOOKS:
        path, marker = script(tmp, hook)
        (hooks / hook).write_text(path.read_text())
        (hooks / hook).chmod(0o755)
        out[hook] = marker
    return out


def plain_git_runs_them(repo: Repo, markers: dict[str, Path]) -> None:
    """Proof that each plant is live: plain git runs it."""
    env = {**os.environ}
    subprocess.run(["git", "add", "-A"], cwd=repo.path, env=env, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=repo.path, env=env, capture_output=True)  # gpg
    unsigned = ["git", "-c", "commit.gpgSign=false", "commit", "-q"]
    subprocess.run([*unsigned, "-m", "x"], cwd=repo.path, env=env, capture_output=True)  # the hooks
    subprocess.run([*unsigned, "--amend", "--no-edit"], cwd=repo.path, env=env, capture_output=True)
    subprocess.run(["git", "status"], cwd=repo.path, env=env, capture_output=True)
    repo.write("base0.txt", "changed\n")
    subprocess.run(["git", "diff"], cwd=repo.path, env=env, capture_output=True)
    subprocess.run(["git", "diff", "--no-ext-diff"], cwd=repo.path, env=env, capture_output=True)
    in_tty(["git", "log", "-1"], repo.path, env)
    subprocess.run(["git", "checkout", "-q", "--", "base0.txt"], cwd=repo.path, env=env, capture_output=True)
    missing = [k for k, m in markers.items() if not m.exists()]
    assert not missing, f"plants that plain git did not run: {missing}"
    for m in markers.values():
        m.unlink()


def in_tty(argv: list[str], cwd: Path, env: dict) -> None:
    """Run with stdout on a terminal (git only pages to a terminal)."""
    master, slave = pty.openpty()
    try:
        subprocess.run(argv, cwd=cwd, env=env, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, timeout=20)
    finally:
        os.close(slave)
        os.close(master)


def test_a_prepared_repository_cannot_hijack_a_coding_session(tmp_path, monkeypatch, home):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    markers = plant_all(repo, tmp_path)
    plain_git_runs_them(repo, markers)
    settings = load_settings()
    s = CodingSession.start(settings, repo.path, "task")
    repo.write("base0.txt", "edited\n")
    repo.write("new.txt", "new\n")
    assert "new.txt" in s.vcs.diff(s.current, stat=True) and "+edited" in s.vcs.diff(s.current)
    s.describe("task\n\nDone:\n- edits")
    s.checkpoint()
    assert "+new" in query(s, "@-", ["description", "diff"])
    in_tty(git_cmd(repo.path, "log", "-1"), repo.path, git_env())
    ran = [k for k, m in markers.items() if m.exists()]
    assert ran == [], f"nanobot's git ran the repository's programs: {ran}"
