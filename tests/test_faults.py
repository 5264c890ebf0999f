"""Fault injection: kill -9 at named points, damaged SQLite pages, bad bytes, a read-only home, a full
disk, concurrent writers. Every case checks the same four things: no line the user wrote is lost, no
message the user sent is lost, the user gets a clear message (never a traceback), and the next start
works. Run just these with ``python -m pytest -m faults``.

Kill points are named in ``nanobot/base/faults.py`` (``NANOBOT_FAULT=name`` -> SIGKILL there). Mid-knowledge-write
and mid-ledger-append are covered in tests/test_vault_apply.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.observer.observation import Observation, ObservationDraft, ObservationPart
from tests.conftest import ROOT, cli_env
from tests.housekeeping import wait_housekept

pytestmark = pytest.mark.faults

LEAN = {"NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_OBSERVER__ENABLED": "false",
        "NANOBOT_TOOLS__ENABLED": "[]", "NANOBOT_CHAT__MAX_TOKENS": "8"}
NOW = datetime(2026, 3, 10, 12, 0).astimezone()
USER_MEMORY = "# Memory\n\n## About Ada\n- Ada prefers short answers.\n- Ada's cat is called Miso.\n"


def env_for(home: Path, extra: dict | None = None) -> dict:
    return cli_env(home, {"PYTHONUNBUFFERED": "1"} | (extra or {}))  # the session's model settings too


def nanobot(*args: str | bytes, home: Path, input: bytes = b"", env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """The real CLI with byte input and byte arguments; stdout/stderr decoded with replacement."""
    proc = subprocess.run([sys.executable, "-m", "nanobot", *args], input=input, capture_output=True,
                          env=env_for(home, env), timeout=timeout, cwd=ROOT)
    proc.stdout = proc.stdout.decode(errors="replace")
    proc.stderr = proc.stderr.decode(errors="replace")
    return proc


def clean(proc: subprocess.CompletedProcess) -> None:
    """A clear message, never a traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr


def records(home: Path) -> list:
    out = []
    for path in list_transcripts(home / "sessions"):
        out += read_transcript(path)[0]
    return out


def said(home: Path) -> list[str]:
    return [r.content for r in records(home) if r.role == "user"]


def workspace(home: Path) -> Path:
    ws = home / "workspace"
    if not ws.exists():
        from nanobot.workspace import init_workspace
        init_workspace(ws)
    return ws


def write_observation(ws: Path, sid: str, facts: list[str]) -> None:
    draft = ObservationDraft(summary="csv work", focus="csv parser", facts=facts,
                             evidence={f: f for f in facts})  # grounded: said word for word
    part = ObservationPart.of(draft, "quit", 3, at=NOW)
    (ws / "observations" / f"{sid}.md").write_text(Observation(session=sid, parts=[part]).render())


def wait_for(path: Path, proc: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def damage_pages(db: Path, seed: int = 1) -> None:
    """Overwrite every page but the first (the header stays valid) with garbage."""
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    raw = bytearray(db.read_bytes())
    page = int.from_bytes(raw[16:18], "big") or 65536
    junk = bytes((seed * 131 + i * 7) % 256 for i in range(len(raw)))
    raw[page:] = junk[page:]
    db.write_bytes(bytes(raw))


def unshare_ok() -> bool:
    if shutil.which("unshare") is None:
        return False
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
    return r.returncode == 0


# -- hole 1: the reflector and a concurrent user edit -------------------------------------------
def test_reflector_keeps_a_line_the_user_adds_while_it_runs(home):
    """In-process: the user appends a line while the reflector computes its merge."""
    from nanobot.config import load_settings
    from nanobot.observer.reflector import lexical_similarity, reflect

    settings = load_settings()
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY)
    write_observation(ws, "20260310-100000-abcd", ["Ada is writing a CSV parser in Rust."])
    edited = []

    def similarity(a, b):
        if not edited:  # the user's editor saves while the reflector works
            with open(ws / "MEMORY.md", "a") as f:
                f.write("- Ada's sister is called Eve.\n")
            edited.append(True)
        return lexical_similarity(a, b)

    report = reflect(settings, now=NOW, similarity=similarity)
    mem = (ws / "MEMORY.md").read_text()
    assert "- Ada's sister is called Eve.\n" in mem  # the user's line survives
    assert mem.startswith(USER_MEMORY)
    assert report.added == ["Ada is writing a CSV parser in Rust."] and "CSV parser in Rust" in mem


def test_reflect_cli_keeps_a_line_added_mid_reflection(home):
    """The real ``nanobot reflect`` paused between its merge and its write; the user edits then."""
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY)
    write_observation(ws, "20260310-100000-abcd", ["Ada is writing a CSV parser in Rust."])
    gate = home / "fault-reflect-write.paused"
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "reflect", "--no-observe"],
                            env=env_for(home, {"NANOBOT_FAULT": "reflect-write:pause"}),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    wait_for(gate, proc)
    with open(ws / "MEMORY.md", "a") as f:
        f.write("- my line, added during reflection\n")
    gate.unlink()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and "Traceback" not in err, err
    mem = (ws / "MEMORY.md").read_text()
    assert "- my line, added during reflection\n" in mem and mem.startswith(USER_MEMORY)
    assert "CSV parser in Rust" in mem


def test_reflector_filters_junk_and_memory_tags(home):
    from nanobot.config import load_settings
    from nanobot.observer.reflector import lexical_similarity, reflect

    settings = load_settings()
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY)
    write_observation(ws, "20260310-100000-abcd", [",", "- ...", "Ada's dog is Rex (MEMORY.md:3)"])
    reflect(settings, now=NOW, similarity=lexical_similarity)
    mem = (ws / "MEMORY.md").read_text()
    assert "- Ada's dog is Rex (2026-03-10, session 20260310-100000-abcd)\n" in mem
    assert "- ,\n" not in mem and "(MEMORY.md:" not in mem and "- ...\n" not in mem


# -- hole 2: bytes that are not UTF-8 ------------------------------------------------------------
@pytest.mark.parametrize("memory", ["true", "false"])
def test_non_utf8_stdin_is_replaced_and_every_line_answered(home, memory):
    env = LEAN | {"NANOBOT_MEMORY__ENABLED": memory}
    if memory == "true":
        (workspace(home) / "MEMORY.md").write_text(USER_MEMORY)
    r = nanobot("chat", home=home, input=b"caf\xe9 hi\nsecond\n", env=env)
    clean(r)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Nano:") == 2
    assert r.stderr.count("not UTF-8") == 1  # reported once
    assert said(home) == ["caf\ufffd hi", "second"]


def test_non_utf8_arguments_to_memory_search_and_prompt(home):
    (workspace(home) / "MEMORY.md").write_text(USER_MEMORY)
    for args in (("memory", "search", b"caf\xe9 cat"), ("prompt", "--query", b"caf\xe9 cat")):
        r = nanobot(*args, home=home)
        clean(r)
        assert r.returncode == 0, r.stderr
        assert "not UTF-8" in r.stderr
    assert any("Miso" in t for t in search("cat Miso"))


# -- hole 3: a damaged memory index --------------------------------------------------------------
def service():
    """A fresh in-process memory service for this test's home (the embedder is loaded once)."""
    from nanobot.config import load_settings
    from nanobot.memory.service import MemoryService, get_embedder

    settings = load_settings()
    return MemoryService(settings, embedder=get_embedder(settings))


def search(query: str) -> list[str]:
    svc = service()
    try:
        return [h.text for h in svc.search(query, 3)]
    finally:
        svc.close()


def index_memory(home: Path) -> Path:
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY + "- The Zephyr service listens on port 8443.\n")
    svc = service()
    svc.refresh()
    svc.close()
    return ws / "memory.db"


@pytest.mark.parametrize("damage", ["pages", "whole"])
def test_damaged_memory_db_is_rebuilt_and_the_message_kept(home, damage):
    db = index_memory(home)
    if damage == "pages":
        damage_pages(db)
    else:
        db.write_bytes(os.urandom(db.stat().st_size))
    r = nanobot("chat", home=home, input=b"Which port does Zephyr use?\n",
                env=LEAN | {"NANOBOT_MEMORY__ENABLED": "true"})
    clean(r)
    assert r.returncode == 0, r.stderr
    assert said(home) == ["Which port does Zephyr use?"]
    assert r.stderr.count("memory.db was damaged") == 1, r.stderr
    assert any("8443" in t for t in search("Zephyr port"))  # the next start works


def test_reindex_full_rebuilds_a_damaged_db(home):
    db = index_memory(home)
    damage_pages(db, seed=3)
    r = nanobot("memory", "reindex", "--full", home=home)
    clean(r)
    assert r.returncode == 0 and "damaged" in r.stderr, r.stderr
    assert any("Zephyr" in t for t in search("Zephyr"))


# -- hole 4: one Latin-1 byte in a user file -----------------------------------------------------
def test_latin1_byte_in_memory_md_is_indexed_and_warned(home):
    ws = workspace(home)
    (ws / "MEMORY.md").write_bytes(USER_MEMORY.encode() + "- Ada drinks caf\xe9 au lait; Zephyr runs on port 8443.\n".encode("latin-1"))
    svc = service()
    warnings = svc.refresh().warnings
    svc.close()
    assert any("MEMORY.md is not valid UTF-8" in w and "re-save" in w for w in warnings)
    hits = nanobot("memory", "search", "Zephyr port", home=home)
    assert "8443" in hits.stdout and "MEMORY.md" in hits.stdout  # the file stays in retrieval
    chat = nanobot("chat", home=home, input=b"hello\n", env=LEAN)
    assert chat.returncode == 0 and chat.stderr.count("MEMORY.md is not valid UTF-8") == 1, chat.stderr


USER_FILES = ["SOUL.md", "USER.md", "CONTEXT.md", "MEMORY.md", "knowledge/notes.md",
              "observations/20260310-100000-abcd.md"]


def test_non_utf8_in_every_user_file(home):
    ws = workspace(home)
    for name in USER_FILES:
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        line = "- Ada's favourite caf\xe9 is Lumen."
        if name == "CONTEXT.md":  # in a section of the user's own (Now/Recent/External are nanobot's)
            line = "## Notes\n" + line
        old = path.read_bytes() if path.exists() else b""
        path.write_bytes(old + (line + "\n").encode("latin-1"))
    r = nanobot("chat", home=home, input=b"hello there\n", env=LEAN | {"NANOBOT_OBSERVER__ENABLED": "true"})
    clean(r)
    assert r.returncode == 0, r.stderr
    assert said(home) == ["hello there"]
    for name in USER_FILES[:4]:
        assert r.stderr.count(f"{name} is not valid UTF-8") == 1, r.stderr
    for name in USER_FILES:  # the user's line is still there
        text = (ws / name).read_bytes().decode("utf-8", errors="replace")
        assert "favourite caf" in text and "is Lumen." in text, name
    p = nanobot("prompt", home=home)
    clean(p)
    assert p.returncode == 0, p.stderr


# -- hole 5: /model with a typo ------------------------------------------------------------------
def test_model_typo_keeps_the_session(home):
    r = nanobot("chat", home=home, input=b"/model /typo.gguf\nhello\n", env=LEAN)
    clean(r)
    assert r.returncode == 0, r.stderr
    assert "Error:" in r.stderr and "typo.gguf" in r.stderr
    assert r.stdout.count("Nano:") == 1
    recs = records(home)
    assert [x.content for x in recs if x.role == "user"] == ["hello"]
    assert recs[-1].role == "event" and recs[-1].content == "session end"


# -- kill -9 at named points ---------------------------------------------------------------------
@pytest.mark.parametrize("point", ["reply-streaming", "transcript-append"])
def test_kill_mid_reply_keeps_the_user_message(home, point):
    r = nanobot("chat", home=home, input=b"remember the blue door\n", env=LEAN | {"NANOBOT_FAULT": point})
    assert r.returncode == -signal.SIGKILL
    assert said(home) == ["remember the blue door"]
    again = nanobot("chat", home=home, input=b"and again\n", env=LEAN)  # the next start works
    clean(again)
    assert again.returncode == 0 and again.stdout.count("Nano:") == 1, again.stderr
    assert said(home) == ["remember the blue door", "and again"]
    first = list_transcripts(home / "sessions")[0]
    warnings = read_transcript(first)[1]
    assert len(warnings) == (1 if point == "transcript-append" else 0)  # the torn record, skipped


def indexed(db: Path) -> tuple[list, list]:
    """The index's own rows (sources, chunks), read straight from the file: no refresh runs first."""
    import sqlite3

    conn = sqlite3.connect(db)  # plain tables only: no extension needed; a hot journal rolls back here
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return (conn.execute("SELECT * FROM sources ORDER BY path").fetchall(),
                conn.execute("SELECT source, line, text FROM chunks ORDER BY id").fetchall())
    finally:
        conn.close()


def test_kill_mid_reindex_rolls_back(home):
    db = index_memory(home)
    before = indexed(db)
    with open(db.parent / "MEMORY.md", "a") as f:
        f.write("- Ada's sister is called Eve.\n")
    r = nanobot("memory", "reindex", home=home, env={"NANOBOT_FAULT": "reindex-write"})
    assert r.returncode == -signal.SIGKILL
    assert indexed(db) == before  # the killed transaction left nothing: not the new line, no torn rows
    assert not any("Eve" in text for _, _, text in indexed(db)[1])
    assert any("Eve" in t for t in search("sister Eve"))  # the next run indexes it


def test_kill_mid_reflect_changes_nothing_and_the_next_run_works(home):
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY)
    write_observation(ws, "20260310-100000-abcd", ["Ada is writing a CSV parser in Rust."])
    env = {"NANOBOT_FAULT": "reflect-write"}
    r = nanobot("reflect", "--no-observe", home=home, env=env)
    assert r.returncode == -signal.SIGKILL
    assert (ws / "MEMORY.md").read_text() == USER_MEMORY
    again = nanobot("reflect", "--no-observe", home=home)
    clean(again)
    assert again.returncode == 0, again.stderr
    mem = (ws / "MEMORY.md").read_text()
    assert mem.startswith(USER_MEMORY) and mem.count("CSV parser in Rust") == 1


def test_kill_mid_observation_keeps_the_session_for_later(home):
    env = LEAN | {"NANOBOT_OBSERVER__ENABLED": "true", "NANOBOT_OBSERVER__REFLECT_ON_START": "false"}
    r = nanobot("chat", home=home, input=b"I am fixing the csv parser\n",
                env=env | {"NANOBOT_FAULT": "observation-write"})
    assert r.returncode == 0, r.stderr  # the observation runs in the detached child: it is the one killed
    assert "spawned pid" in wait_housekept(home)
    assert said(home) == ["I am fixing the csv parser"]
    assert not list((home / "workspace" / "observations").glob("*.md"))
    again = nanobot("chat", home=home, input=b"next\n", env=env)  # observes the missed session
    clean(again)
    assert again.returncode == 0, again.stderr
    assert said(home) == ["I am fixing the csv parser", "next"]
    wait_housekept(home)
    assert len(list((home / "workspace" / "observations").glob("*.md"))) == 2


def test_damaged_kv_cache_is_rebuilt(home):
    env = LEAN | {"NANOBOT_CHAT__MAX_TOKENS": "4"}
    assert nanobot("chat", home=home, input=b"hi\n", env=env).returncode == 0
    files = list((home / "cache" / "kv").rglob("*.*"))
    assert files
    for f in files:
        f.write_bytes(f.read_bytes()[:100] + b"garbage" * 10)
    r = nanobot("chat", home=home, input=b"hi again\n", env=env)
    clean(r)
    assert r.returncode == 0 and r.stdout.count("Nano:") == 1, r.stderr


def test_damaged_tasks_db_gives_a_clear_error(home):
    from nanobot.config import load_settings
    from nanobot.tools.cron import open_db

    workspace(home)
    conn = open_db(load_settings())
    with conn:
        conn.executemany("INSERT INTO tool_cron(message, next_run, created) VALUES (?, 0, 0)",
                         [(f"reminder {i} " + "x" * 200,) for i in range(200)])
    conn.close()
    damage_pages(home / "workspace" / "nanobot.db")
    r = nanobot("daemon", "--once", home=home)
    clean(r)
    assert r.returncode == 2 and "nanobot.db" in r.stderr and "damaged" in r.stderr, r.stderr


# -- read-only home, full disk -------------------------------------------------------------------
def in_namespace(script: str, home: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``script`` (sh) in a private mount namespace: mounts made there vanish with it."""
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, env=env_for(home, env), cwd=ROOT, timeout=300)


@pytest.mark.skipif(not unshare_ok(), reason="needs unshare -m (mount namespaces) for a real read-only mount")
@pytest.mark.parametrize("memory", ["true", "false"])
def test_read_only_home_names_the_cause(home, memory):
    (workspace(home) / "MEMORY.md").write_text(USER_MEMORY)
    env = LEAN | {"NANOBOT_MEMORY__ENABLED": memory}
    py = f"{sys.executable} -m nanobot"
    r = in_namespace(f"mount --bind {home} {home} && mount -o remount,ro,bind {home} && "
                     f"echo hello | {py} chat", home, env)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 2 and "read-only" in r.stderr, r.stderr
    assert "move the file aside" not in r.stderr
    ok = nanobot("chat", home=home, input=b"hello\n", env=LEAN)  # writable again: works
    assert ok.returncode == 0 and said(home) == ["hello"], ok.stderr
    assert (home / "workspace" / "MEMORY.md").read_text() == USER_MEMORY


def injected(code: str, home: Path, input: bytes, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real CLI with its home's file layer failing with ``code`` (tests/oserror.py): the same
    messages as the real mounts below, on a machine that does not permit ``unshare -m``."""
    from tests.oserror import CLI

    proc = subprocess.run([*CLI, "chat"], input=input, capture_output=True, cwd=ROOT, timeout=300,
                          env=env_for(home, (env or {}) | {"NANOBOT_TEST_OSERROR": code}))
    proc.stdout, proc.stderr = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    return proc


def test_read_only_home_names_the_cause_without_a_mount_namespace(home):
    (workspace(home) / "MEMORY.md").write_text(USER_MEMORY)
    ok = nanobot("chat", home=home, input=b"before\n", env=LEAN)  # a home that has been used
    assert ok.returncode == 0, ok.stderr
    r = injected("EROFS", home, b"hello\n", LEAN)
    clean(r)
    assert r.returncode == 2 and "read-only" in r.stderr and "NANOBOT_HOME" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr  # one line naming the cause and the fix
    ok = nanobot("chat", home=home, input=b"hello\n", env=LEAN)  # writable again: works
    assert ok.returncode == 0 and said(home) == ["before", "hello"], ok.stderr
    assert (home / "workspace" / "MEMORY.md").read_text() == USER_MEMORY


def test_full_disk_names_the_cause_without_a_mount_namespace(home):
    first = nanobot("chat", home=home, input=b"first\n", env=LEAN)
    assert first.returncode == 0, first.stderr
    r = injected("ENOSPC", home, b"lost one\nlost two\n", LEAN)
    clean(r)
    assert r.returncode in (1, 2) and "the disk is full; free some space" in r.stderr, r.stderr
    third = nanobot("chat", home=home, input=b"third\n", env=LEAN)  # space again: works
    assert third.returncode == 0, third.stderr
    assert said(home)[0] == "first" and said(home)[-1] == "third"
    for path in list_transcripts(home / "sessions"):  # every transcript still reads back, untorn
        assert read_transcript(path)[1] == [], path


@pytest.mark.skipif(not unshare_ok(), reason="needs unshare -m (mount namespaces) for a real small file system")
def test_full_disk_names_the_cause_and_recovers(home):
    py = f"{sys.executable} -m nanobot"
    script = (f"mkdir -p {home} && mount -t tmpfs -o size=2m tmpfs {home} && "
              f"echo first | {py} chat && "
              f"(dd if=/dev/zero of={home}/filler bs=4k 2>/dev/null; true) && "
              f"printf 'lost one\\nlost two\\n' | {py} chat; echo rc=$?; "
              f"rm {home}/filler && echo third | {py} chat && cat {home}/sessions/*.jsonl")
    r = in_namespace(script, home, LEAN)
    assert "Traceback" not in r.stderr, r.stderr
    assert "the disk is full" in r.stderr, r.stderr
    assert "rc=1" in r.stdout or "rc=2" in r.stdout, r.stdout
    assert '"content":"first"' in r.stdout and '"content":"third"' in r.stdout, r.stdout


@pytest.mark.skipif(not unshare_ok(), reason="needs unshare -m (mount namespaces) for a real small file system")
def test_the_kv_cache_never_takes_the_space_a_chat_needs(home):
    """The disk KV entry (rebuildable, several MB) is written only where it leaves ``room.RESERVE``
    free: on a 16 MB disk the chat's own files are written, the entry is not (a warning says why), and
    no half-written cache file is left (a background write that filled the disk failed the chat's own
    transcript write, and at exit its temp file stayed)."""
    py = f"{sys.executable} -m nanobot"
    script = (f"mkdir -p {home} && mount -t tmpfs -o size=16m tmpfs {home} && "
              f"echo first | {py} chat; echo rc=$?; ls -a {home}/cache/kv 2>/dev/null; cat {home}/sessions/*.jsonl")
    r = in_namespace(script, home, LEAN)
    assert "Traceback" not in r.stderr and "rc=0" in r.stdout, r.stdout + r.stderr
    assert "KV cache not saved" in r.stderr and "kept free for your files" in r.stderr, r.stderr
    assert ".kv" not in r.stdout and '"content":"first"' in r.stdout, r.stdout


# -- concurrency ---------------------------------------------------------------------------------
def test_chat_reflect_reindex_and_user_edits_at_once(home):
    ws = workspace(home)
    (ws / "MEMORY.md").write_text(USER_MEMORY)
    write_observation(ws, "20260310-100000-abcd", ["Ada is writing a CSV parser in Rust."])
    env = env_for(home, LEAN | {"NANOBOT_MEMORY__ENABLED": "true"})
    run = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    cmd = [sys.executable, "-m", "nanobot"]
    procs = [subprocess.Popen([*cmd, "chat"], **run),
             subprocess.Popen([*cmd, "reflect", "--no-observe"], **run),
             subprocess.Popen([*cmd, "memory", "reindex"], **run)]
    procs[0].stdin.write(b"first message\nsecond message\n")
    procs[0].stdin.close()
    procs[0].stdin = None
    mine = [f"- user line {i}" for i in range(20)]
    for line in mine:  # the user keeps editing while all three run
        with open(ws / "MEMORY.md", "a") as f:
            f.write(line + "\n")
        time.sleep(0.1)
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0 and b"Traceback" not in err, err.decode()
    mem = (ws / "MEMORY.md").read_text()
    assert all(line + "\n" in mem for line in mine) and mem.startswith(USER_MEMORY)
    assert said(home) == ["first message", "second message"]
    assert nanobot("memory", "search", "user line 19", home=home).returncode == 0


def test_empty_session_leaves_no_transcript(home):
    r = nanobot("chat", home=home, input=b"/help\n", env=LEAN)
    assert r.returncode == 0, r.stderr
    assert list_transcripts(home / "sessions") == []


def test_failed_piped_turn_exits_nonzero_after_the_rest(home):
    long = b"word " * 5000  # longer than n_ctx: that turn fails with a one-line error
    r = nanobot("chat", home=home, input=long + b"\nshort one\n", env=LEAN)
    clean(r)
    assert r.returncode == 1, r.stderr
    assert "Error:" in r.stderr and r.stdout.count("Nano:") == 1
    assert said(home)[-1] == "short one"
