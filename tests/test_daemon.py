"""``nanobot daemon`` as a real process: a due reminder fires, a due reflection runs (MEMORY.md gains
the fact), a second copy is refused naming the pid, SIGTERM stops it with exit 0."""

import queue
import signal
import subprocess
import sys
import threading
import time

from nanobot.config import load_settings
from nanobot.tools.cron import open_db
from tests.conftest import ROOT, cli_env
from tests.test_reflector import USER_MEMORY, setup


def add_reminder(settings, message):
    conn = open_db(settings)
    with conn:
        conn.execute("INSERT INTO tool_cron(message, next_run, created) VALUES (?, 0, 0)", (message,))
    conn.close()


def lines_of(stream) -> queue.Queue:
    q: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [q.put(line) for line in stream], daemon=True).start()
    return q


def wait_line(q: queue.Queue, needle: str, timeout=60.0) -> str:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        try:
            line = q.get(timeout=0.5)
        except queue.Empty:
            continue
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"no line with {needle!r} in {seen}")


def test_daemon_runs_due_jobs_refuses_a_second_copy_and_stops_on_sigterm(cli, home):
    settings = setup(home, [["Ada's editor is Helix."]])
    add_reminder(settings, "water the plants")
    env = cli_env(home, {"PYTHONUNBUFFERED": "1"})
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "daemon", "--interval", "0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        out = lines_of(proc.stdout)
        assert wait_line(out, "reminder #1: water the plants", timeout=300)  # the start: 5x a loaded one
        assert "1 fact(s) added" in wait_line(out, " reflect: ", timeout=300)  # loads the embedder
        mem = (settings.workspace / "MEMORY.md").read_text()
        assert mem.startswith(USER_MEMORY.rstrip("\n")) and "- Ada's editor is Helix." in mem
        add_reminder(load_settings(), "call mum")  # the loop goes on checking
        assert wait_line(out, "reminder #2: call mum")

        second = cli("daemon", "--once")
        assert second.returncode == 2
        assert f"pid {proc.pid}" in second.stderr and second.stderr.startswith("Error: ")
        assert len(second.stderr.strip().splitlines()) == 1

        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "stopped" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert cli("daemon", "--once").returncode == 0  # the lock went with the process
