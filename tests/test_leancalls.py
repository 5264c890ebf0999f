"""The lean tools block (``tools.leancalls``) and the declined reply as plain prose (``tools.plain``): the
loop with a scripted model (what each generation is shown), then the real models: SmolLM2's stream
never carries template markup under the declined reply's stops, the 1.5B (skipped without its GGUF)
makes valid calls from the lean block and never samples a markup token after a decline."""

from __future__ import annotations

import json

import pytest

from nanobot.backends.base import Message
from nanobot.backends.openban import MARKUP
from nanobot.core.events import TextDelta, ToolCall, ToolResult
from nanobot.tools.callgrammar import OPEN
from nanobot.tools.leancalls import NAME_OPENING
from nanobot.tools.templatecalls import NO_OPENING, TemplateCalls
from tests.qwen import SKIP_REASON, fixed_clock, qwen_path
from tests.realmodel import Recorder
from tests.test_templatecalls import ToolTemplateModel, _check_calls, body, make_agent

QWEN = qwen_path()


def test_the_decision_sees_names_and_the_call_its_tools_schema_only(home):
    model = ToolTemplateModel(['write_file"', body("write_file", {"path": "a.txt", "content": "hi"}),
                               "Done."], [0.9, 0.1])
    agent = make_agent(home, model, listing="lean")
    events = list(agent.turn("write hi to a.txt"))
    assert [e for e in events if isinstance(e, ToolCall)] == [
        ToolCall(name="write_file", arguments={"path": "a.txt", "content": "hi"})]
    assert (agent.workspace / "a.txt").read_text() == "hi"
    pick, args, reply = model.calls
    for call in model.calls:  # one tools block all turn long: the KV prefix holds
        assert call["tools"] == [{"name": "read_file", "description": "read or show a file the user names"},
                                 {"name": "write_file", "description": "create a file, only when asked to"}]
    assert pick["prefill"] == f"{OPEN}\n{NAME_OPENING}" and pick["messages"][-1].role == "user"
    assert "write_file" in pick["grammar"] and "read_file" in pick["grammar"] and "arguments" not in pick["grammar"]
    schema = args["messages"][-2]  # before the user's message: the request is what the model read last
    assert schema.role == "system" and '"content"' in schema.content and "read_file" not in schema.content
    assert args["messages"][-1] == pick["messages"][-1] and args["messages"][:-2] == pick["messages"][:-1]
    assert "read_file" not in args["grammar"]
    assert not any('"parameters"' in m.content for m in reply["messages"])  # the schema left with the call
    assert [m.role for m in reply["messages"]][-2:] == ["assistant", "tool"]
    assert "## Tools" not in agent.system_prompt().text  # the tools slot lists them, not the index


def test_a_declined_reply_keeps_no_markup_and_no_abandoned_fence(home):
    for said, kept in [("The status is <tool_response>ok</tool_response>.", "The status is ok."),
                       ("```python\n{\n    \n\n\nTo fetch the page, use curl.", "To fetch the page, use curl.")]:
        model = ToolTemplateModel([said], [0.1])
        agent = make_agent(home, model, listing="lean")
        events = list(agent.turn("check the status"))
        shown = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert events[-1].reply == kept and agent.history[-1].content == kept
        assert "```" not in shown and "{" not in shown
        call = model.calls[-1]
        assert set(MARKUP) <= set(call["stop"]) and "```python\n{" in call["no_opening"]


def test_smollm2_never_streams_template_markup_in_a_declined_reply(home, model):
    """Without the markup stops SmolLM2 repeats the tags (it has no such tokens: they are spelled)."""
    ask = "Repeat exactly: The status is <tool_response>ok</tool_response>."
    agent = make_agent(home, model, call_format="template")
    stops = TemplateCalls(agent.tool_runner).stops()
    text = "".join(model.stream([Message(role="user", content=ask)], max_tokens=40, temperature=0.0,
                                stop=stops, no_opening=NO_OPENING))
    assert not any(m in text for m in MARKUP), text


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_calls_from_the_lean_block_and_never_samples_markup(home):
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.models import resolve_model

    qwen = LlamaBackend(resolve_model(load_settings(home), str(QWEN)))
    rec = Recorder(qwen)
    agent = make_agent(home, rec, clock=fixed_clock, listing="lean",
                       enabled=["read_file", "write_file", "list_dir", "exec"])
    (agent.workspace / "notes.txt").write_text("call Bob at 5\n")
    events = list(agent.turn("What does notes.txt say?"))  # under the threshold, the fact picks read_file
    assert [e.name for e in events if isinstance(e, ToolCall)][:1] == ["read_file"]
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    events = list(agent.turn("Create a new file greeting.txt that says hello"))  # no fact: the model picks
    assert "write_file" in [e.name for e in events if isinstance(e, ToolCall)]
    picks = [c for c in rec.calls if c["prefill"] == f"{OPEN}\n{NAME_OPENING}" and "arguments" not in c["grammar"]]
    # a pick by name, where the call needs one, reads the lean prompt
    assert all(c["messages"][-1].role == "user" for c in picks)
    rec.calls = [c for c in rec.calls if c not in picks]
    assert _check_calls(rec, agent) >= 1  # then the arguments: closed, parsed, valid
    assert all('"parameters"' not in json.dumps(c.get("tools")) for c in rec.calls)
    banned = TemplateCalls(agent.tool_runner)  # every markup token is masked for the whole reply
    ask = [Message(role="user", content="Repeat exactly: <tool_response>ok</tool_response> then <tool_call>")]
    text = "".join(qwen.stream(ask, max_tokens=40, temperature=0.0, no_opening=NO_OPENING,
                               tools=banned.specs))
    assert not any(m in text for m in MARKUP), text
