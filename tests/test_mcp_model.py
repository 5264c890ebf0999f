"""MCP tools with the real bundled model and the real embedder: a forced call whose arguments are
generated under the grammar built from the server's JSON Schema (nested object, enum) over stdio
and streamable HTTP, a crash inside a chat turn, trust "ask" refused in a piped chat, and 200 tools:
the index stays <= 100 tokens and tool_search finds the right tool for 10 stated needs.

The decision is forced (llama.cpp runs a one-name grammar); what the model writes into the
arguments is its own, and the test checks only what the runtime guarantees: they validate against
the server's schema and reach the server as validated.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import jsonschema
import pytest

from nanobot.cli.chat import ChatUI
from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult, TurnDone
from nanobot.loop.agent import Agent
from nanobot.mcptools.feature import McpFeature
from nanobot.mcptools.tool import McpTool
from nanobot.tools.base import ToolContext
from nanobot.tools.grammar import CALL, literal, parse_decision
from nanobot.tools.runner import ToolRunner
from nanobot.workspace import init_workspace
from tests.conftest import run_cli
from tests.mcpserver import calls_made, http_server, stdio_server
from tests.realmodel import Recorder, llama_accepts

sys.path.insert(0, str(Path(__file__).parent / "mcp_servers"))
from catalog import NEEDS  # noqa: E402

pytestmark = pytest.mark.slow
NOW = datetime(2026, 3, 2, 10, 30).astimezone()


class Forced(ToolRunner):
    """The first decision can only be ``Tool: <force>`` (llama.cpp runs that grammar); then reply."""

    def __init__(self, settings, tools, force: str):
        super().__init__(settings, tools)
        self.force, self.forced = force, False

    def decide(self, agent, msgs, names):
        if self.forced:
            return None
        self.forced = True
        text = self._generate(agent, msgs, f"root ::= {literal(CALL)} {literal(self.force)}", "", 24,
                              "decision", "")
        return parse_decision(text, names)


def mcp_agent(home, model, **servers) -> Agent:
    settings = load_settings(home, chat={"temperature": 0, "max_tokens": 16}, memory={"enabled": False},
                             observer={"enabled": False}, kv_cache={"enabled": False},
                             tools={"args_tokens": 512}, mcp={"timeout_s": 30, "servers": servers})
    init_workspace(settings.workspace)
    agent = Agent(settings, Recorder(model), clock=lambda: NOW)
    agent.add_feature(McpFeature(settings))
    agent.start_session()
    return agent


def forced_turn(agent: Agent, force: str, text: str) -> tuple[list, McpTool]:
    tool = agent.tool_runner.tools[force]
    agent.tool_runner = Forced(agent.settings, dict(agent.tool_runner.tools), force)
    events = list(agent.turn(text))
    assert isinstance(events[-1], TurnDone)
    return events, tool


@pytest.fixture(scope="module")
def http_url(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("http")
    with http_server(tmp / "calls.jsonl", tmp / "server.log") as url:
        yield url, tmp / "calls.jsonl"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_forced_call_with_nested_object_validates_and_reaches_the_server(home, model, tmp_path, http_url, transport):
    if transport == "stdio":
        calls = tmp_path / "calls.jsonl"
        agent = mcp_agent(home, model, demo=stdio_server(calls))
    else:
        url, calls = http_url
        agent = mcp_agent(home, model, demo={"url": url, "trust": "allow"})
    before = len(calls_made(calls))
    events, tool = forced_turn(agent, "demo.ship", "Ship the parcel to Oslo, postal code 01234, fast.")
    arg_calls = [c for c in agent.model.calls if c["grammar"] == tool.grammar()]
    assert arg_calls, "the arguments were not generated under the schema's grammar"
    sent = [e for e in events if isinstance(e, ToolCall)]
    assert len(sent) == 1, [c["text"] for c in arg_calls]
    jsonschema.validate(sent[0].arguments, tool.input_schema)  # the server's own schema
    assert set(sent[0].arguments["to"]) == {"city", "zip"}
    result = [e for e in events if isinstance(e, ToolResult)][-1]
    assert result.ok and result.text.startswith("shipped to "), result.text
    made = calls_made(calls)[before:]
    assert [m["tool"] for m in made] == ["ship"] and made[0]["args"]["to"] == sent[0].arguments["to"]


def test_forced_enum_call(home, model, tmp_path):
    calls = tmp_path / "calls.jsonl"
    agent = mcp_agent(home, model, demo=stdio_server(calls))
    events, tool = forced_turn(agent, "demo.set_mode", "Put the heater in eco mode.")
    sent = [e for e in events if isinstance(e, ToolCall)]
    assert len(sent) == 1 and sent[0].arguments["mode"] in ("eco", "boost", "off")
    assert calls_made(calls) == [{"tool": "set_mode", "args": sent[0].arguments}]


def test_a_crash_inside_a_turn_is_one_line_and_the_chat_goes_on(home, model, tmp_path):
    agent = mcp_agent(home, model, demo=stdio_server(tmp_path / "calls.jsonl"))
    events, _ = forced_turn(agent, "demo.crash", "Crash it.")
    result = [e for e in events if isinstance(e, ToolResult)][-1]
    assert not result.ok and "\n" not in result.text and "could not run crash" in result.text
    events, _ = forced_turn(agent, "demo.echo", "Echo hello.")
    assert [e for e in events if isinstance(e, ToolResult)][-1].ok  # restarted


def test_trust_ask_is_refused_in_a_piped_chat(home, model, tmp_path):
    calls = tmp_path / "calls.jsonl"
    agent = mcp_agent(home, model, demo=stdio_server(calls, trust="ask"))
    ChatUI(agent, interactive=False, verbose=False)
    assert agent.confirm is None
    events, _ = forced_turn(agent, "demo.echo", "Echo hello.")
    results = [e for e in events if isinstance(e, ToolResult) and "refused" in e.text]
    assert results and not results[0].ok
    assert "has trust = \"ask\" and this session cannot ask the user" in results[0].text
    assert calls_made(calls) == []


def test_grammars_of_every_demo_tool_are_accepted_by_llama(home, model, tmp_path):
    agent = mcp_agent(home, model, demo=stdio_server(tmp_path / "c", many=True))
    tools = [t for t in agent.tool_runner.tools.values() if getattr(t, "group", "")]  # (under the call policy)
    assert len(tools) > 200
    assert all(llama_accepts(model, t.grammar()) for t in tools)


def test_200_tools_index_and_tool_search(home, model, embedder, tmp_path):
    agent = mcp_agent(home, model, demo=stdio_server(tmp_path / "c", many=True))
    runner = agent.tool_runner
    assert "tool_search" in runner.tools and len(runner.tools) > 200
    report = runner.cost_report(model.count_tokens)
    assert report["compact_index"] and report["index_tokens"] <= 100, report["index_tokens"]
    text = agent.system_prompt().text
    assert "tool_search" in text and "demo (206)" in text and "demo.calendar_delete" not in text
    ctx = ToolContext.for_agent(agent)
    search = runner.tools["tool_search"]
    for need, want in NEEDS:
        found = search.run(search.Args(query=need), ctx).splitlines()
        assert len(found) == 5 and f"demo.{want}" in [f.split(":")[0] for f in found], (need, found)
    assert "demo.calendar_delete" in runner.names()  # the decision grammar admits every name


def test_prompt_json_reports_the_index_size(home, tmp_path):
    home.mkdir(parents=True, exist_ok=True)
    server = stdio_server(tmp_path / "c", many=True)
    (home / "config.toml").write_text(
        f"[mcp.servers.demo]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
        'env = { DEMO_MANY = "1" }\ntrust = "allow"\n')
    r = run_cli("prompt", "--json", home=home)
    assert r.returncode == 0, r.stderr
    tools = json.loads(r.stdout)["tools"]
    assert tools["tools"] > 200 and tools["compact_index"] and tools["index_tokens"] <= 100
