"""web_fetch and web_search against a real HTTP server on 127.0.0.1 (and a fake SearxNG)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.web import MAX_BYTES, WebFetch, WebSearch

PAGE = b"""<!doctype html><html><head><title>Test page</title><style>body{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Hello</h1><p>Some <b>bold</b> text &amp; more.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, code, body, ctype):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif url.path == "/plain":
            self._send(200, "plain text é".encode(), "text/plain; charset=utf-8")
        elif url.path == "/huge":
            self._send(200, b"a" * (MAX_BYTES + 1000), "text/plain")
        elif url.path == "/slow":
            time.sleep(5)  # 10x the 0.5 s timeout below
            self._send(200, b"late", "text/plain")
        elif url.path == "/search":
            q = parse_qs(url.query)
            assert q["format"] == ["json"]
            results = [{"title": f"Result {i} for {q['q'][0]}", "url": f"http://r{i}.test/",
                        "content": f"snippet {i}"} for i in range(7)]
            self._send(200, json.dumps({"results": results}).encode(), "application/json")
        else:
            self._send(404, b"not here", "text/plain")


@pytest.fixture(scope="module")
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def ctx_for(home, **tools) -> ToolContext:
    """The test servers live on 127.0.0.1, which web_fetch refuses unless the user allows it."""
    tools.setdefault("web_allow_hosts", ["127.0.0.1"])
    return ToolContext(settings=load_settings(home, tools=tools))


def fetch(ctx, url):
    return WebFetch().run(WebFetch.Args(url=url), ctx)


def test_fetch_returns_readable_text(home, server):
    text = fetch(ctx_for(home), f"{server}/page")
    assert text.splitlines()[0] == "Test page"
    assert "Hello" in text and "Some bold text & more." in text and "one\ntwo" in text
    assert "secret" not in text and "color:red" not in text
    assert fetch(ctx_for(home), f"{server}/plain") == "plain text é"


def test_fetch_caps_size_and_reports_http_errors(home, server):
    assert len(fetch(ctx_for(home), f"{server}/huge")) == MAX_BYTES
    with pytest.raises(ToolError, match="HTTP 404"):
        fetch(ctx_for(home), f"{server}/missing")


def test_fetch_times_out_quickly(home, server):
    start = time.monotonic()
    with pytest.raises(ToolError, match=r"no answer within 0.5s|timed out"):
        fetch(ctx_for(home, web_timeout=0.5), f"{server}/slow")
    assert time.monotonic() - start < 2.5  # 5x the timeout, and well before the 5 s answer


def test_fetch_refuses_other_schemes_and_fails_fast_offline(home):
    with pytest.raises(ToolError, match="not an http"):
        fetch(ctx_for(home), "file:///etc/passwd")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(ToolError, match="cannot connect"):
        fetch(ctx_for(home), f"http://127.0.0.1:{port}/")
    assert time.monotonic() - start < 2


def test_search_unconfigured_is_a_clear_immediate_error(home):
    with pytest.raises(ToolError, match="web_search_url"):
        WebSearch().run(WebSearch.Args(query="x"), ctx_for(home))


def test_search_against_fake_searxng(home, server):
    # the configured search engine is reachable without web_allow_hosts (it is often on localhost)
    out = WebSearch().run(WebSearch.Args(query="llama grammars"),
                          ctx_for(home, web_search_url=server, web_allow_hosts=[]))
    lines = out.splitlines()
    assert lines[0] == "1. Result 0 for llama grammars - http://r0.test/"
    assert lines[1].strip() == "snippet 0"
    assert out.count("http://r") == 5  # capped at 5 results


def test_search_endpoint_not_json(home, server):
    with pytest.raises(ToolError, match="SearxNG JSON"):
        WebSearch().run(WebSearch.Args(query="x"), ctx_for(home, web_search_url=f"{server}/page#"))
