"""MCP tools against real SDK servers (stdio and streamable HTTP on 127.0.0.1), no chat model:
listing, calls, jsonschema validation of nested objects and enums, results, a crash mid-call, a
hang (timeout), trust, and the CLI."""

from __future__ import annotations

import json
import time

import pytest

from nanobot.config import load_settings
from nanobot.mcptools.feature import list_tools, servers_for
from nanobot.mcptools.schema_grammar import schema_grammar
from nanobot.tools.base import ToolContext
from nanobot.tools.runner import execute, validate
from tests.mcpserver import calls_made, http_server, stdio_server


def tools_for(home, timeout=20.0, **servers):
    settings = load_settings(home, mcp={"timeout_s": timeout, "servers": servers})
    tools, notices = list_tools(servers_for(settings))
    return settings, tools, notices


def call(settings, tools, name, raw, confirm=None):
    args, error = validate(tools[name], raw)
    assert args is not None, error
    return execute(tools[name], args, ToolContext(settings=settings, confirm=confirm))


@pytest.fixture(scope="module")
def http_url(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("http")
    with http_server(tmp / "calls.jsonl", tmp / "server.log") as url:
        yield url, tmp / "calls.jsonl"


def test_stdio_lists_calls_and_keeps_stderr_in_the_log(home, tmp_path, capfd):
    calls = tmp_path / "calls.jsonl"
    settings, tools, notices = tools_for(home, demo=stdio_server(calls))
    assert notices == []
    assert {"demo.echo", "demo.ship", "demo.set_mode", "demo.crash", "demo.hang"} <= set(tools)
    assert tools["demo.ship"].schema()["parameters"]["properties"]["to"] == {"$ref": "#/$defs/Address"}
    assert call(settings, tools, "demo.echo", '{"text": "hi"}') == (True, "echo: hi", [])
    assert calls_made(calls) == [{"tool": "echo", "args": {"text": "hi"}}]
    assert "echo called with 'hi'" in (home / "logs" / "mcp-demo.log").read_text()
    assert "echo called" not in capfd.readouterr().err


def test_http_lists_and_calls(home, http_url):
    url, calls = http_url
    settings, tools, notices = tools_for(home, cal={"url": url, "trust": "allow"})
    assert notices == [] and "cal.ship" in tools
    ok, text, _ = call(settings, tools, "cal.ship", json.dumps({"to": {"city": "Oslo", "zip": "01234"}}))
    assert (ok, text) == (True, "shipped to Oslo 01234 (slow)")
    assert calls_made(calls)[-1]["args"]["to"] == {"city": "Oslo", "zip": "01234"}


def test_arguments_are_validated_against_the_server_schema(home, tmp_path):
    _, tools, _ = tools_for(home, demo=stdio_server(tmp_path / "c"))
    ship, mode = tools["demo.ship"], tools["demo.set_mode"]
    assert validate(ship, '{"to": {"city": "Oslo", "zip": "01234"}, "speed": "fast", "tags": ["a"]}')[0]
    for raw, why in [('{"to": {"city": "Oslo", "zip": "1"}}', "to.zip: '1' does not match"),
                     ('{"to": {"city": "Oslo"}}', "to: 'zip' is a required property"),
                     ('{"to": {"city": "Oslo", "zip": "01234"}, "speed": "warp"}', "speed: 'warp' is not one of"),
                     ('{"to": {"city": "Oslo", "zip": "01234"}, "tags": ["a", "b", "c", "d"]}', "tags: "),
                     ('{"to": 1}', "to: 1 is not of type 'object'")]:
        args, error = validate(ship, raw)
        assert args is None and error.startswith("arguments for demo.ship are invalid: ") and why in error, error
    assert validate(mode, '{"mode": "eco"}')[0].root == {"mode": "eco"}
    assert "mode: 'warm' is not one of" in validate(mode, '{"mode": "warm"}')[1]


def test_results_summarise_images(home, tmp_path):
    settings, tools, _ = tools_for(home, demo=stdio_server(tmp_path / "c"))
    assert call(settings, tools, "demo.picture", "{}")[:2] == (True, "a red square\n[image: 12 KB]")


def test_a_crash_mid_call_is_one_line_and_the_server_restarts(home, tmp_path):
    calls = tmp_path / "calls.jsonl"
    settings, tools, _ = tools_for(home, demo=stdio_server(calls))
    ok, text, _ = call(settings, tools, "demo.crash", "{}")
    assert not ok and "\n" not in text
    assert text.startswith("MCP server 'demo' could not run crash: ") and "restarted on the next call" in text
    assert call(settings, tools, "demo.echo", '{"text": "again"}')[:2] == (True, "echo: again")
    assert [c["tool"] for c in calls_made(calls)] == ["crash", "echo"]
    assert "about to crash" in (home / "logs" / "mcp-demo.log").read_text()


def test_a_hung_server_times_out_and_restarts(home, tmp_path):
    settings, tools, _ = tools_for(home, demo=stdio_server(tmp_path / "c"))  # started with room to spare
    server = tools["demo.hang"].server
    server.timeout = 2.0  # then the call alone runs under a 2 s timeout
    start = time.monotonic()
    ok, text, _ = call(settings, tools, "demo.hang", "{}")
    assert time.monotonic() - start < 10  # 2 s timeout, 5x headroom
    assert not ok and "\n" not in text and "timed out after 2s ([mcp] timeout_s)" in text
    server.timeout = 20.0  # the restart (Python, the SDK, the handshake) is not what is timed
    assert call(settings, tools, "demo.echo", '{"text": "back"}')[:2] == (True, "echo: back")


def test_twice_failing_server_stays_down(home, tmp_path):
    settings, tools, _ = tools_for(home, demo=stdio_server(tmp_path / "c"))
    call(settings, tools, "demo.crash", "{}")
    ok, text, _ = call(settings, tools, "demo.crash", "{}")
    assert not ok and "stays down this session" in text
    ok, text, _ = call(settings, tools, "demo.echo", '{"text": "x"}')
    assert not ok and text.startswith("MCP server 'demo' is down after failing twice")


def test_a_server_that_cannot_start_costs_only_its_tools(home, tmp_path):
    _, tools, notices = tools_for(home, demo=stdio_server(tmp_path / "c"),
                                  gone={"command": str(tmp_path / "no-such-server")})
    assert "demo.echo" in tools and not any(n.startswith("gone.") for n in tools)
    assert len(notices) == 1 and notices[0].startswith("MCP server 'gone' did not start: ")


def test_trust_ask_asks_and_refuses_without_a_way_to_ask(home, tmp_path):
    calls = tmp_path / "calls.jsonl"
    settings, tools, _ = tools_for(home, demo=stdio_server(calls, trust="ask"))
    ok, text, _ = call(settings, tools, "demo.echo", '{"text": "hi"}')
    assert not ok and 'demo.echo refused: MCP server \'demo\' has trust = "ask"' in text
    asked = []
    ok, text, _ = call(settings, tools, "demo.echo", '{"text": "hi"}', confirm=lambda q: asked.append(q) or False)
    assert not ok and text == "the user declined to run demo.echo"
    assert asked == ['Run MCP tool demo.echo {"text": "hi"}?']
    assert calls_made(calls) == []
    assert call(settings, tools, "demo.echo", '{"text": "hi"}', confirm=lambda q: True)[0]
    assert len(calls_made(calls)) == 1


def test_cli_lists_shows_and_runs(cli, home, tmp_path):
    calls = tmp_path / "calls.jsonl"
    home.mkdir(parents=True, exist_ok=True)
    server = stdio_server(calls, trust="ask")
    (home / "config.toml").write_text(
        f"[mcp.servers.demo]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
        f"env = {{ DEMO_CALLS = {json.dumps(str(calls))} }}\n")
    r = cli("tools", "--json")
    rows = {t["name"]: t for t in json.loads(r.stdout)}
    assert r.returncode == 0 and rows["demo.ship"]["server"] == "demo" and rows["exec"]["server"] is None
    r = cli("tools", "demo.set_mode")
    assert r.returncode == 0 and json.loads(r.stdout)["parameters"]["properties"]["mode"]["enum"] == ["eco", "boost", "off"]
    r = cli("tools", "run", "demo.echo", '{"text": "hi"}')
    assert r.returncode == 1 and 'refused: MCP server \'demo\' has trust = "ask"' in r.stderr and calls_made(calls) == []
    r = cli("tools", "run", "demo.ship", '{"to": {"city": "Oslo", "zip": "1"}}')
    assert r.returncode == 2 and "to.zip: '1' does not match" in r.stderr
    with open(home / "config.toml", "a") as f:
        f.write('trust = "allow"\n')
    r = cli("tools", "run", "demo.echo", '{"text": "hi"}')
    assert (r.returncode, r.stdout) == (0, "echo: hi\n") and "echo called" not in r.stderr


def test_schema_grammar_reports_what_only_validation_checks():
    schema = {"type": "object", "properties": {
        "n": {"type": "number", "minimum": 1}, "u": {"type": "array", "uniqueItems": True},
        "e": {"type": "string", "format": "email"}, "k": {"not": {"const": 1}},
        "d": {"type": "string", "format": "date"}, "m": {"type": "integer", "minimum": 1, "maximum": 5},
        "p": {"type": "string", "pattern": "^\\d{3}$"}, "q": {"type": "string", "pattern": "(?=a)b"}}}
    g = schema_grammar(schema)
    assert g.unsupported == ["format", "minimum", "not", "pattern", "uniqueItems"]
    assert 'root-m ::= ("1" | "2" | "3" | "4" | "5") space' in g.gbnf
    assert "[0-9] [0-9] [0-9]" in g.gbnf or "{3}" in g.gbnf
