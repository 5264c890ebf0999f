"""edit_file's ``path`` is held to the files the user's message names in the roots
(``tools.namedlook``): the call policy would refuse any other file, so the grammar offers none."""

from __future__ import annotations

import json
from types import SimpleNamespace

from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile
from nanobot.tools.runner import ToolRunner
from nanobot.tools.templatecalls import TemplateCalls
from nanobot.workspace import init_workspace
from tests.test_callgrammar import accepts

ASK = "Rename shout to yell in textutil.py and test_textutil.py."


def _ctx(home, said, features=()):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "textutil.py").write_text("def shout(text):\n    return text.upper()\n")
    (settings.workspace / "test_textutil.py").write_text("from textutil import shout\n")
    agent = SimpleNamespace(provenance=Provenance(said=[said]), features=list(features))
    return ToolContext(settings=settings, agent=agent)


def test_path_is_held_to_the_files_the_message_names(home):
    path = EditFile().offered(_ctx(home, ASK))["properties"]["path"]
    assert sorted(path["enum"]) == ["test_textutil.py", "textutil.py"]
    assert "enum" not in EditFile.parameters()["properties"]["path"]  # the class's schema is untouched


def test_a_message_naming_no_file_there_leaves_path_free(home):
    assert EditFile().offered(_ctx(home, "make shout louder")) == EditFile.parameters()
    assert EditFile().offered(_ctx(home, "write notes.txt for me")) == EditFile.parameters()  # not there: new


def test_a_coding_session_leaves_path_free(home):
    coding = SimpleNamespace(name="coding")
    assert EditFile().offered(_ctx(home, ASK, [coding])) == EditFile.parameters()


def test_the_call_grammar_admits_only_a_named_file(model, home):
    """Checked by llama.cpp's own grammar engine, on the template path's call grammar."""
    ctx = _ctx(home, ASK)
    calls = TemplateCalls(ToolRunner(ctx.settings, tools={"edit_file": EditFile()}))
    for path, held in (("textutil.py", True), ("test_textutil.py", True), ("shout.py", False)):
        text = json.dumps({"name": "edit_file", "arguments": {"path": path, "old": "shout", "new": "yell"}})
        assert accepts(model, calls.grammar("edit_file", ctx), text + "\n</tool_call>") is held, path


class _Judge:
    def __init__(self, keep):
        self.keep = keep

    def sure(self, agent, kind):
        return self.keep if kind == "keep" else None


def _run_rename(home, keep=None):
    ctx = _ctx(home, ASK)
    ctx.agent.judge = _Judge(keep)
    (ctx.workspace / "test_textutil.py").write_text('from textutil import shout\n\n\ndef test_shout():\n'
                                                     '    assert shout("hi") == "HI"\n')
    out = EditFile().run(EditFile.Args(path="textutil.py", old="shout", new="yell"), ctx)
    return out, (ctx.workspace / "textutil.py").read_text(), (ctx.workspace / "test_textutil.py").read_text()


def test_an_asked_rename_is_made_in_every_file_the_message_names(home):
    """One call renames in textutil.py; the test file the message names too (its test_shout stays:
    another name)."""
    out, code, test = _run_rename(home)
    assert "def yell(" in code and "shout" not in code
    assert test == 'from textutil import yell\n\n\ndef test_shout():\n    assert yell("hi") == "HI"\n'
    assert "also renamed in" in out and "test_textutil.py (2 places)" in out


def test_a_message_the_model_is_sure_says_leave_a_file_renames_only_in_the_call_s_file(home):
    out, code, test = _run_rename(home, keep=True)
    assert "def yell(" in code and "import shout" in test and "also renamed" not in out
