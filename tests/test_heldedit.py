"""``tools.heldedit``: where the user's message names one existing file, edit_file's call is generated with
that path and a text the file holds (a run of whole lines or one of its words), checked by llama.cpp's own
grammar engine and with the real bundled model writing the arguments."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.agent import Agent
from nanobot.tools.base import ToolContext
from nanobot.tools.feature import attach_tools
from nanobot.tools.files import EditFile
from nanobot.tools.runner import ToolRunner
from nanobot.tools.templatecalls import TemplateCalls
from nanobot.workspace import init_workspace
from tests.test_callgrammar import accepts

PRICING = ('def discount(price, pct):\n    return round(price * pct / 100, 2)\n\n\n'
           'def split_bill(total, people):\n    return round(total / people, 2)\n\n\n'
           'if __name__ == "__main__":\n\tprint("Grüße", split_bill(10, 4))\n')


@pytest.fixture
def settings(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "pricing.py").write_text(PRICING)
    (settings.workspace / "notes.txt").write_text("call Bob\n")
    return settings


def ctx_for(settings, said: str, features=()) -> ToolContext:
    agent = SimpleNamespace(provenance=Provenance(said=[said]), features=list(features))
    return ToolContext(settings=settings, agent=agent)


def edit(path: str, old: str) -> str:
    return json.dumps({"name": "edit_file", "arguments": {"path": path, "old": old, "new": "x"}},
                      ensure_ascii=False) + "\n</tool_call>"


def test_the_edit_of_the_named_file_holds_to_its_path_and_text(model, settings):
    calls = TemplateCalls(ToolRunner(settings, tools={"edit_file": EditFile()}))
    gbnf = calls.grammar("edit_file", ctx_for(settings, "discount() in pricing.py is broken: fix it"))
    assert accepts(model, gbnf, edit("pricing.py", "    return round(price * pct / 100, 2)"))
    assert accepts(model, gbnf, edit("pricing.py", "def discount(price, pct):\n    return round(price * pct / 100, 2)"))
    assert accepts(model, gbnf, edit("pricing.py", "def split_bill(total, people):\n    return round(total / people, 2)\n"
                                                   "\n\nif __name__ == \"__main__\":"))  # a run across blank lines
    assert accepts(model, gbnf, edit("pricing.py", '\tprint("Grüße", split_bill(10, 4))'))  # a tab, a quote, ü
    assert accepts(model, gbnf, edit("pricing.py", "discount"))  # a word: a name to rename, a typo
    assert not accepts(model, gbnf, edit("pricing.py", "discount(200, 10)"))  # from the message, not the file
    assert not accepts(model, gbnf, edit("pricing.py", "return round(price * pct / 100, 2)"))  # not a whole line
    assert not accepts(model, gbnf, edit("pricing.py", "def discount(price, pct):\n\n"))
    assert not accepts(model, gbnf, edit("notes.txt", "call Bob"))  # another file


@pytest.mark.parametrize("said", ["fix the bug please", "copy pricing.py to prices.py", "compare pricing.py and notes.txt"])
def test_an_edit_is_free_where_the_message_names_no_one_existing_file(model, settings, said):
    calls = TemplateCalls(ToolRunner(settings, tools={"edit_file": EditFile()}))
    assert accepts(model, calls.grammar("edit_file", ctx_for(settings, said)), edit("pricing.py", "discount(200, 10)"))


def test_a_coding_session_leaves_the_edit_free(model, settings):
    coding = SimpleNamespace(name="coding")
    assert EditFile().offered(ctx_for(settings, "fix discount in pricing.py", [coding])) == EditFile.parameters()
    assert EditFile().offered(ctx_for(settings, "fix discount in pricing.py"))["properties"]["path"]["enum"] == ["pricing.py"]


def test_the_bundled_model_writes_an_edit_that_applies(model, settings):
    """The real SmolLM2 writes edit_file's arguments for a fix described in words: whatever it writes,
    the path is the named file and the text to replace is in it (no "text to replace not found")."""
    settings = settings.model_copy(update={"tools": settings.tools.model_copy(update={"enabled": ["edit_file", "read_file"]})})
    agent = Agent(settings, model)
    attach_tools(agent)
    agent.start_session()
    said = "discount() in pricing.py is broken: discount(200, 10) gives 20, it should give 180. Fix it."
    agent.provenance.said.append(said)
    runner = agent.tool_runner
    raw, args, error = runner.arguments(agent, agent.messages_for(said), runner.tools["edit_file"])
    assert args is not None, (raw, error)
    assert args.path == "pricing.py" and args.old in PRICING, raw
