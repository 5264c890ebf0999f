"""The real model drives the tool paths that tests/test_tools_runner.py runs with the scripted one.

A forced decision through ``Agent.turn`` with its effect on disk, the memory tools' grammars run by
llama.cpp, a retry provoked by a validator no grammar can express, and truncation counted by the real
tokenizer. What decides the outcome is the runtime (grammars, validation, the tools), never which
words the model picks: each test holds on any CPU and thread count.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from pydantic import Field, field_validator

from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult, TurnDone
from nanobot.core.transcript import read_transcript
from nanobot.loop.agent import Agent
from nanobot.runtime import every_tool, tool_classes
from nanobot.tools.base import NoArgs, Tool, ToolArgs, ToolContext
from nanobot.tools.grammar import CALL, args_grammar, literal, parse_decision
from nanobot.tools.runner import ToolRunner, args_prefill
from nanobot.tools.truncate import truncate
from nanobot.workspace import init_workspace
from tests.realmodel import Recorder
from tests.test_tools_model import CUT

pytestmark = pytest.mark.slow
NOW = datetime(2026, 3, 2, 10, 30).astimezone()


def make_agent(home, model, memory: bool = False, **tools) -> Agent:
    settings = load_settings(home, chat={"temperature": 0, "max_tokens": 32},
                             memory={"enabled": memory}, observer={"enabled": False},
                             kv_cache={"enabled": False}, tools=tools)
    init_workspace(settings.workspace)
    agent = Agent(settings, Recorder(model), clock=lambda: NOW,  # tools come from the runner a test makes:
                  known_tools=lambda: list(tool_classes()))  # [tools] enabled may name any feature's
    agent.start_session()
    return agent


class ForcedRunner(ToolRunner):
    """The first decision is generated under a grammar that admits only ``Tool: <force>`` (llama.cpp
    runs it, so the decision step is real); later decisions use the real decision grammar.
    ``pinned`` replaces a tool's argument grammar (the schema's rules plus a narrower one)."""

    def __init__(self, settings, force: str, pinned: dict[str, str] | None = None):
        super().__init__(settings)
        self.force, self.pinned, self.forced_text = force, pinned or {}, None

    def decide(self, agent, msgs, names):
        if self.forced_text is not None:
            return super().decide(agent, msgs, names)
        grammar = f"root ::= {literal(CALL)} {literal(self.force)}"
        self.forced_text = self._generate(agent, msgs, grammar, "", 24, "decision", "")
        return parse_decision(self.forced_text, names)

    def grammar(self, tool, schema=None):
        return self.pinned.get(tool.name) or super().grammar(tool, schema)


def write_grammar() -> str:
    """write_file's arguments with the path pinned to ``[a-z][a-z0-9_-]{0,11}.txt`` and 1-60 chars
    of content: a free path may be refused, rightly (outside the workspace), and long content may be
    cut by tools.args_tokens, on one CPU and not another; this way the call always runs."""
    gbnf = args_grammar({"properties": {"path": {"type": "string"},
                                        "content": {"type": "string", "minLength": 1, "maxLength": 60}},
                         "required": ["path", "content"]})
    free = 'root-path ::= "\\"path\\"" space ":" space string'
    assert free in gbnf
    return gbnf.replace(free, 'root-path ::= "\\"path\\"" space ":" space filename') + \
        '\nfilename ::= "\\"" [a-z] [a-z0-9_-]{0,11} ".txt\\"" space'


def test_forced_write_file_turn_runs_end_to_end_and_writes_the_file(home, model):
    agent = make_agent(home, model, enabled=["write_file"])
    runner = ForcedRunner(agent.settings, "write_file", {"write_file": write_grammar()})
    agent.tool_runner = runner
    before = {p.relative_to(agent.workspace) for p in agent.workspace.rglob("*")}
    events = list(agent.turn("Write 'hello world' to hello.txt"))

    assert runner.forced_text == "Tool: write_file"  # the forced decision grammar held
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert calls and len(results) == len(calls)  # every attempt validated (the grammar held)
    final: dict[str, str] = {}
    for call, result in zip(calls, results):
        path, content = call.arguments["path"], call.arguments["content"]
        verb = "overwrote" if path in final or path in map(str, before) else "created"
        assert (call.name, result.ok) == ("write_file", True)
        assert result.text == f"{verb} {path} ({len(content)} chars)"
        final[path] = content
    for path, content in final.items():  # the effect on disk
        assert (agent.workspace / path).read_text() == content
    after = {p.relative_to(agent.workspace) for p in agent.workspace.rglob("*")}
    assert {str(p) for p in after - before} <= set(final) and set(final) - set(map(str, before)) \
        <= {str(p) for p in after - before}

    # the reply was generated after the results, from a prompt that carries them
    done = events[-1]
    assert isinstance(done, TurnDone)
    reply_call = agent.model.calls[-1]
    assert reply_call["grammar"] is None
    note = f"[tool write_file {json.dumps(calls[-1].arguments)} result]\n{results[-1].text}"
    assert reply_call["messages"][-1].content.endswith(note)
    records, _ = read_transcript(agent.transcript.path)
    tool = [(r.meta["kind"], r.meta.get("ok")) for r in records if r.role == "tool"]
    args_steps = [c for c in agent.model.calls if c["prefill"] == args_prefill(runner.tools["write_file"])]
    repeats = len(args_steps) - len(calls)  # a call identical to one already run ends the steps
    assert repeats in (0, 1)
    if repeats:
        assert json.loads(args_steps[-1]["text"]) in [c.arguments for c in calls]
    assert tool == [("call", None), ("result", True)] * len(calls) + [("call", None)] * repeats
    assert records[-1].role == "assistant" and records[-1].content == done.reply


def _steps(agent, events, tool) -> tuple[list[dict], ToolCall | None]:
    """The argument steps run under ``tool``'s own grammar, after its signature, and the call they led
    to. memory_add's text (500 chars) and memory_search's query (300) may run past tools.args_tokens on
    some CPU: each such step must be a reported cut (then retried); the one that ran closed."""
    steps = [c for c in agent.model.calls if c["grammar"] == args_grammar(tool.parameters())]
    calls = [e for e in events if isinstance(e, ToolCall)]
    cuts = [e for e in events if isinstance(e, ToolResult) and not e.ok and CUT in e.text]
    assert steps and all(c["prefill"] == args_prefill(tool()) for c in steps)
    assert len(steps) == len(cuts) + len(calls) and len(calls) <= 1, (steps, events)
    for step in steps[:len(cuts)]:
        assert step["finish_reason"] == "length", step
    if calls:
        assert steps[-1]["finish_reason"] == "stop" and json.loads(steps[-1]["text"]) is not None
    if cuts:
        print(f"[tools] {tool.name}: {len(cuts)} argument step(s) cut at args_tokens, reported and retried")
    return steps, calls[0] if calls else None


def test_memory_tools_grammars_run_on_the_real_model(home, model, embedder):
    from nanobot.memory.service import get_service
    from nanobot.memory.tools import MemoryAdd, MemorySearch

    agent = make_agent(home, model, memory=True, enabled=["memory_add", "memory_search"])
    runner = ToolRunner(agent.settings, every_tool(agent.settings)[1])  # the memory feature's
    assert runner.names() == ["memory_add", "memory_search"]
    svc = get_service(agent.settings)

    msgs = agent.messages_for("Remember that my sister is called Ana.")
    events = list(runner.call(agent, msgs, "memory_add"))
    _, add = _steps(agent, events, MemoryAdd)
    result = events[-1]
    if add is None:  # every attempt cut: nothing was written
        assert not result.ok and "MEMORY.md" not in result.text
    else:
        assert isinstance(result, ToolResult) and result.ok, result
        text = " ".join(add.arguments["text"].split())
        where = "MEMORY.md" if add.arguments["kind"] == "memory" else \
            f"observations/notes-{datetime.now():%Y-%m-%d}.md"
        assert result.text.startswith(f"remembered ({where}:") and result.text.endswith(")")
        line = int(result.text[len(f"remembered ({where}:"):-1])
        assert (agent.workspace / where).read_text().splitlines()[line - 1] == f"- {text}"
        assert any(text in " ".join(h.text.split()) for h in svc.search(text, 5))  # indexed at once

    msgs = agent.messages_for("What is my sister called? Search your memory.")
    events = list(runner.call(agent, msgs, "memory_search"))
    _, search = _steps(agent, events, MemorySearch)
    if search is not None:
        assert events[-1].ok
        direct = MemorySearch().run(MemorySearch.Args(**search.arguments), ToolContext.for_agent(agent))
        assert events[-1].text == truncate(direct, agent.settings.tools.output_tokens, model.count_tokens)


def test_a_validator_the_grammar_cannot_express_provokes_a_retry(home, model):
    seen: list[str] = []

    class PickArgs(ToolArgs):
        color: str = Field(description="a colour name", min_length=1, max_length=20)

        @field_validator("color")
        @classmethod
        def not_the_first(cls, value: str) -> str:
            seen.append(value)
            if len(seen) == 1:
                raise ValueError("that colour is taken, pick another")
            return value

    class Pick(Tool):
        name = "pick_color"
        description = "Pick a colour."
        Args = PickArgs

        def run(self, args: PickArgs, ctx: ToolContext) -> str:
            return f"picked {args.color}"

    agent = make_agent(home, model)
    runner = ToolRunner(agent.settings, tools={"pick_color": Pick()})
    msgs = agent.messages_for("Pick a colour for the logo.")
    events = list(runner.call(agent, msgs, "pick_color"))

    first, second = [c for c in agent.model.calls if c["grammar"]]
    rejected = json.loads(first["text"])["color"]
    assert seen == [rejected, json.loads(second["text"])["color"]]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.ok for r in results] == [False, True]
    assert results[0].text == ("arguments for pick_color are invalid: color: Value error, that colour "
                               "is taken, pick another; fix the arguments and try again")
    assert [e for e in events if isinstance(e, ToolCall)] == [
        ToolCall(name="pick_color", arguments={"color": seen[1]})]
    assert results[1].text == f"picked {seen[1]}"
    # the retry saw the error: it was generated from a prompt that ends with it
    error_note = f"[tool pick_color {first['text'].strip()} error]\n{results[0].text}"
    assert second["messages"][-1].content.endswith(error_note)
    assert msgs[-1].content.endswith(f"[tool pick_color {json.dumps({'color': seen[1]})} result]\n"
                                     f"picked {seen[1]}")


LONG = "\n".join(f"Zeile {i}: naïve café — 数据 {i * 7919} " + "word " * (i % 9) for i in range(300))


@pytest.mark.parametrize("budget", [32, 64, 400])
@pytest.mark.parametrize("text", [LONG, LONG.replace("\n", " ")], ids=["lines", "one-line"])
def test_truncation_is_counted_with_the_real_tokenizer(model, budget, text):
    """The note's figures cost a token per digit: the result must still fit the budget."""
    count = model.count_tokens
    out = truncate(text, budget, count)
    head, note = out.rsplit("\n", 1)
    assert count(out) <= budget, (count(out), out[-80:])
    assert text.startswith(head) and note == f"[truncated: showed {count(head)} of {count(text)} tokens]"


def test_a_long_tool_result_is_cut_to_output_tokens_by_the_real_tokenizer(home, model):
    class Dump(Tool):
        name = "dump"
        description = "Print a long text."
        Args = NoArgs

        def run(self, args, ctx) -> str:
            return LONG

    agent = make_agent(home, model, output_tokens=64)
    runner = ToolRunner(agent.settings, tools={"dump": Dump()})
    msgs = agent.messages_for("Dump the text.")
    events = list(runner.call(agent, msgs, "dump"))
    assert events[0] == ToolCall(name="dump", arguments={})  # "{}" under the empty object's grammar
    result = events[-1]
    assert result.ok and model.count_tokens(result.text) <= 64
    assert result.text.endswith(f"of {model.count_tokens(LONG)} tokens]")
    assert msgs[-1].content.endswith(f"[tool dump {{}} result]\n{result.text}")
