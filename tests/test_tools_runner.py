"""The ToolRunner loop with a scripted model: decision, arguments, validation retries, truncation,
events and transcript records; plus grammar building for every registered tool."""

from __future__ import annotations

import json

import pytest

from nanobot.agent import Agent
from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.events import Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.session import read_transcript
from nanobot.tools.grammar import args_grammar, decision_grammar, parse_decision
from nanobot.tools.registry import all_tools
from nanobot.tools.runner import ToolRunner, attach_tools, validate
from nanobot.tools.truncate import truncate
from nanobot.workspace import init_workspace


def make_agent(home, replies, **tool_settings):
    settings = load_settings(home, tools=tool_settings, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(replies))
    attach_tools(agent)
    return agent


def test_validation_error_goes_back_to_the_model_and_the_retry_succeeds(home):
    agent = make_agent(home, ["call write_file", '{"path": "a.txt"}',
                              '{"path": "a.txt", "content": "hi"}', "reply", "Done."])
    events = list(agent.turn("write hi to a.txt"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.ok for r in results] == [False, True]
    assert "content" in results[0].text and "Field required" in results[0].text
    assert calls == [ToolCall(name="write_file", arguments={"path": "a.txt", "content": "hi"})]
    assert (agent.workspace / "a.txt").read_text() == "hi"
    done = events[-1]
    assert isinstance(done, TurnDone) and done.reply == "Done."
    # the retry saw the error as a tool message; the final reply saw the result
    calls_made = agent.model.calls
    retry_prompt = calls_made[2]["messages"]
    assert retry_prompt[-1].role == "user" and retry_prompt[-1].content.startswith("[tool write_file error]")
    assert calls_made[2]["grammar"] == args_grammar(all_tools()["write_file"].parameters())
    assert calls_made[4]["messages"][-1].content.startswith("[tool write_file result]")
    records, _ = read_transcript(agent.transcript.path)
    tool_recs = [(r.meta["kind"], r.meta.get("ok")) for r in records if r.role == "tool"]
    assert tool_recs == [("call", None), ("result", False), ("call", None), ("result", True)]


def test_retries_are_bounded_and_the_turn_still_ends_with_a_reply(home):
    bad = '{"path": 3}'
    agent = make_agent(home, ["call read_file", bad, bad, "reply", "Sorry."], max_retries=1)
    events = list(agent.turn("read it"))
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == 2 and not any(r.ok for r in results)
    assert not any(isinstance(e, ToolCall) for e in events)
    assert events[-1].reply == "Sorry."


def test_broken_json_and_unknown_decision_do_not_crash(home):
    agent = make_agent(home, ["call list_dir", '{"path": ', "call nonsense", "Hello."], max_retries=0)
    events = list(agent.turn("hi"))
    assert [e.ok for e in events if isinstance(e, ToolResult)] == [False]
    assert "not valid JSON" in next(e for e in events if isinstance(e, ToolResult)).text
    assert events[-1].reply == "Hello."


def test_execution_error_is_a_tool_result_and_max_steps_bounds_the_loop(home):
    agent = make_agent(home, ["call read_file", '{"path": "missing.txt"}'] * 2 + ["Gave up."],
                       max_steps=2)
    events = list(agent.turn("read missing.txt"))
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == 2 and "does not exist" in results[0].text
    assert any(isinstance(e, Notice) and "max_steps" in e.text for e in events)
    assert events[-1].reply == "Gave up."


def test_results_are_truncated_to_the_token_budget_with_a_note(home):
    agent = make_agent(home, ["call read_file", '{"path": "big.txt"}', "reply", "ok"],
                       output_tokens=20)
    (agent.workspace / "big.txt").write_text("\n".join(f"line {i} " + "word " * 5 for i in range(50)))
    events = list(agent.turn("read big.txt"))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok and "[truncated: showed" in result.text
    assert agent.model.count_tokens(result.text) <= 20 + 8


def test_message_tool_emits_a_notice_and_plain_reply_streams(home):
    agent = make_agent(home, ["call message", '{"text": "build finished"}', "reply", "Told you."])
    events = list(agent.turn("tell me when done"))
    assert Notice(text="build finished") in events
    assert any(isinstance(e, TextDelta) for e in events)
    records, _ = read_transcript(agent.transcript.path)
    assert any(r.role == "message" and r.content == "build finished" for r in records)


def test_disabled_tools_are_not_offered(home):
    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir"]})
    runner = ToolRunner(settings)
    assert runner.names() == ["read_file", "list_dir"]
    assert decision_grammar(runner.names()) == 'root ::= "reply" | "call " ("read_file" | "list_dir")'


def test_decision_parsing():
    names = ["exec", "read_file"]
    assert parse_decision("call read_file", names) == "read_file"
    assert parse_decision("reply", names) is None
    assert parse_decision("call rm", names) is None


@pytest.mark.parametrize("name", list(all_tools()))
def test_every_tool_schema_builds_a_grammar_and_rejects_unknown_keys(name):
    tool = all_tools()[name]
    grammar = args_grammar(tool.parameters())
    assert grammar.startswith("root") or "\nroot ::=" in grammar
    args, err = validate(tool(), json.dumps({"no_such_key": 1}))
    assert args is None and err


def test_truncate_keeps_short_text():
    count = lambda t: len(t.split())  # noqa: E731
    assert truncate("a b c", 5, count) == "a b c"
    assert truncate("a b c d e f", 3, count).endswith("[truncated: showed 2 of 6 tokens]")
