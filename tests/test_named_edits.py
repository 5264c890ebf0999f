"""edit_file's ``path`` is held to the files the user's message names in the roots
(``tools.namedlook``): the call policy would refuse any other file, so the grammar offers none."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
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
    agent = SimpleNamespace(provenance=Provenance(said=[said]), features=list(features), judge=Judge())
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
    assert WriteFile().offered(_ctx(home, "Add a test in a new file test_greet.py", [coding])) == WriteFile.parameters()


def test_a_write_is_held_to_the_files_the_message_names_there_or_new(home):
    """"Add a test for farewell in a new file test_greet.py": the 1.5B wrote ``greet/farewell.txt``,
    which the call policy refused as a file the user did not name. A write's ``path`` is one the message
    names, a new one among them; a message naming none leaves it free."""
    path = WriteFile().offered(_ctx(home, "Add a test for shout in a new file test_loud.py, like test_textutil.py"))
    assert sorted(path["properties"]["path"]["enum"]) == ["test_loud.py", "test_textutil.py"]
    assert WriteFile().offered(_ctx(home, "write me a haiku file")) == WriteFile.parameters()
    (home / "workspace" / "poems").mkdir(exist_ok=True)
    path = WriteFile().offered(_ctx(home, "save it as haiku.txt in the poems folder"))["properties"]["path"]
    assert path["enum"] == ["haiku.txt", "poems/haiku.txt"]  # the call policy takes either for the name given


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


def test_a_file_that_holds_the_new_name_already_is_not_renamed(home):
    """"Der Test für file_ext schlägt fehl: bei backup.tar.gz kommt tar.gz statt gz heraus. Korrigiere
    file_ext in lib.sh und ändere tests.sh nicht.": the 1.5B called edit_file(file_ext -> gz), both words
    of the message; tests.sh, named too, holds "gz" as the value it expects and was renamed with it.
    A file holding the new name already is left: the two names would become one."""
    ask = ("Der Test für file_ext schlägt fehl: bei backup.tar.gz kommt tar.gz statt gz heraus. Korrigiere file_ext "
           "in lib.sh und ändere tests.sh nicht.")
    ctx = _ctx(home, ask)
    ctx.agent.judge = _Judge(None)
    checks = '. ./lib.sh\ncheck "file_ext" "$(file_ext backup.tar.gz)" "gz"\n'
    (ctx.workspace / "lib.sh").write_text("file_ext() {\n  printf '%s\\n' \"${1#*.}\"\n}\n")
    (ctx.workspace / "tests.sh").write_text(checks)
    out = EditFile().run(EditFile.Args(path="lib.sh", old="file_ext", new="gz"), ctx)
    assert (ctx.workspace / "tests.sh").read_text() == checks and "also renamed" not in out


WHEN = "def days_between(a, b):\n    return (b - a).days\n"
ASK_FIX = ("days_between gives a negative number when the first date is the later one. Fix it, and do not "
           "change test_when.py.")


def _fix_agent(home, keep: bool):
    from nanobot.loop.agent import Agent
    from nanobot.tools.feature import attach_tools
    from tests.test_templatecalls import JudgingTemplateModel

    class Model(JudgingTemplateModel):
        def yes_no_apart(self, messages, **kw):
            from nanobot.loop.judge import CALIBRATION, KEEP_SYSTEM

            if messages[0].content == KEEP_SYSTEM and messages[-1].content not in dict(CALIBRATION["keep"]):
                return (0.9, 0.1) if keep else (0.1, 0.9)
            return super().yes_no_apart(messages, **kw)

    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "when.py").write_text(WHEN)
    (settings.workspace / "test_when.py").write_text("from when import days_between\n")
    (settings.workspace / "other.py").write_text("def helper():\n    return 1\n")
    agent = Agent(settings, Model([], [], change=True))
    attach_tools(agent)
    agent.provenance.said.append(ASK_FIX)
    agent.judge.context(ASK_FIX, [])
    return agent


@pytest.mark.parametrize("keep", [True, False])
def test_a_fix_whose_message_names_only_a_file_to_leave_alone_reaches_the_file_defining_what_it_names(home, keep):
    """"days_between gives a negative number ... Fix it, and do not change test_when.py": the 1.5B
    could only read and edit test_when.py (the one file named), and its edit was refused or broke the
    test. Where the model's keep classifier is sure a named file is to be left as it is, the files that
    define a name the message gives (when.py defines days_between) are named by it too: offered to the
    call and passed by the call policy; another file stays refused. Without that sure judgement the
    message's files alone count."""
    from nanobot.loop.callpolicy import refusal

    agent = _fix_agent(home, keep)
    ctx = ToolContext(settings=agent.settings, agent=agent)
    path = EditFile().offered(ctx)["properties"]["path"]["enum"]
    assert path == (["test_when.py", "when.py"] if keep else ["test_when.py"])
    prov = Provenance(said=[ASK_FIX])
    edit = {"path": "when.py", "old": "(b - a).days", "new": "abs((b - a).days)"}
    assert ("refused" in refusal(EditFile(), edit, prov, agent=agent)) is not keep
    assert "the user named" in refusal(EditFile(), edit | {"path": "other.py", "old": "1"}, prov, agent=agent)
