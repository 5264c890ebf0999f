"""Nothing hangs (issue 28, class 4), in the fault-injection suite: every case runs the real ``nanobot``
in a subprocess with a time limit, so a hang fails its test, not the suite.

- A FIFO, a directory or 50 MB of garbage where a file should be (the vault ledger, workspace prompt
  files, config.toml, a chat's CONTEXT.md, a coding session's meta.json, a housekeeping job): each
  command finishes, with at most ONE warning or a one-line error naming the file, never a traceback;
  a broken vault never stops a chat.
- A model server that sends only SSE keep-alive comments or only empty deltas: ``read_timeout``
  ends the turn with a clear error (time out on progress, not bytes).
- A reply delivered as one 1 MB delta: the loop guard is linear.
- A 10 MB chat CONTEXT.md: ``nanobot consolidate`` and a chat stay bounded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from nanobot.config import load_settings
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.workspace import init_workspace
from tests.conftest import ROOT, cli_env

pytestmark = pytest.mark.faults
LEAN = {"NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_OBSERVER__ENABLED": "false",
        "NANOBOT_TOOLS__ENABLED": "[]", "NANOBOT_CHAT__MAX_TOKENS": "8"}
LIMIT = float(os.environ.get("NANOBOT_TEST_HANG_LIMIT", "240"))  # generous for a shared 2-core
# machine (a hang is forever); lower it to see quickly that the old code hangs


def nanobot(home: Path, *args: str, input: str | None = None, env: dict | None = None,
            limit: float = LIMIT) -> subprocess.CompletedProcess:
    """The real CLI; a run past ``limit`` fails the test (a hang), it never blocks the suite."""
    try:
        return subprocess.run([sys.executable, "-m", "nanobot", *args], input=input, text=True,
                              capture_output=True, env=cli_env(home, env), timeout=limit, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`nanobot {' '.join(args)}` hung (no answer in {limit:g} s)")


@pytest.fixture
def ws(home) -> Path:
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "knowledge").mkdir(exist_ok=True)
    (settings.workspace / "knowledge" / "a.md").write_text("---\nsummary: A doc\n---\nbody\n")
    return settings.workspace


def break_file(path: Path, how: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if how == "fifo":
        os.mkfifo(path)
    elif how == "dir":
        path.mkdir()
    elif how == "garbage":
        line = b"\x00\xff not json at all {\"ts\": broken\n"
        with open(path, "wb") as f:
            f.write(line * (50 * 1024 * 1024 // len(line)))
    else:
        raise AssertionError(how)


def about(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if name in line]


@pytest.mark.parametrize("how", ["fifo", "dir", "garbage"])
def test_a_broken_ledger_never_stops_a_chat_and_warns_once(home, ws, how):
    break_file(ws / "audit" / "ledger.jsonl", how)
    t0 = time.monotonic()
    out = nanobot(home, "chat", input="hello\n", env=LEAN)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    warned = about(out.stderr, "ledger.jsonl")
    assert len(warned) == 1, warned  # not 195,000 lines
    if how != "garbage":
        assert "Recent Changes" in warned[0] and ("FIFO" in warned[0] or "directory" in warned[0])
    (t,) = list_transcripts(load_settings(home).sessions_dir)
    assert [r.content for r in read_transcript(t)[0] if r.role == "user"] == ["hello"]
    prompt = nanobot(home, "prompt", "--text")
    assert prompt.returncode == 0 and "Your Knowledge" in prompt.stdout
    assert time.monotonic() - t0 < LIMIT


@pytest.mark.parametrize("how", ["fifo", "dir"])
def test_vault_commands_on_a_broken_ledger_answer_in_one_line(home, ws, how):
    break_file(ws / "audit" / "ledger.jsonl", how)
    out = nanobot(home, "vault", "digest")
    assert "Traceback" not in out.stderr and "ledger.jsonl" in out.stdout + out.stderr
    args = {"action": "create", "path": "b.md", "summary": "B", "change_summary": "new",
            "reason": "test", "content": "# B\n"}
    out = nanobot(home, "tools", "run", "knowledge_apply", json.dumps(args))
    assert "Traceback" not in out.stderr and "ledger.jsonl" in out.stdout + out.stderr


@pytest.mark.parametrize("name", ["USER.md", "SOUL.md", "CONTEXT.md", "MEMORY.md"])
def test_a_fifo_as_a_workspace_file_is_an_error_not_a_hang(home, ws, name):
    break_file(ws / name, "fifo")
    out = nanobot(home, "prompt")
    assert "Traceback" not in out.stderr
    assert out.returncode == 0 or (name in out.stderr and "FIFO" in out.stderr)


def test_a_fifo_as_config_toml_is_a_one_line_error(home):
    break_file(home / "config.toml", "fifo")
    out = nanobot(home, "status")
    assert out.returncode == 2 and "config.toml" in out.stderr and "FIFO" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_fifos_where_state_files_belong(home, ws):
    settings = load_settings(home)
    break_file(settings.sessions_dir / "Iabc" / "meta.json", "fifo")
    break_file(settings.sessions_dir / "2026-01-01-0000-x.jsonl", "fifo")
    out = nanobot(home, "session", "list")
    assert out.returncode == 0 and "Traceback" not in out.stderr
    chat = home / "chats" / "team"
    break_file(chat / "CONTEXT.md", "fifo")
    out = nanobot(home, "chat", "--chat", "team", input="hi\n", env=LEAN)
    assert "Traceback" not in out.stderr
    break_file(home / "housekeep" / "2026-01-01-0000-y.json", "fifo")
    out = nanobot(home, "housekeep", "--model", "smollm2", env=LEAN)
    assert "Traceback" not in out.stderr
    assert (home / "housekeep" / "2026-01-01-0000-y.bad").exists()


class Stalling(BaseHTTPRequestHandler):
    """Streams for ever: ``: ping`` comments, empty deltas, or one line that never ends."""
    mode = "ping"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        empty = {"choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": None}]}
        line = {"ping": b": ping\n\n", "empty": f"data: {json.dumps(empty)}\n\n".encode(),
                "endless": b"x" * 64}[self.mode]  # endless: bytes flow, no line ever ends
        try:
            for _ in range(3000):  # 10 minutes at most, so the thread ends
                self.wfile.write(line)
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass


@pytest.mark.parametrize("mode", ["ping", "empty", "endless"])
def test_a_server_that_sends_only_keep_alives_times_out_on_progress(home, mode):
    handler = type("H", (Stalling,), {"mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(f'model = "srv"\n[models.srv]\nbase_url = "{url}"\n'
                                          'served_model = "fake"\nread_timeout = 2\n')
        t0 = time.monotonic()
        out = nanobot(home, "chat", input="hello\n", env=LEAN, limit=min(120, LIMIT))
        elapsed = time.monotonic() - t0
    finally:
        server.shutdown()
    assert "read_timeout" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert elapsed < 60


def test_a_one_megabyte_delta_does_not_spin_the_loop_guard(home):
    code = ("import time, sys\n"
            "from nanobot.loop.agent import Agent\nfrom nanobot.backends.scripted import ScriptedModel\n"
            "from nanobot.config import load_settings\n"
            "reply = 'x' * 1_000_000 + ' and then an end.'  # the first piece is 1 MB\n"
            "agent = Agent(load_settings(), ScriptedModel([reply]))\n"
            "t = time.perf_counter(); list(agent.turn('hi')); print(round(time.perf_counter() - t, 2))\n")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=cli_env(home, {**LEAN, "NANOBOT_CHAT__MAX_TOKENS": "512"}),
                             timeout=min(120, LIMIT), cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail("a 1 MB delta kept the loop guard busy for 120 s")
    assert out.returncode == 0, out.stderr


def test_a_ten_megabyte_chat_context_is_bounded(home, ws):
    from nanobot.chats.store import context_path, register_session

    now = datetime.now().astimezone()
    register_session(home, "big", "2026-01-01-0000-aaaa", now, None)
    path = context_path(home, "big")
    items = [f"- item number {i} about a topic that is long enough to weigh something "
             f"[{(now - timedelta(days=i % 20)).date()}]" for i in range(120_000)]
    path.write_text("<!-- nanobot-managed:v1 -->\n# Chat: big\n## Pending\n" + "\n".join(items) + "\n")
    assert path.stat().st_size > 10_000_000
    out = nanobot(home, "consolidate", "big", "--dry-run", env=LEAN, limit=LIMIT + 60)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    out = nanobot(home, "chat", "--chat", "big", input="hello\n", env=LEAN, limit=min(180, LIMIT))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
