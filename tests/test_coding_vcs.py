"""The VCS interface on real repositories, the same suite for both backends (the jj half is skipped,
with the reason, where jj is not installed): start, describe, checkpoint, parent, diff, ancestry, and
change ids surviving amend and rebase."""

from __future__ import annotations

import shutil

import pytest

from nanobot.coding.vcs import CodingError, open_vcs
from tests.codingrepo import BACKENDS, Repo, isolate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(params=BACKENDS)
def repo(request, tmp_path, monkeypatch) -> Repo:
    isolate(monkeypatch, tmp_path)
    return Repo.make(request.param, tmp_path / "repo")


def test_backend_is_chosen_per_repository(repo):
    assert open_vcs(repo.path).kind == repo.kind
    assert open_vcs(repo.path / ".").root.resolve() == repo.path.resolve()


def test_not_a_repository_says_how_to_start_one(tmp_path):
    with pytest.raises(CodingError, match="not a git or jj repository; start one with `git init`"):
        open_vcs(tmp_path)


def test_start_describe_checkpoint_parent_diff(repo):
    vcs = open_vcs(repo.path)
    root = vcs.start("Add CSV export")
    assert vcs.current() == root and vcs.description(root) == "Add CSV export"
    vcs.describe("Add CSV export\n\nDone:\n- parser")
    assert vcs.description(root) == "Add CSV export\n\nDone:\n- parser"
    repo.write("csv.py", "import csv\n")
    assert "csv.py" in vcs.diff(root, stat=True)  # the working copy counts for the current change
    assert "+import csv" in vcs.diff(root)
    new = vcs.new_change("Next step")
    assert new != root and vcs.current() == new
    assert vcs.parent(new) == root and vcs.description(new) == "Next step"
    assert "+import csv" in vcs.diff(root)  # folded into the root change by the checkpoint
    assert vcs.diff(new, stat=True).strip() == ""
    assert vcs.dirty() == []
    assert vcs.is_ancestor(root, new) and not vcs.is_ancestor(new, root)
    assert vcs.exists(root) and not vcs.exists("I" + "0" * 40 if repo.kind == "git" else "zzzzzzzzzzzzkkkk")


def test_ids_survive_amend_and_rebase(repo):
    vcs = open_vcs(repo.path)
    root = vcs.start("task")
    repo.write("a.py", "a = 1\n")
    current = vcs.new_change("second")
    before = repo.run("log", "-1", "--format=%H") if repo.kind == "git" else repo.run(
        "log", "-r", "@", "--no-graph", "-T", "commit_id")
    repo.amend_file("b.py", "b = 2\n")  # git commit --amend (message kept)
    assert vcs.current() == current and vcs.parent(current) == root
    repo.rebase_on_new_base(root, current)  # git rebase onto a new upstream commit
    after = repo.run("log", "-1", "--format=%H") if repo.kind == "git" else repo.run(
        "log", "-r", "@", "--no-graph", "-T", "commit_id")
    assert after != before  # really rewritten...
    assert vcs.current() == current and vcs.parent(current) == root  # ...and the ids survived
    assert vcs.description(root) == "task" and vcs.exists(root)
    assert (repo.path / "upstream.txt").exists() and "b.py" in vcs.diff(current, stat=True)
