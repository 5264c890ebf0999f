"""``nanobot serve`` against hostile and careless clients, on the real server (the bundled SmolLM2 on a
port of 127.0.0.1, bound on every interface with a key; started once for the module): a wide bind needs
a key, a request without it gets 401, a huge body is refused before it fills memory, a second client
waits its turn instead of cutting the first one's stream and a third gets 429, and bad JSON or bad
parameters get 400 with one line. The guard's reply side (a stream cut by a failure still ends with a
finish_reason; errors keep to one line without paths) runs around small ASGI apps that fail on demand.
Secrets in a ``base_url`` stay out of ``nanobot models``, chat errors and the transcript."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, cli_env, suite_threads
from tests.openai_fake import closed_port_url

KEY = "s3rve-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
CHAT = {"messages": [{"role": "user", "content": "Count from one to fifty."}], "temperature": 0}


# -- starting: a wide bind needs a key ------------------------------------------------------------
def test_a_wide_bind_without_a_key_is_refused_in_one_line(cli):
    """(Which hosts count as wide: ``needs_key``'s examples; a key from the variable: ``server``.)"""
    r = cli("serve", "--host", "0.0.0.0", "--port", "0", timeout=60)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "NANOBOT_SERVE_API_KEY" in r.stderr and "--no-auth" in r.stderr and "Traceback" not in r.stderr


def test_no_auth_opens_a_wide_bind(cli, tmp_path):
    """Past the door: the next thing said is about the (missing) model, not the key."""
    r = cli("serve", str(tmp_path / "none.gguf"), "--host", "0.0.0.0", "--port", "0", "--no-auth", timeout=60)
    assert r.returncode == 2 and "none.gguf" in r.stderr and "--no-auth" not in r.stderr, r.stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory, bundled):
    """``nanobot serve`` on every interface with a key and a queue of one; (url on 127.0.0.1, pid, start-up line)."""
    tmp = tmp_path_factory.mktemp("serve")
    out = (tmp / "out.txt").open("w")
    threads = str(suite_threads() or 1)
    env = cli_env(tmp / "home", {"NANOBOT_SERVE_API_KEY": KEY})
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "serve", str(bundled), "--host", "0.0.0.0",
                             "--port", "0", "--queue", "1", "--threads", threads],
                            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not (m := re.search(r"^serving .* at http://0\.0\.0\.0:(\d+)/v1 .*$", (tmp / "out.txt").read_text(), re.M)):
        assert proc.poll() is None and time.monotonic() < deadline, (tmp / "out.txt").read_text()[-2000:]
        time.sleep(0.1)
    yield f"http://127.0.0.1:{m.group(1)}", proc.pid, m.group(0)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_the_start_line_names_the_real_address_and_the_key(server):
    url, _, line = server
    assert int(url.rsplit(":", 1)[1]) > 0 and "(every interface)" in line and "key required" in line


@pytest.mark.slow
def test_a_request_without_the_key_gets_401(server):
    url, _, _ = server
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        r = httpx.get(f"{url}/v1/models", headers=headers)
        assert r.status_code == 401 and "Authorization: Bearer" in r.json()["error"]["message"]
    assert httpx.post(f"{url}/v1/chat/completions", json=CHAT).status_code == 401
    assert httpx.get(f"{url}/v1/models", headers={"Authorization": f"bearer {KEY}"}).status_code == 200


# -- the body: capped before it is read -----------------------------------------------------------
def _rss_mb(pid: int) -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1)) // 1024


def _head(port: int, extra: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
              f"Content-Type: application/json\r\n{extra}\r\n".encode())
    return s


@pytest.mark.slow
def test_a_body_announced_too_big_is_refused_before_it_is_sent(server):
    url, _, _ = server
    s = _head(int(url.rsplit(":", 1)[1]), "Content-Length: 100000000\r\n")
    s.settimeout(5)  # nothing of the body is sent: the answer cannot wait for it
    with s:
        assert s.recv(200).startswith(b"HTTP/1.1 413 ")


@pytest.mark.slow
def test_a_chunked_body_is_read_only_up_to_the_cap(server):
    url, pid, _ = server
    base, peak, sent = _rss_mb(pid), [0], [0]
    s = _head(int(url.rsplit(":", 1)[1]), "Transfer-Encoding: chunked\r\n")
    chunk = b"%x\r\n" % (1 << 20) + b"x" * (1 << 20) + b"\r\n"

    def send():
        try:
            for _ in range(64):  # 64 MiB, eight times the cap
                s.sendall(chunk)
                sent[0] += 1
                peak[0] = max(peak[0], _rss_mb(pid))
        except OSError:  # the server closed the connection: what is left is not read
            pass
    sender = threading.Thread(target=send)
    sender.start()
    with s:
        answer = s.recv(200)
        sender.join(60)
    assert answer.startswith(b"HTTP/1.1 413 "), answer
    assert max(peak[0], _rss_mb(pid)) - base < 40, (base, peak, sent)  # MB: not the 64 MiB sent


# -- concurrent clients: one at a time, a bounded queue --------------------------------------------
def _stream(url: str, out: dict, first: threading.Event) -> None:
    body = CHAT | {"stream": True, "max_tokens": 32, "min_tokens": 32}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, headers=AUTH, timeout=120) as r:
        out["status"], out["events"] = r.status_code, []
        first.set()  # the response started: this request is in (running or waiting)
        for line in r.iter_lines():
            if line.startswith("data: "):
                out["events"].append(line[6:])
    out["done_at"] = time.monotonic()


def _finishes(events: list[str]) -> list[str]:
    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    assert not any("error" in c for c in chunks), chunks[-3:]
    return [c["choices"][0]["finish_reason"] for c in chunks if c["choices"][0].get("finish_reason")]


@pytest.mark.slow
def test_a_second_client_waits_its_turn_and_a_third_is_told_to_retry(server):
    url, _, _ = server
    a, b = {}, {}
    a_in, b_in = threading.Event(), threading.Event()
    ta = threading.Thread(target=_stream, args=(url, a, a_in))
    ta.start()
    assert a_in.wait(60)
    while not a.get("events"):  # A is generating
        time.sleep(0.01)
    tb = threading.Thread(target=_stream, args=(url, b, b_in))
    tb.start()
    assert b_in.wait(60)
    third = httpx.post(f"{url}/extras/tokenize", json={"input": "hi"}, headers=AUTH)
    refused_at = time.monotonic()
    ta.join(120)
    tb.join(120)
    assert third.status_code == 429 and int(third.headers["retry-after"]) > 0, third.text
    assert a["done_at"] > refused_at  # A was still streaming while B waited and the third was refused
    for out in (a, b):
        assert out["status"] == 200 and out["events"][-1] == "[DONE]"
        assert _finishes(out["events"]) in (["length"], ["stop"])  # whole: never cut by the other
        assert sum(bool(json.loads(e)["choices"][0]["delta"].get("content")) for e in out["events"][:-1]) >= 28


# -- bad input: 400 with one line ------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("body, says", [
    (b"{not json", "not valid JSON"),
    (b'["a list"]', "not an object"),
    (b"\xff\xfe", "not valid JSON"),
    (json.dumps(CHAT | {"max_tokens": -1}).encode(), "max_tokens"),
    (json.dumps(CHAT | {"max_tokens": "lots"}).encode(), "max_tokens"),
    (json.dumps(CHAT | {"temperature": "hot"}).encode(), "temperature"),
    (json.dumps({"messages": "hi"}).encode(), "messages"),
    (json.dumps(CHAT | {"grammar": "root ::= undefined_rule"}).encode(), "grammar"),
    (json.dumps(CHAT | {"logit_bias": {"99999999": 5}}).encode(), "logit_bias"),
])
def test_bad_json_or_parameters_get_400_with_one_line(server, body, says):
    url, _, _ = server
    r = httpx.post(f"{url}/v1/chat/completions", content=body, headers=AUTH | {"Content-Type": "application/json"})
    message = r.json()["error"]["message"]
    assert r.status_code == 400 and says in message, r.text
    assert "\n" not in message and "Traceback" not in r.text and ".py" not in r.text and str(ROOT) not in r.text


@pytest.mark.slow
def test_the_server_outlives_a_bad_grammar_and_names_no_file(server, bundled):
    """llama.cpp crashes on a grammar it cannot parse; a reply names the model, never its path."""
    url, _, _ = server
    bad = httpx.post(f"{url}/v1/chat/completions", json=CHAT | {"grammar": "root ::= ("}, headers=AUTH)
    r = httpx.post(f"{url}/v1/chat/completions", json=CHAT | {"max_tokens": 2}, headers=AUTH, timeout=60)
    assert bad.status_code == 400 and r.status_code == 200 and r.json()["model"] == bundled.stem


# -- the reply side, around apps that fail on demand -----------------------------------------------
def _sse(*events: bytes):
    return [b"data: " + e + b"\n\n" for e in events]


CHUNK = json.dumps({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"},
                                                                      "finish_reason": None}]}).encode()


def _app(kind: str):
    async def app(scope, receive, send):
        await receive()
        if kind == "error-with-path":
            body = json.dumps({"error": {"message": f"failed in {ROOT}/nanobot/x.py\nTraceback (most recent call last):"}})
            await send({"type": "http.response.start", "status": 500, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body.encode()})
            return
        if kind == "fastapi-422":
            body = json.dumps({"detail": [{"loc": ["body", "n"], "msg": "Input should be a valid integer"}]})
            await send({"type": "http.response.start", "status": 422, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body.encode()})
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        for part in _sse(CHUNK, CHUNK):
            await send({"type": "http.response.body", "body": part, "more_body": True})
        if kind == "raises":
            raise RuntimeError("the model failed mid-reply")
        if kind == "done-without-finish":  # what llama-cpp-python's interrupt_requests does
            await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        # "left-open": returns without ending the stream (a shutdown)
    return app


@pytest.fixture
def guarded():
    import uvicorn

    from nanobot.backends.serveguard import Guard

    running = []

    def serve(kind: str) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        srv = uvicorn.Server(uvicorn.Config(Guard(_app(kind)), log_level="critical"))
        thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        running.append((srv, thread))
        while not srv.started:
            time.sleep(0.01)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"
    yield serve
    for srv, thread in running:
        srv.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("kind", ["raises", "done-without-finish", "left-open"])
def test_a_stream_that_ends_early_ends_with_an_error_and_a_finish_reason(guarded, kind):
    url = guarded(kind)
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=CHAT | {"stream": True}, timeout=30) as r:
        events = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert events[:2] == [CHUNK.decode()] * 2 and events[-1] == "[DONE]", events
    tail = [json.loads(e) for e in events[2:-1]]
    assert "error" in tail[0] and tail[-1]["choices"][0]["finish_reason"] == "error", tail


@pytest.mark.parametrize("kind, status", [("error-with-path", 500), ("fastapi-422", 400)])
def test_an_error_answer_is_one_line_without_paths(guarded, kind, status):
    r = httpx.post(f"{guarded(kind)}/v1/chat/completions", json=CHAT)
    message = r.json()["error"]["message"]
    assert r.status_code == status and "\n" not in message and str(ROOT) not in message and "Traceback" not in r.text
    assert message in ("failed in <path>", "bad parameter n: Input should be a valid integer")


# -- secrets in a base_url ------------------------------------------------------------------------
SECRETS = ("hunter2", "sk-live-77", "tok-88", "bob")


def _secret_url() -> str:
    url = closed_port_url().replace("http://", "http://bob:hunter2@")
    return f"{url}?api_key=sk-live-77&token=tok-88&mode=fast"


def _config(home: Path, url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'model = "srv"\n[models.srv]\nbase_url = "{url}"\nconnect_timeout = 1.0\n'
                                      "[memory]\nenabled = false\n[observer]\nenabled = false\n")


def test_a_secret_in_base_url_is_never_shown_or_stored(home, cli):
    _config(home, _secret_url())
    shown = [cli("models", "--json"), cli("chat", input="hello\n", timeout=120)]
    for r in shown:
        assert not any(s in r.stdout + r.stderr for s in SECRETS), r.stdout + r.stderr
    row = next(r for r in json.loads(shown[0].stdout) if r["name"] == "srv")
    assert row["url"].startswith("http://***@127.0.0.1:") and row["url"].endswith("?api_key=***&token=***&mode=fast")
    assert "not answering" in shown[1].stderr and "***@127.0.0.1" in shown[1].stderr
    kept = [p for p in home.rglob("*") if p.is_file() and p.name != "config.toml"]
    assert any(p.suffix == ".jsonl" for p in kept)  # the transcript of the failed turn
    for p in kept:
        assert not any(s.encode() in p.read_bytes() for s in SECRETS), p


def test_a_secret_in_a_bad_base_url_stays_out_of_the_config_error(home, cli):
    _config(home, _secret_url().replace("http://", "ftp://"))
    r = cli("models")
    assert r.returncode == 2 and "base_url must start with http://" in r.stderr
    assert not any(s in r.stderr for s in SECRETS), r.stderr
