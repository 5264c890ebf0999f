"""After edit_file's text to replace was not found, the turn's next edit_file call is generated with
``old`` held to whole lines of that file that the request is about (``tools.retryedit``), so the
retry applies instead of guessing the same text again; with no line about the request it stays free."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.agent import Agent
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.feature import attach_tools
from nanobot.tools.files import EditFile
from nanobot.tools.runner import ToolRunner
from nanobot.tools.templatecalls import TemplateCalls
from nanobot.workspace import init_workspace
from tests.test_callgrammar import accepts

DEPLOY = "service: quokka-api\nreplicas: 2\nregion: eu-north-1\ntimeout_seconds: 45\n"
ASK = "We're scaling up: deploy.yaml should run four replicas instead of two."


def _ctx(home, said):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "deploy.yaml").write_text(DEPLOY)
    return ToolContext(settings=settings, agent=SimpleNamespace(provenance=Provenance(said=[said]), features=[], judge=Judge()))


def _old(schema):
    """The schema's ``old`` (``path`` is held to the file the message names whether or not an edit missed)."""
    return schema["properties"]["old"]


def _missed(ctx):
    with pytest.raises(ToolError, match="not found"):
        EditFile().run(EditFile.Args(path="deploy.yaml", old="two", new="four"), ctx)


def test_the_retry_after_a_miss_is_held_to_the_lines_the_request_is_about(home):
    ctx = _ctx(home, ASK)
    assert _old(EditFile().offered(ctx)) == _old(EditFile.parameters())  # no miss yet: free
    _missed(ctx)
    old = EditFile().offered(ctx)["properties"]["old"]
    assert old["x-from"] == [1] and old["x-lines"] == DEPLOY.splitlines()  # "replicas: 2"
    assert EditFile().offered(ctx)["properties"]["path"]["enum"] == ["deploy.yaml"]
    assert "x-from" not in json.dumps(EditFile.parameters())  # the class's schema is untouched
    ctx.agent.provenance.said.append("thanks")  # a new message: the miss was another turn's
    assert EditFile().offered(ctx) == EditFile.parameters()  # (and "thanks" names no file)


def test_a_retry_with_no_line_about_the_request_stays_free(home):
    ctx = _ctx(home, "there is a typo in deploy.yaml, fix it")
    _missed(ctx)
    assert _old(EditFile().offered(ctx)) == _old(EditFile.parameters())


def test_an_applied_edit_ends_the_hold(home):
    ctx = _ctx(home, ASK)
    _missed(ctx)
    EditFile().run(EditFile.Args(path="deploy.yaml", old="replicas: 2", new="replicas: 4"), ctx)
    assert _old(EditFile().offered(ctx)) == _old(EditFile.parameters())


@pytest.mark.parametrize("old, held", [
    ("replicas: 2", True), ("replicas: 2\nregion: eu-north-1", True), ("two", False),
    ("service: quokka-api", False), ("replicas: 3", False), ("replicas", False),
])
def test_the_call_grammar_admits_only_runs_of_lines_from_one_the_request_is_about(model, home, old, held):
    """Checked by llama.cpp's own grammar engine, on the template path's call grammar."""
    ctx = _ctx(home, ASK)
    _missed(ctx)
    calls = TemplateCalls(ToolRunner(ctx.settings, tools={"edit_file": EditFile()}))
    text = json.dumps({"name": "edit_file", "arguments": {"path": "deploy.yaml", "old": old, "new": "x"}}) + "\n</tool_call>"
    assert accepts(model, calls.grammar("edit_file", ctx), text) is held


def test_the_real_model_s_retry_applies(model, home):
    """The real SmolLM2 writes the retry's arguments after a miss: the text it replaces is in the file,
    so the edit applies (no second "not found"), and the lines the request is not about are kept."""
    settings = load_settings(home, tools={"enabled": ["edit_file", "read_file"]},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "deploy.yaml").write_text(DEPLOY)
    agent = Agent(settings, model)
    attach_tools(agent)
    agent.start_session()
    agent.provenance.said.append(ASK)
    ctx = ToolContext.for_agent(agent)
    _missed(ctx)
    runner = agent.tool_runner
    raw, args, error = runner.arguments(agent, agent.messages_for(ASK), runner.tools["edit_file"])
    assert args is not None, (raw, error)
    assert args.old.startswith("replicas: 2"), raw
    ok, text, _ = runner.execute(agent, runner.tools["edit_file"], args)
    assert "not found" not in text, text
    kept = (settings.workspace / "deploy.yaml").read_text()
    assert kept.startswith("service: quokka-api\n"), kept
