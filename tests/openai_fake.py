"""A small OpenAI-compatible server on 127.0.0.1 (stdlib http.server in a thread) for the cases a real
server cannot be made to show on demand: no structured output, down, slow, non-JSON, HTTP errors, a
connection cut mid-stream. Each request to /v1/chat/completions takes the next scripted action.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Cut:
    text: str  # sent word by word, then the connection is closed (no finish, no [DONE])


@dataclass
class Slow:
    seconds: float  # nothing at all is sent for this long


@dataclass
class Status:
    code: int
    body: str


@dataclass
class Raw:
    body: str  # 200, text/html


class FakeOpenAI:
    def __init__(self, actions: list | None = None):
        self.actions = list(actions or [])
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                if self.path == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self._json(404, {"detail": "Not Found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                action = fake.actions.pop(0) if fake.actions else ""
                if isinstance(action, Slow):
                    time.sleep(action.seconds)
                    action = ""
                if isinstance(action, Status):
                    self._send(action.code, "application/json", action.body)
                elif isinstance(action, Raw):
                    self._send(200, "text/html", action.body)
                else:
                    self._stream(action)

            def _stream(self, action):
                cut = isinstance(action, Cut)
                text = action.text if cut else action
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                words = text.split(" ") if text else []
                for i, word in enumerate(words):
                    piece = word if i == 0 else " " + word
                    self._event({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                if cut:
                    self.wfile.flush()
                    self.connection.shutdown(2)  # gone, mid-reply
                    return
                self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                self.wfile.write(b"data: [DONE]\n\n")

            def _event(self, payload):
                self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
                self.wfile.flush()

            def _json(self, code, payload):
                self._send(code, "application/json", json.dumps(payload))

            def _send(self, code, ctype, text):
                data = text.encode()
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False  # a Slow handler may still sleep at teardown
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port_url() -> str:
    """A 127.0.0.1 URL where nothing listens."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"
