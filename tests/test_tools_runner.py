"""The ToolRunner loop with a scripted model: decision, arguments, validation retries, truncation,
events and transcript records; plus grammar building for every registered tool."""

from __future__ import annotations

import json

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.core.transcript import read_transcript
from nanobot.loop.agent import Agent
from nanobot.runtime import tool_classes
from nanobot.tools.feature import attach_tools
from nanobot.tools.grammar import args_grammar, decision_grammar, parse_decision
from nanobot.tools.runner import ToolRunner, validate
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
    agent = make_agent(home, ["Tool: write_file", '{"path": "a.txt"}',
                              '{"path": "a.txt", "content": "hi"}', "Answer:", "Done."])
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
    assert retry_prompt[-1].role == "user"
    assert retry_prompt[-1].content.startswith("write hi to a.txt\n\n[tool write_file {\"path\": \"a.txt\"} error]\n")
    assert "content: Field required" in retry_prompt[-1].content
    held = tool_classes()["write_file"].parameters()  # its path held to the file the message names
    held["properties"]["path"] = held["properties"]["path"] | {"enum": ["a.txt"]}
    assert calls_made[2]["grammar"] == args_grammar(held)
    assert calls_made[4]["messages"][-1].content.endswith(
        '[tool write_file {"path": "a.txt", "content": "hi"} result]\ncreated a.txt (2 chars)')
    assert [m.role for m in calls_made[4]["messages"]] == ["system", "user"]  # roles alternate
    records, _ = read_transcript(agent.transcript.path)
    tool_recs = [(r.meta["kind"], r.meta.get("ok")) for r in records if r.role == "tool"]
    assert tool_recs == [("call", None), ("result", False), ("call", None), ("result", True)]


def test_retries_are_bounded_and_the_turn_still_ends_with_a_reply(home):
    bad = '{"path": 3}'
    agent = make_agent(home, ["Tool: read_file", bad, bad, "Answer:", "Sorry."], max_retries=1)
    events = list(agent.turn("read it"))
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == 2 and not any(r.ok for r in results)
    assert not any(isinstance(e, ToolCall) for e in events)
    assert events[-1].reply == "Sorry."


def test_broken_json_and_unknown_decision_do_not_crash(home):
    agent = make_agent(home, ["Tool: list_dir", '{"path": ', "Tool: nonsense", "Hello."], max_retries=0)
    events = list(agent.turn("hi"))
    assert [e.ok for e in events if isinstance(e, ToolResult)] == [False]
    assert "not valid JSON" in next(e for e in events if isinstance(e, ToolResult)).text
    assert events[-1].reply == "Hello."


def test_execution_error_is_a_tool_result_and_max_steps_bounds_the_loop(home):
    agent = make_agent(home, ["Tool: read_file", '{"path": "missing.txt"}',
                              "Tool: read_file", '{"path": "gone.txt"}', "Gave up."], max_steps=2)
    events = list(agent.turn("What is in missing.txt?"))  # ("read X" nanobot reads itself)
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == 2 and "does not exist" in results[0].text
    assert any(isinstance(e, Notice) and "max_steps" in e.text for e in events)
    assert events[-1].reply == "Gave up."


def test_results_are_truncated_to_the_token_budget_with_a_note(home):
    agent = make_agent(home, ["Tool: read_file", '{"path": "big.txt"}', "Answer:", "ok"],
                       output_tokens=32)
    (agent.workspace / "big.txt").write_text("\n".join(f"line {i} " + "word " * 5 for i in range(50)))
    events = list(agent.turn("read big.txt"))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok and "[truncated: showed" in result.text
    assert agent.model.count_tokens(result.text) <= 32  # the note included


def test_message_tool_emits_a_notice_and_plain_reply_streams(home):
    agent = make_agent(home, ["Tool: message", '{"text": "build finished"}', "Answer:", "Told you."],
                       enabled=["message", "read_file"])
    events = list(agent.turn("tell me when done"))
    assert Notice(text="build finished") in events
    assert any(isinstance(e, TextDelta) for e in events)
    records, _ = read_transcript(agent.transcript.path)
    assert any(r.role == "message" and r.content == "build finished" for r in records)


def test_disabled_tools_are_not_offered(home):
    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir"]})
    runner = ToolRunner(settings)
    assert runner.names() == ["read_file", "list_dir"]
    assert decision_grammar(runner.names()) == 'root ::= "Answer:" | "Tool: " ("read_file" | "list_dir")'


def test_the_message_tool_is_offered_only_where_enabled_names_it(home):
    """A chat's reply is what the user reads: a second way to say something is off by default, listed
    by ``nanobot tools`` as disabled, and on where ``[tools] enabled`` names it."""
    assert "message" not in ToolRunner(load_settings(home)).names()
    assert "read_file" in ToolRunner(load_settings(home)).names()
    assert ToolRunner(load_settings(home, tools={"enabled": ["message"]})).names() == ["message"]


def test_decision_parsing():
    names = ["exec", "read_file"]
    assert parse_decision("Tool: read_file", names) == "read_file"
    assert parse_decision("Answer:", names) is None
    assert parse_decision("Tool: rm", names) is None


def example_args(schema: dict) -> dict:
    """The smallest arguments ``schema`` admits: each required key with a simple valid value."""
    out = {}
    for key in schema.get("required", []):
        prop = schema["properties"][key]
        if "enum" in prop:
            out[key] = prop["enum"][0]
        elif prop.get("type") == "integer":
            out[key] = prop.get("minimum", 1)
        else:
            out[key] = "x" * max(1, prop.get("minLength", 1))
    return out


@pytest.mark.parametrize("name", list(tool_classes()))
def test_every_tool_rejects_unknown_keys_and_says_which(name):
    tool = tool_classes()[name]()
    good = example_args(tool.parameters())
    args, err = validate(tool, json.dumps(good))
    assert args is not None and err == ""  # the same arguments without the stray key are fine
    args, err = validate(tool, json.dumps(good | {"no_such_key": 1}))
    assert args is None
    assert err == f"arguments for {name} are invalid: no_such_key: Extra inputs are not permitted"


@pytest.mark.slow
def test_every_grammar_compiles_in_llama_cpp(model):
    """llama.cpp's own parser accepts every grammar nanobot builds (one it rejects would give a NULL
    sampler: unconstrained output). The builder's output must also be one llama.cpp can reject."""
    from nanobot.observer.observation import draft_grammar
    from tests.realmodel import llama_accepts

    grammars = {name: args_grammar(tool.parameters()) for name, tool in tool_classes().items()}
    grammars["decision"] = decision_grammar(list(tool_classes()))
    grammars["observation"] = draft_grammar()
    assert {n: llama_accepts(model, g) for n, g in grammars.items()} == dict.fromkeys(grammars, True)
    assert not llama_accepts(model, grammars["exec"].replace("root-command ::=", "root-cmd ::=", 1))


def test_truncate_keeps_short_text():
    count = lambda t: len(t.split())  # noqa: E731
    assert truncate("a b c", 5, count) == "a b c"
    # the note (6 words here) is reserved: 3 words of text + 6 of note fit 10
    assert truncate("a b c d e f g h i j k l", 10, count) == "a b c\n[truncated: showed 3 of 12 tokens]"


def test_no_tool_step_when_the_context_is_nearly_full(home):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["Fine."], n_ctx=1200))
    attach_tools(agent)
    events = list(agent.turn("hi"))
    assert any(isinstance(e, Notice) and "nearly full" in e.text for e in events)
    assert events[-1].reply == "Fine." and len(agent.model.calls) == 1  # no decision step ran


def test_a_repeated_identical_call_ends_the_tool_steps(home):
    call = ["Tool: task_board", '{"action": "add", "title": "milk"}']
    agent = make_agent(home, call * 2 + ["Added."])
    events = list(agent.turn("add milk"))
    assert sum(isinstance(e, ToolCall) for e in events) == 1
    assert events[-1].reply == "Added."
    assert "added task #1: milk" in agent.model.calls[-1]["messages"][-1].content


def test_a_tools_grammar_and_group_come_from_the_tool():
    """``Tool.grammar()``/``Tool.group`` on the base: the runner asks the tool, nothing probes for them."""
    import ast
    from pathlib import Path

    from nanobot.tools.base import Tool
    from nanobot.tools.grammar import args_grammar
    from nanobot.tools.runner import ToolRunner

    class Own(Tool):
        name = "own"

        def grammar(self) -> str:
            return 'root ::= "{}"'

    class Plain(Tool):
        name = "plain"

    runner = ToolRunner.__new__(ToolRunner)
    runner._grammars = {}
    assert runner.grammar(Own()) == 'root ::= "{}"'
    assert runner.grammar(Plain()) == args_grammar(Plain.parameters()) and Plain().group == ""
    pkg = Path(__file__).resolve().parent.parent / "nanobot"
    probes = [f"{p.name}:{n.lineno}" for p in pkg.rglob("*.py") for n in ast.walk(ast.parse(p.read_text()))
              if isinstance(n, ast.Call) and getattr(n.func, "id", "") in ("getattr", "hasattr")
              and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant) and n.args[1].value in ("grammar", "group")]
    assert probes == []


def test_every_call_path_runs_its_validated_call_through_run_valid(home, monkeypatch):
    """The names path, the template path and a call written as the reply share one run step."""
    from tests.test_templatecalls import ToolTemplateModel, body
    from tests.test_templatecalls import make_agent as template_agent

    ran = []
    real = ToolRunner.run_valid

    def spy(self, agent, name, args):
        ran.append(name)
        return (yield from real(self, agent, name, args))

    monkeypatch.setattr(ToolRunner, "run_valid", spy)
    names = make_agent(home, ["Tool: write_file", '{"path": "a.txt", "content": "hi"}', "Answer:", "Done."])
    list(names.turn("write hi to a.txt"))
    assert ran == ["write_file"]
    written = make_agent(home, ["Answer:", '{"name": "read_file", "arguments": {"path": "a.txt"}}',
                                      "Answer:", "It says hi."])
    list(written.turn("What is in a.txt?"))
    assert ran == ["write_file", "read_file"]
    model = ToolTemplateModel([body("read_file", {"path": "a.txt"}), "hi"], [0.9, 0.1])
    list(template_agent(home, model).turn("What is in a.txt?"))
    assert ran == ["write_file", "read_file", "read_file"]
