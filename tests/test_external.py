"""External change detection against real git repositories in temporary folders."""

import os
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path

from nanobot.observer import external
from nanobot.observer.external import changed_since, detect, git_changes
from tests.housekeeping import alive

NOW = datetime.now().astimezone()


def git(repo: Path, *args: str, date: datetime | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date.isoformat()
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    for name, age in (("old.txt", timedelta(days=2)), ("a.txt", timedelta(hours=3)),
                      ("b.txt", timedelta(hours=1))):
        (path / name).write_text(name)
        git(path, "add", name)
        git(path, "commit", "-q", "-m", f"add {name}", date=NOW - age)
        os.utime(path / name, ((NOW - age).timestamp(),) * 2)
    return path


def test_git_counts_status_and_recent_commits(tmp_path):
    repo = make_repo(tmp_path / "proj")
    (repo / "a.txt").write_text("changed")  # modified, unstaged
    (repo / "new.txt").write_text("new")
    git(repo, "add", "new.txt")  # added, staged
    (repo / "old.txt").unlink()  # deleted
    (repo / "scratch1.txt").write_text("x")  # untracked
    (repo / "scratch2.txt").write_text("y")
    ch = git_changes(repo, NOW, timeout=5)
    assert ch.git and not ch.partial
    assert (ch.modified, ch.untracked, ch.commits_12h) == (3, 2, 2)
    assert ch.line("proj") == "proj: git: 3 modified, 2 untracked; 2 commits in the last 12 h"


def test_clean_repo_and_injected_clock(tmp_path):
    repo = make_repo(tmp_path / "proj")
    ch = git_changes(repo, NOW, timeout=5)
    assert (ch.modified, ch.untracked, ch.commits_12h) == (0, 0, 2) and ch.git
    later = git_changes(repo, NOW + timedelta(days=1), timeout=5)
    assert later.commits_12h == 0 and later.line("proj") == ""


def test_git_log_reads_at_most_the_five_most_recent_commits(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "proj")
    for i in range(6):  # eight commits in the last 12 hours in all
        (repo / f"c{i}.txt").write_text(str(i))
        git(repo, "add", f"c{i}.txt")
        git(repo, "commit", "-q", "-m", f"c{i}", date=NOW - timedelta(minutes=50 - i))
    calls = []
    real = external._git
    monkeypatch.setattr(external, "_git", lambda *a: calls.append(a[2:]) or real(*a))
    ch = git_changes(repo, NOW, timeout=5)
    log = next(c for c in calls if c[0] == "log")
    assert "--max-count=5" in log and ch.commits_12h == 5
    assert ch.line("proj") == "proj: 5+ commits in the last 12 h"
    # an injected clock 11 h 12.5 min later: only the commits 47, 46 and 45 min ago are inside 12 h
    later = git_changes(repo, NOW + timedelta(hours=11, minutes=12, seconds=30), timeout=5)
    assert later.commits_12h == 3 and later.line("proj") == "proj: 3 commits in the last 12 h"


def test_not_a_repo_or_missing_dir_is_skipped_silently(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "f.txt").write_text("x")
    assert not git_changes(plain, NOW, timeout=5).git
    assert detect([("plain", plain), ("gone", tmp_path / "gone")], NOW, None, timeout=5) == []


def test_no_git_installed_is_skipped(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "proj")
    (repo / "a.txt").write_text("changed")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert not git_changes(repo, NOW, timeout=5).git


def test_files_changed_since_last_session_skip_nanobots_own(tmp_path):
    ws = tmp_path / "ws"
    (ws / "observations").mkdir(parents=True)
    (ws / ".history").mkdir()
    last = NOW - timedelta(hours=2)
    for name in ("USER.md", "CONTEXT.md", "old.md", "observations/x.md", ".history/y.md", "memory.db"):
        (ws / name).write_text("x")
    old = (last - timedelta(hours=1)).timestamp()
    os.utime(ws / "old.md", (old, old))
    ignore = {"CONTEXT.md": (ws / "CONTEXT.md").stat().st_mtime_ns}  # nanobot wrote it
    files, partial = changed_since(ws, last, ignore=ignore)
    assert files == ["USER.md"] and not partial
    time.sleep(0.01)
    (ws / "CONTEXT.md").write_text("edited by the user")  # changed again after nanobot
    files, _ = changed_since(ws, last, ignore=ignore)
    assert sorted(files) == ["CONTEXT.md", "USER.md"]


def test_detect_reports_each_dir_and_file_cap(tmp_path):
    repo = make_repo(tmp_path / "proj")
    (repo / "a.txt").write_text("changed")
    lines = detect([("proj", repo)], NOW, NOW - timedelta(minutes=30), timeout=5)
    assert lines == ["proj: git: 1 modified, 0 untracked; 2 commits in the last 12 h; "
                     "1 file(s) changed since the last session (a.txt)"]
    files, partial = changed_since(repo, NOW - timedelta(days=9), max_files=2)
    assert partial and len(files) <= 2


def test_a_hanging_git_cannot_stall_start_up(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "proj")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    pids = tmp_path / "pids"
    fake.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 10\n")  # exec: the hung git is the sleep
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    start = time.monotonic()
    ch = git_changes(repo, NOW, timeout=0.3)
    assert time.monotonic() - start < 3
    assert ch.partial and ch.modified == 0
    assert pids.exists() and not [p for p in pids.read_text().split() if alive(int(p))]  # killed, not left
