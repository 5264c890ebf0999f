"""MCP tool input schemas are data (issue 28, class 2): a real stdio MCP server (tests/mcp_servers/
hostile.py, JSON-RPC by hand) serves schemas with remote references, self-references, reference
loops, dangling pointers, a nested ``$id`` and deep nesting. Each bad tool is left out with one
notice naming it, nothing is fetched (a real HTTP server on 127.0.0.1 counts requests), nothing
ends in a traceback, and the good tools beside them still list and run."""

from __future__ import annotations

import http.server
import json
import re
import sys
import threading
from pathlib import Path

import pytest

from nanobot.config import load_settings
from nanobot.mcptools.feature import list_tools, servers_for
from nanobot.tools.base import ToolContext
from nanobot.tools.runner import execute, validate

HOSTILE = Path(__file__).parent / "mcp_servers" / "hostile.py"


@pytest.fixture
def web():
    """A schema server on 127.0.0.1 that counts what is asked of it."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            body = json.dumps({"type": "string"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()


def deep(n: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(n):
        node = {"type": "object", "properties": {"x": node}}
    return node


def schemas(url: str) -> tuple[dict, dict]:
    good = {
        "plain": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "tree": {"type": "object", "properties": {"node": {"$ref": "#/$defs/N"}},
                 "$defs": {"N": {"type": "object", "properties": {
                     "kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}}},
    }
    bad = {
        "remote": {"type": "object", "properties": {"x": {"$ref": f"{url}/s.json"}}},
        "remote_allof": {"type": "object", "allOf": [{"$ref": f"{url}/all.json"}]},
        "relative_to_id": {"$id": f"{url}/root.json", "type": "object",
                           "properties": {"x": {"$ref": "other.json"}}},
        "nested_id": {"type": "object", "properties": {"x": {"$id": f"{url}/sub.json",
                                                             "$ref": "#/$defs/y"}}},
        "dynamic_remote": {"type": "object", "properties": {"x": {"$dynamicRef": f"{url}/d.json"}}},
        "self": {"type": "object", "$ref": "#"},
        "allof_self": {"type": "object", "allOf": [{"$ref": "#"}]},
        "chain": {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}},
                  "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}},
        "dangling": {"type": "object", "properties": {"x": {"$ref": "#/$defs/nope"}}},
        "deep": deep(40),
    }
    return good, bad


def test_hostile_schemas_leave_only_their_tools_out_and_fetch_nothing(home, tmp_path, web):
    url, hits = web
    good, bad = schemas(url)
    server = {"command": sys.executable, "args": [str(HOSTILE)], "trust": "allow",
              "env": {"HOSTILE_SCHEMAS": json.dumps({**good, **bad})}}
    settings = load_settings(home, mcp={"timeout_s": 30, "servers": {"h": server}})
    tools, notices = list_tools(servers_for(settings))
    for name in tools:  # whatever was listed is validated as the runner would
        validate(tools[name], json.dumps({"q": "x", "x": 1, "node": {"kids": []}}))
    assert hits == [], f"jsonschema fetched {hits}"
    assert set(tools) == {"h.plain", "h.tree"}
    left_out = [n for n in notices if n.endswith("tool left out")]
    assert len(left_out) == len(bad)
    for name in bad:
        assert sum(f"h.{name}:" in n for n in left_out) == 1, (name, left_out)
    assert all("\n" not in n and "Traceback" not in n for n in notices)
    args, error = validate(tools["h.plain"], '{"q": "hello"}')
    assert error == ""
    ok, text, _ = execute(tools["h.plain"], args, ToolContext(settings=settings))
    assert (ok, text) == (True, "called")
    args, error = validate(tools["h.tree"], '{"node": {"kids": [{"kids": []}]}}')
    assert error == ""


@pytest.mark.parametrize("schema,why", [
    ({"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}, "remote $ref"),
    ({"type": "object", "$ref": "#"}, "refers to itself in a loop"),
    ({"type": "object", "not": {"$ref": "#"}}, "refers to itself in a loop"),
    ({"type": "object", "properties": {"x": {"$ref": "#/$defs/%"}}}, "points at nothing"),
    (deep(40), "nested deeper than"),
])
def test_schema_vetting_names_the_problem(schema, why):
    from nanobot.base.errors import ToolError
    from nanobot.mcptools.tool import args_model

    with pytest.raises(ToolError, match=re.escape(why)):
        args_model("s.t", schema)
