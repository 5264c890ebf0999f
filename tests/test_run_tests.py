"""Issue 79: "run the tests" runs the test command ``tools.exec_allow`` holds (``loop.spelled``,
``tools.testcommand``), and the reply says the run's real counts (``tools.testcounts``). Real repositories
in temporary folders, the real runners (pytest; node's for the other language)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools
from nanobot.tools.runner import call_args
from nanobot.workspace import init_workspace

ALLOW = ["python3 -m pytest", "git status", "git diff"]  # the allow list
MODULE = 'def slugify(text):\n    return "-".join(text.lower().split())\n\n\ndef shout(text):\n    return text.upper()\n'
TESTS = ("from textutil import slugify, shout\n\n\ndef test_slugify():\n    assert slugify(\"A b\") == \"a-b\"\n\n\n"
         "def test_shout():\n    assert shout(\"hi\") == \"HI!\"\n")  # shout's test fails


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch):
    """``python3`` in a command is the interpreter running the tests, which has pytest."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def _agent(home, replies: list[str], allow: list[str] = ALLOW, files: dict[str, str] | None = None) -> Agent:
    settings = load_settings(home, tools={"exec_allow": allow}, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    for name, text in (files or {"textutil.py": MODULE, "test_textutil.py": TESTS}).items():
        (settings.workspace / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=settings.workspace, check=True)
    agent = Agent(settings, ScriptedModel(replies))
    attach_tools(agent)
    return agent


def _ran(events) -> list[str]:
    return [e.arguments["command"] for e in events if isinstance(e, ToolCall) and e.name == "exec"]


def test_a_written_call_with_an_args_field_runs_the_allowed_test_command_and_the_reply_has_the_real_counts(home):
    """The issue's fourth step: the exec call written as text, its command split into ``args``. The
    parts are joined (the allowed command), the tests run, and the reply's invented count is followed
    by the run's own."""
    agent = _agent(home, ["Answer:", '{"name": "exec", "arguments": {"command": "python3", "args": ["-m", "pytest"]}}',
                          "Answer:", "All 2 tests passed."])
    events = list(agent.turn("Check whether the tests still pass."))
    assert _ran(events) == ["python3 -m pytest"]
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok and result.text.splitlines()[:2] == ["exit 1", "(tests: 1 passed, 1 failed)"]
    assert events[-1].reply == ("All 2 tests passed.\n\nTest run `python3 -m pytest` (exit 1): 1 passed, 1 failed. "
                                "Failing: test_textutil.py::test_shout (AssertionError: assert 'HI' == 'HI!').")


def test_a_command_the_model_invents_for_a_test_run_is_the_allowed_test_command(home):
    agent = _agent(home, ["Answer:", '{"name": "exec", "arguments": {"command": "git test"}}',
                          "Answer:", "1 passed and 1 failed."])
    events = list(agent.turn("Check whether the tests still pass."))
    assert _ran(events) == ["python3 -m pytest"] and events[-1].reply == "1 passed and 1 failed."  # counts right: as is


def test_run_the_tests_runs_the_allowed_test_command_and_shows_its_output(home):
    """No model reply: the whole message asks for the run, the output is the reply (with its counts)."""
    agent = _agent(home, [])
    events = list(agent.turn("run the tests"))
    assert _ran(events) == ["python3 -m pytest"] and agent.model.calls == []
    assert events[-1].shown and "(tests: 1 passed, 1 failed)" in events[-1].reply
    assert "test_textutil.py::test_shout" in events[-1].reply  # pytest's own output
    records = [json.loads(line) for line in agent.transcript.path.read_text().splitlines()]
    calls = [r for r in records if r.get("meta", {}).get("kind") == "call" and r["meta"].get("name") == "exec"]
    assert [call_args(r["content"]) for r in calls] == [{"command": "python3 -m pytest", "cwd": "."}]  # the run, kept
    events = list(_agent(home, ["Answer:", "Done."]).turn("please run the tests in test_textutil.py"))
    assert _ran(events) == ["python3 -m pytest test_textutil.py"]
    events = list(_agent(home, ["Answer:", "I will add it first."]).turn(
        "Add a test for slugify to test_textutil.py and run the tests"))  # the change first: the model's turn
    assert _ran(events) == []


def test_without_a_test_command_allowed_or_test_files_nothing_runs_by_itself(home):
    agent = _agent(home, ["Answer:", "There is no test command I may run."], allow=["git status"])
    assert _ran(list(agent.turn("run the tests"))) == []
    (agent.workspace / "test_textutil.py").unlink()
    agent = _agent(home, ["Answer:", "Which tests?"], files={"textutil.py": MODULE})
    assert _ran(list(agent.turn("run the tests"))) == []


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_in_another_language_the_allowed_test_command_is_that_languages(home):
    """A JavaScript repository: ``npm test`` runs node's test runner; its counts are read from its TAP."""
    files = {"package.json": '{"name": "calc", "version": "1.0.0", "scripts": {"test": "node --test"}}\n',
             "calc.js": "exports.add = (a, b) => a + b;\n",
             "calc.test.js": ("const test = require('node:test'); const assert = require('node:assert');\n"
                              "const {add} = require('./calc');\ntest('adds', () => assert.strictEqual(add(1, 2), 3));\n")}
    agent = _agent(home, [], allow=["python3 -m pytest", "npm test"], files=files)
    events = list(agent.turn("Run the tests."))
    assert _ran(events) == ["npm test"] and "(tests: 1 passed)" in events[-1].reply


class Judged(ScriptedModel):
    """A scripted model whose classifiers (``loop.judge``) answer their calibration right and give
    ``yes`` on the user's message for the kinds named, no for the rest; ``tick`` seconds pass per reply."""

    def __init__(self, replies: list[str], *yes: str, tick: float = 0.0):
        super().__init__(replies)
        self.yes, self.tick, self.now = set(yes), tick, 0.0

    def stream(self, messages, **kw):
        self.now += self.tick
        yield from super().stream(messages, **kw)

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

        kind = next((k for k, (system, _) in CLASSIFIERS.items() if system == messages[0].content), "")
        yes = dict(CALIBRATION.get(kind, ())).get(messages[-1].content, kind in self.yes)
        return (0.9, 0.1) if yes else (0.1, 0.9)


FIX = ["Tool: edit_file", '{"path": "textutil.py", "old": "return text.upper()", "new": "return text.upper() + \\"!\\""}',
       "Answer:", "I changed shout in textutil.py so it ends with an exclamation mark."]


def _judged(home, replies, *yes: str, allow: list[str] = ALLOW, tick: float = 0.0) -> Agent:
    agent = _agent(home, [], allow=allow)
    agent.model = Judged(replies, *yes, tick=tick)
    agent.budget.clock = lambda: agent.model.now
    return agent


def test_after_a_fix_the_allowed_test_command_runs_and_the_reply_ends_with_its_real_counts(home):
    """The loop a person expects: the message reports a failing test (the repair classifier's sure yes),
    the model's edit fixes the code, the tests run after it (no model reply more) and the reply ends with
    the run's counts; the test file is read for the counts, not the reply."""
    agent = _judged(home, FIX, "repair")
    events = list(agent.turn("test_shout in test_textutil.py fails, fix textutil.py please"))
    assert 'return text.upper() + "!"' in (agent.workspace / "textutil.py").read_text()
    assert _ran(events) == ["python3 -m pytest"]
    tools = [e.name for e in events if isinstance(e, ToolCall)]
    assert tools == ["edit_file", "exec"] and agent.model.replies == []  # after the change, no reply more
    assert events[-1].reply.endswith("\n\nTest run `python3 -m pytest` (exit 0): 2 passed.")
    asked = _judged(home, FIX, "change")  # no repair judged: the change judged, and the message names the test
    assert _ran(asked.turn("make test_shout pass by changing shout in textutil.py")) == ["python3 -m pytest"]
    ran = _judged(home, [*FIX[:2], "Tool: exec", '{"command": "python3 -m pytest"}', *FIX[2:]], "repair")
    assert _ran(ran.turn("test_shout in test_textutil.py fails, fix textutil.py please")) == ["python3 -m pytest"]


def test_after_a_test_is_added_the_tests_run_and_the_reply_says_whether_it_passes(home):
    """"Now add a test for slugify's spaces to test_textutil.py": no fix asked, but the change is to a
    test file, so the allowed test command runs once after it and the reply ends with the real counts
    (the 1.5B's new tests compared floats with ==, and its replies said they were added and nothing more).
    A change to the code file alone, no fix asked, runs nothing."""
    test = "\n\n\ndef test_slugify_spaces():\n    assert slugify(\"a  b\") == \"a-b\"\n"
    add = ["Tool: edit_file", '{"path": "test_textutil.py", "old": "assert shout(\\"hi\\") == \\"HI!\\"", "new": '
           '"assert shout(\\"hi\\") == \\"HI!\\"' + test.replace('"', '\\"').replace("\n", "\\n") + '"}',
           "Answer:", "I added test_slugify_spaces to test_textutil.py."]
    agent = _judged(home, add, "change")
    events = list(agent.turn("Now add a test for slugify with two spaces to test_textutil.py."))
    assert "def test_slugify_spaces" in (agent.workspace / "test_textutil.py").read_text()
    assert _ran(events) == ["python3 -m pytest"]
    assert events[-1].reply.endswith("\n\nTest run `python3 -m pytest` (exit 1): 2 passed, 1 failed. Failing: "
                                     "test_textutil.py::test_shout (AssertionError: assert 'HI' == 'HI!').")  # which and why
    code = ["Tool: edit_file", '{"path": "textutil.py", "old": "return text.upper()", "new": "return text.upper()  # loud"}',
            "Answer:", "Done."]
    assert _ran(_judged(home, code, "change").turn("In textutil.py, comment shout's return line.")) == []


def test_a_test_run_after_a_fix_that_gives_no_counts_says_what_it_gave(home):
    agent = _judged(home, FIX, "repair", allow=["python3 -m nose2"])  # not installed: no summary
    events = list(agent.turn("test_shout in test_textutil.py fails, fix textutil.py please"))
    assert _ran(events) == ["python3 -m nose2"]
    assert events[-1].reply.splitlines()[-1] == "Test run `python3 -m nose2` after the change: exit 1."


def test_after_a_fix_without_a_test_command_allowed_one_line_says_how_to_allow_it(home):
    agent = _judged(home, FIX, "repair", allow=["git status"])
    events = list(agent.turn("test_shout in test_textutil.py fails, fix textutil.py please"))
    assert _ran(events) == [] and 'text.upper() + "!"' in (agent.workspace / "textutil.py").read_text()
    last = events[-1].reply.splitlines()[-1]
    assert last == ("Tests not run: no test command is allowed; to run them after a fix, put this under [tools] "
                    f'in {agent.settings.config_path}: exec_allow = ["git status", "python3 -m pytest"]')


def test_no_test_run_without_a_change_a_fix_asked_or_time_left(home, monkeypatch):
    agent = _judged(home, ["Tool: read_file", '{"path": "textutil.py"}', "Answer:", "shout looks right to me."], "repair")
    events = list(agent.turn("test_shout in test_textutil.py fails, fix textutil.py please"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]  # read, no change made
    assert _ran(events) == [] and events[-1].reply == "shout looks right to me."
    notes = _judged(home, ["Tool: edit_file", '{"path": "notes.txt", "old": "teh", "new": "the"}', "Answer:", "Fixed."],
                    "repair")
    (notes.workspace / "notes.txt").write_text("teh tests\n")
    events = list(notes.turn("notes.txt has a typo, fix it"))  # a fix, but not to code
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["edit_file"] and _ran(events) == []
    agent = _judged(home, FIX, "change")  # a change asked, no fix: no test named, no repair judged
    events = list(agent.turn("in textutil.py make shout end with an exclamation mark"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"] and "Test" not in events[-1].reply
    monkeypatch.setenv("NANOBOT_CHAT__TURN_SECONDS", "60")  # the default (the suite's home lifts it)
    agent = _judged(home, FIX, "repair", tick=25.0)  # 75 s of the turn's 60 s gone by the reply's end
    events = list(agent.turn("test_shout in test_textutil.py fails, fix textutil.py please"))
    assert _ran(events) == [] and events[-1].reply.splitlines()[-1] == (
        "Tests not run: this turn's budget of 60 s is spent (`python3 -m pytest` runs them).")


class RunJudged(ScriptedModel):
    """Scripted replies; the model's run classifier sure of a run, every other classifier of no."""

    def __init__(self, replies):
        from nanobot.loop.judge import CLASSIFIERS

        super().__init__(replies)
        self._judge_trusted = dict.fromkeys(CLASSIFIERS, True)
        self.run = (0.9, 0.1)

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import RUN_SYSTEM

        return self.run if messages[0].content == RUN_SYSTEM else (0.05, 0.95)


def test_a_test_run_asked_in_other_words_runs_the_allowed_test_command(home):
    """No English run form: the model's run judgement, sure, on a message that names the tests in a word
    the test files' names share, or names nothing in the roots ("Ejecuta las pruebas": the test command is
    the one thing to run), runs them; the model answers from the run. A thank-you the classifier is not
    sure of runs nothing, nor does a message naming another file of the roots."""
    for text in ("Führ die Tests aus und sag mir, was fehlschlägt.", "Lance les tests, s'il te plaît.",
                 "Roda os testes do test_textutil.py", "Ejecuta las pruebas, por favor."):
        agent = _agent(home, [])
        agent.model = RunJudged(["Answer:", "Un test échoue : test_shout."])
        attach_tools(agent)
        events = list(agent.turn(text))
        assert _ran(events) and _ran(events)[0].startswith("python3 -m pytest"), text
        assert "(tests: 1 passed, 1 failed)" in agent.model.calls[-1]["messages"][-1].content  # answered from it
    agent = _agent(home, [])
    agent.model = RunJudged(["Answer:", "De rien !"])
    agent.model.run = (0.6, 0.4)
    attach_tools(agent)
    assert _ran(list(agent.turn("Merci beaucoup !"))) == []
    agent = _agent(home, [], files={"textutil.py": MODULE, "test_textutil.py": TESTS, "build.sh": "echo built\n"})
    agent.model = RunJudged(["Answer:", "Hecho."])
    attach_tools(agent)
    assert _ran(list(agent.turn("Ejecuta build.sh, por favor."))) == []


def test_a_message_spelling_an_allowed_command_runs_it_though_the_name_pick_was_a_read(home):
    """"Esegui cat blasting.ini e dimmi quanti kg ..." spells ``cat``, which the allow list runs, and the
    model's run classifier is sure a run is asked: the first call is exec, though the lean step's pick
    by name was read_file. Without a sure run judgement the pick stands."""
    from tests.test_templatecalls import ToolTemplateModel, body

    class Judged(ToolTemplateModel):
        run = (0.9, 0.1)

        def yes_no_apart(self, messages, **_):
            from nanobot.loop.judge import RUN_SYSTEM

            return self.run if messages[0].content == RUN_SYSTEM else (0.05, 0.95)

    text = "Esegui cat blasting.ini e dimmi quanti kg di carica ci sono."
    for run, called in (((0.9, 0.1), "exec"), ((0.1, 0.9), "read_file")):
        args = {"command": "cat blasting.ini"} if called == "exec" else {"path": "blasting.ini"}
        model = Judged(['read_file"', body(called, args), "26 kg."], [0.9, 0.05, 0.05])
        model.run, model._judge_trusted = run, {"run": True, "change": True, "look": True}
        settings = load_settings(home, tools={"enabled": ["read_file", "exec"], "listing": "lean", "exec_allow": ["cat"]},
                                 memory={"enabled": False}, observer={"enabled": False})
        init_workspace(settings.workspace)
        (settings.workspace / "blasting.ini").write_text("charge_kg = 26\n")
        agent = Agent(settings, model)
        attach_tools(agent)
        assert [e.name for e in agent.turn(text) if isinstance(e, ToolCall)] == [called]
