"""What a person waits for (issue 23), as guarantees: the real ``nanobot chat`` in a pseudo-terminal
with the bundled model. Timings belong to bench/waits_bench.py; these tests hold the moments still
with fault points (``nanobot/base/faults.py``: ``name:pause`` waits while ``$NANOBOT_HOME/fault-name.paused``
exists) and check what happens at them.

- the prompt is on the screen while the model is still loading, and a message typed then is answered
  once it has loaded;
- Ctrl-D does not wait for background work that only derives data (the memory index);
- the previous session's housekeeping child runs at idle priority and waits while a chat is busy
  (loading its model), then writes the observation: nothing lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pexpect
import pytest

from nanobot.core.transcript import list_transcripts, read_transcript
from tests.conftest import ROOT, cli_env
from tests.housekeeping import wait_housekept

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="needs a pty and /proc")]

TTY = {"TERM": "xterm", "COLUMNS": "100", "LINES": "30", "NANOBOT_CHAT__MAX_TOKENS": "8",
       "NANOBOT_OBSERVER__REFLECT_ON_START": "false", "NANOBOT_TOOLS__ENABLED": "[]"}
CPR = "\x1b\\[6n"


def spawn(home, env: dict) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "nanobot", "chat"], cwd=str(ROOT), env=cli_env(home, TTY | env),
                         encoding="utf-8", timeout=90, dimensions=(30, 100))


def expect(child: pexpect.spawn, pattern, timeout: float = 90) -> None:
    """``expect``, answering the terminal's cursor-position question as a terminal does."""
    while child.expect([pattern, CPR], timeout=timeout) == 1:
        child.send("\x1b[1;1R")


def wait_for(check, timeout: float = 120.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def records(home):
    (path,) = list_transcripts(home / "sessions")[-1:]
    return read_transcript(path)[0]


def test_the_prompt_is_shown_while_the_model_loads(home):
    """Fails when the model loads before the prompt: no prompt while the load is held."""
    gate = home / "fault-model-load.paused"
    child = spawn(home, {"NANOBOT_FAULT": "model-load:pause", "NANOBOT_MEMORY__ENABLED": "false",
                         "NANOBOT_OBSERVER__ENABLED": "false"})
    try:
        expect(child, "You:", timeout=40)  # held before the load, the old chat never got here
        wait_for(gate.exists, what="the load held at its start")  # it starts behind the prompt
        child.send("What is the capital of France?\r")  # typed while it loads
        time.sleep(0.5)
        assert gate.exists() and not list_transcripts(home / "sessions")  # no session before the model
        gate.unlink()  # the load goes on; the message waits for it, then is answered
        expect(child, "Nano:")
        expect(child, "You:")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        gate.unlink(missing_ok=True)
        child.close(force=True)
    assert child.exitstatus == 0
    recs = records(home)
    assert [r.content for r in recs if r.role == "user"] == ["What is the capital of France?"]
    assert any(r.role == "assistant" for r in recs) and recs[-1].meta["reason"] == "eof"


def test_ctrl_d_does_not_wait_for_the_memory_index(home):
    """Fails on an exit that joins every background thread: it would sit at the held index write."""
    gate = home / "fault-reindex-write.paused"
    (home / "workspace").mkdir(parents=True)
    (home / "workspace" / "MEMORY.md").write_text("# Memory\n\n- The user's cat is called Miso.\n")
    child = spawn(home, {"NANOBOT_FAULT": "reindex-write:pause", "NANOBOT_OBSERVER__ENABLED": "false"})
    try:
        expect(child, "You:", timeout=40)
        wait_for(gate.exists, what="the memory index held at its write")  # a transaction is open
        child.sendeof()
        child.expect(pexpect.EOF, timeout=30)  # the held write is left behind
        child.wait()
        assert gate.exists()
    finally:
        gate.unlink(missing_ok=True)
        child.close(force=True)
    assert child.exitstatus == 0
    import sqlean  # the index's own SQLite: the abandoned transaction was rolled back, nothing torn

    db = sqlean.connect(str(home / "workspace" / "memory.db"))
    assert db.execute("pragma quick_check").fetchone()[0] == "ok"


def test_housekeeping_waits_while_a_chat_loads_then_observes(home):
    """Fails when the housekeeping child does not yield: it writes while the new chat is busy."""
    fast = {"NANOBOT_MEMORY__ENABLED": "false", "PYTHONUNBUFFERED": "1", **{k: v for k, v in TTY.items()
                                                                              if k.startswith("NANOBOT_")}}
    gate = home / "fault-model-load.paused"
    second = spawn(home, {"NANOBOT_FAULT": "model-load:pause", "NANOBOT_MEMORY__ENABLED": "false"})
    try:
        expect(second, "You:", timeout=40)
        wait_for(gate.exists, what="the second chat's load held")  # loading: busy
        first = subprocess.run([sys.executable, "-m", "nanobot", "chat"], input="I am Ada; my project is a CSV parser.\n",
                               capture_output=True, text=True, env=cli_env(home, fast), cwd=ROOT, timeout=180)
        assert first.returncode == 0, first.stderr
        log = home / "logs" / "housekeep.log"
        wait_for(lambda: log.exists() and "a chat is busy: waiting" in log.read_text(), what="the child waiting")
        pid = int(log.read_text().split("start pid ")[-1].split()[0])
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE  # and it runs at idle priority
        time.sleep(5)  # a child that did not wait would be loading the model and drafting by now
        assert "going on after" not in log.read_text()  # still waiting: the chat is busy
        assert (home / "housekeep").is_dir() and list((home / "housekeep").glob("*.json"))  # job kept
        assert not list((home / "workspace" / "observations").glob("*.md"))
        gate.unlink()  # the second chat finishes loading: the child goes on
        wait_for(lambda: list((home / "workspace" / "observations").glob("*.md")), timeout=180,
                 what="the observation")
        second.sendeof()
        second.expect(pexpect.EOF)
    finally:
        gate.unlink(missing_ok=True)
        second.close(force=True)
    wait_housekept(home)
    assert "going on after" in (home / "logs" / "housekeep.log").read_text()
