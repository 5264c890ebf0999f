"""Smaller holes (issue 28, class 5): values read from files are data, one writer at a time for a coding
session's metadata, and files rewritten by nanobot keep their permission bits.

- A housekeeping job file, a vault pending intent and a coding session's meta.json crafted to carry
  a path (``../../outside``, an absolute path, a non-model file) never make nanobot read or write
  outside its folders: the job is set aside, the intent dropped, the session not found.
- Two commands that opened one coding session both checkpoint: both changes stay in its metadata
  (in one process and across real processes); nanobot's git reads take no optional index lock.
- write_file, edit_file, knowledge_apply and the user-file merge keep 0755/0644/0640; a new file
  gets the umask's mode, not 0600.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.base.userfile import update_user_file
from nanobot.coding import store
from nanobot.coding.session import CodingSession
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.vault.ledger import ledger_path
from nanobot.vault.tools import KnowledgeApply
from nanobot.workspace import init_workspace
from tests.codingrepo import Repo, isolate
from tests.conftest import ROOT, cli_env, run_cli

LEAN = {"NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_OBSERVER__RECOVER_MAX": "0"}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- paths from files ------------------------------------------------------------------------------
@pytest.mark.parametrize("session,model", [("../../outside", ""), ("/tmp/nanobot-abs-outside", ""),
                                            ("a/../../../outside", ""), ("ok-session", "/etc/passwd")])
def test_a_crafted_job_file_is_set_aside_not_followed(home, session, model):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    jobs = home / "housekeep"
    jobs.mkdir(parents=True)
    now = datetime.now().astimezone().isoformat()
    job = {"session": session, "reason": "quit", "model": model, "started": now, "ended": now,
           "system": "You are helpful.", "history": [{"role": "user", "content": "my cat is Miso"},
                                                     {"role": "assistant", "content": "Nice."}]}
    (jobs / "x.json").write_text(json.dumps(job))
    out = run_cli("housekeep", "--model", "smollm2", home=home, env=LEAN, timeout=600)
    assert "Traceback" not in out.stderr
    assert (jobs / "x.bad").exists() and not (jobs / "x.json").exists()
    assert not (home / "outside.md").exists() and not (home.parent / "outside.md").exists()
    assert not Path("/tmp/nanobot-abs-outside.md").exists()
    assert list((settings.workspace / "observations").glob("*.md")) == [] if \
        (settings.workspace / "observations").is_dir() else True


def test_a_crafted_pending_intent_is_dropped_not_followed(home, tmp_path):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    ctx = ToolContext(settings=settings)
    outside = home / "outside.md"
    outside.write_text("not nanobot's\n")
    pending = settings.workspace / "audit" / "pending.json"
    pending.parent.mkdir(parents=True, exist_ok=True)
    pending.write_text(json.dumps({"ts": "2026-01-01T00:00:00Z", "actor": "model", "action": "update",
                                   "path": "knowledge/../../outside.md", "sha_before": "0" * 64,
                                   "sha_after": "1" * 64, "id": "evil"}))
    KnowledgeApply().run(KnowledgeApply.Args(action="create", path="a.md", summary="A", change_summary="new",
                                             reason="r", content="# A\n"), ctx)
    assert not pending.exists()
    assert ".." not in ledger_path(settings.workspace).read_text()
    assert outside.read_text() == "not nanobot's\n"


def test_a_crafted_session_root_never_becomes_a_path(home, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    settings = load_settings(home)
    folder = settings.sessions_dir / "Iaaaa"
    folder.mkdir(parents=True)
    now = datetime.now().astimezone().isoformat()
    (folder / "meta.json").write_text(json.dumps({
        "root": "../../evil", "task": "t", "backend": "git", "repo": str(repo.path),
        "changes": ["../../evil"], "current": "../../evil", "started": now, "last_active": now}))
    out = run_cli("session", "resume", "../../evil", home=home, input="hi\n", timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "no coding session" in out.stderr or "not a change of any coding session" in out.stderr
    assert not (home.parent / "evil").exists() and not (tmp_path / "evil").exists()


# -- one writer at a time --------------------------------------------------------------------------
def test_two_commands_on_one_session_both_keep_their_checkpoint(home, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    settings = load_settings(home)
    root = CodingSession.start(settings, repo.path, "task").root
    first, second = CodingSession.open(settings, root), CodingSession.open(settings, root)
    a = first.checkpoint()
    b = second.checkpoint()  # opened before a was written
    meta = store.load_meta(store.session_dir(settings.sessions_dir, root))
    assert meta.changes == [root, a, b] and meta.current == b


def test_concurrent_processes_lose_no_checkpoint(home, tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    settings = load_settings(home)
    root = CodingSession.start(settings, repo.path, "task").root
    code = ("import sys\nfrom nanobot.config import load_settings\n"
            "from nanobot.coding.session import CodingSession\n"
            "s = CodingSession.open(load_settings(), sys.argv[1])\n"
            "for _ in range(3):\n    s.checkpoint()\n")
    env = cli_env(home, {k: v for k, v in os.environ.items() if k.startswith("GIT_")})
    procs = [subprocess.Popen([sys.executable, "-c", code, root], env=env, cwd=ROOT,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    meta = store.load_meta(store.session_dir(settings.sessions_dir, root))
    assert len(meta.changes) == 7 and len(set(meta.changes)) == 7


def test_a_status_read_never_holds_the_index_lock(home, tmp_path, monkeypatch):
    """A checkpoint's pre-check reads ``git status`` outside the session lock; were that read
    to refresh the index it would hold ``index.lock`` while another process commits (which then
    fails with "index.lock: File exists"). A stale index stays as it is after the read."""
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    settings = load_settings(home)
    session = CodingSession.start(settings, repo.path, "task")
    (repo.path / "tracked.txt").write_text("one\n")
    subprocess.run(["git", "-C", str(repo.path), "add", "tracked.txt"], check=True)
    index = repo.path / ".git" / "index"
    before = index.read_bytes()
    os.utime(repo.path / "tracked.txt", (1_000_000_000, 1_000_000_000))  # stat differs: index stale
    assert session.vcs.dirty() == ["tracked.txt"]
    assert index.read_bytes() == before


# -- permission bits -------------------------------------------------------------------------------
def test_rewritten_files_keep_their_permission_bits(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    ctx = ToolContext(settings=settings)
    ws = settings.workspace
    script, note, doc = ws / "run.sh", ws / "note.md", ws / "knowledge" / "d.md"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o755)
    note.write_text("old\n")
    note.chmod(0o644)
    WriteFile().run(WriteFile.Args(path="run.sh", content="#!/bin/sh\necho new\n"), ctx)
    EditFile().run(EditFile.Args(path="note.md", old="old", new="new"), ctx)
    assert (mode(script), mode(note)) == (0o755, 0o644)
    KnowledgeApply().run(KnowledgeApply.Args(action="create", path="d.md", summary="D", change_summary="c",
                                             reason="r", content="# D\n"), ctx)
    doc.chmod(0o664)
    KnowledgeApply().run(KnowledgeApply.Args(action="update", path="d.md", summary="D2", change_summary="c2",
                                             reason="r", content="# D2\n"), ctx)
    assert mode(doc) == 0o664
    memory = ws / "MEMORY.md"
    memory.chmod(0o640)
    update_user_file(memory, lambda old: old + "- a fact\n")
    assert mode(memory) == 0o640 and "- a fact" in memory.read_text()
    old_umask = os.umask(0o022)
    try:
        WriteFile().run(WriteFile.Args(path="fresh.txt", content="x"), ctx)
    finally:
        os.umask(old_umask)
    assert mode(ws / "fresh.txt") == 0o644
