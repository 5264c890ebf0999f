"""An edit of a short file made from the model's rewrite of it (``tools.rewrite``): the call the lines
that differ make, the loop taking it in place of the model's own ``old``/``new`` (scripted), the
conversation's KV state put back around the rewrite (real SmolLM2), and the real 1.5B's rewrite of a
Python file (skipped without its GGUF) keeping every definition and parsing."""

from __future__ import annotations

import ast

import pytest

from nanobot.backends.base import Message
from nanobot.core.events import ToolCall, ToolResult
from nanobot.tools.rewrite import MOST_LINES, call_from
from tests.qwen import SKIP_REASON, qwen_agent, qwen_path
from tests.test_templatecalls import JudgingTemplateModel, body, make_agent

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def test_the_call_holds_the_lines_that_differ_widened_until_they_occur_once():
    assert call_from(CALC, CALC.replace("a + b", "a * b")) == ("    return a + b", "    return a * b")
    assert call_from("b\nc\n", "a\nb\nc\n") == ("b", "a\nb")  # a line added at the top
    log = "x\nend\ny\nend\n"  # "end" twice: the line before it makes ``old`` unique
    assert call_from(log, "x\nend\ny\nend\nz\n") == ("y\nend", "y\nend\nz")
    assert call_from(CALC, CALC.replace("\n\n\n", "\n\n")) is None  # blank lines only
    assert call_from(CALC, "print('hello')\n") is None  # no line of several kept: a new file
    many = "\n".join(f"v{k} = {k}" for k in range(MOST_LINES + 2)) + "\n"
    assert call_from(many, many.replace(" = ", " := ")) is None  # a new file, not an edit


class RewritingModel(JudgingTemplateModel):
    """... that can set the conversation aside (``generate_apart``) and rewrites as ``rewrite`` says."""

    def __init__(self, replies, probs, rewrite: str):
        super().__init__(replies, probs, change=True)
        self.rewrite, self.apart = rewrite, []

    def generate_apart(self, messages, *, prefill="", **sample):
        self.apart.append((messages, prefill, sample))
        return self.rewrite


def test_an_edit_file_call_is_made_from_the_models_rewrite_of_the_named_file(home):
    """The pick is edit_file; the rewrite, from a prompt holding only the file and the message, makes
    the call: the model never writes ``old`` (its next scripted text is the reply, not a call)."""
    model = RewritingModel(['edit_file"', "Done: add multiplies now."], [0.9, 0.1],
                           rewrite=CALC.replace("a + b", "a * b"))
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "calc.py").write_text(CALC)
    events = list(agent.turn("In calc.py, make add multiply a by b"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments) for c in calls] == [
        ("edit_file", {"path": "calc.py", "old": "    return a + b", "new": "    return a * b"})]
    assert (agent.workspace / "calc.py").read_text() == CALC.replace("a + b", "a * b")
    (ask,), prefill, sample = model.apart[0]
    assert ask.role == "user" and CALC.strip() in ask.content and "make add multiply a by b" in ask.content
    assert prefill == "```\n" and sample["stop"] == ["```"] and sample["temperature"] == 0.0


class RepairReport(RewritingModel):
    """... whose repair classifier is sure the message reports something broken."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

        if messages[0].content == CLASSIFIERS["repair"][0] and messages[-1].content not in dict(CALIBRATION["repair"]):
            return 0.9, 0.1
        return super().yes_no_apart(messages)


def test_a_fix_naming_the_code_and_its_test_rewrites_the_code_not_the_test(home):
    """"test_add fails. Fix add in calc.py ..., and leave test_calc.py alone": two files named; for a
    report of something broken the rewrite is of the one code file, never the test file."""
    broken = CALC.replace("a + b", "a - b", 1)
    test = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    model = RepairReport(['edit_file"', "Fixed add."], [0.9, 0.1], rewrite=CALC)
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "calc.py").write_text(broken)
    (agent.workspace / "test_calc.py").write_text(test)
    list(agent.turn("test_add fails. Fix add in calc.py so that it passes, and leave test_calc.py alone."))
    (ask,), _, _ = model.apart[0]
    assert ask.content.startswith("calc.py:")
    assert (agent.workspace / "calc.py").read_text() == CALC and (agent.workspace / "test_calc.py").read_text() == test


LIB = "to_upper() {\n  printf '%s\\n' \"$1\" | tr a-z A-Z\n}\n\nfile_ext() {\n  printf '%s\\n' \"${1#*.}\"\n}\n"
CHECKS = '. ./lib.sh\n[ "$(file_ext backup.tar.gz)" = "gz" ] || exit 1\n'


def test_a_fix_naming_two_code_files_rewrites_the_one_that_defines_the_named_function(home):
    """"Der Test für file_ext schlägt fehl ... Korrigiere file_ext in lib.sh und ändere tests.sh nicht":
    tests.sh is no test file by its name, so two code files are named; the rewrite is of lib.sh, the one
    that defines file_ext (a shell function, ``name() {``), and tests.sh stays as it was."""
    fixed = LIB.replace("${1#*.}", "${1##*.}")
    model = RepairReport(['edit_file"', "Fixed file_ext."], [0.9, 0.1], rewrite=fixed)
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "lib.sh").write_text(LIB)
    (agent.workspace / "tests.sh").write_text(CHECKS)
    list(agent.turn("Der Test für file_ext schlägt fehl: bei backup.tar.gz kommt tar.gz statt gz heraus. "
                    "Korrigiere file_ext in lib.sh und ändere tests.sh nicht."))
    (ask,), _, _ = model.apart[0]
    assert ask.content.startswith("lib.sh:")
    assert (agent.workspace / "lib.sh").read_text() == fixed and (agent.workspace / "tests.sh").read_text() == CHECKS


def test_the_rewrite_copies_the_file_without_the_replys_repeat_penalty(home):
    """A rewrite writes the file again with one change: the reply's repeat penalty would make each
    copied token less likely (a fix repeating a name, ``side * side``, loses to ``side * 4``), so the
    rewrite step samples with none, on a backend that takes sampling settings; the reply keeps its own."""
    class Sampling(RewritingModel):
        """... that takes the [chat] sampling extras (``Abilities.sampling``)."""

        settings, penalties = object(), []

        def stream(self, messages, *, repeat_penalty=1.1, top_p=0.95, dry=None, **kw):
            self.penalties.append(repeat_penalty)
            yield from super().stream(messages, **kw)

    model = Sampling(['edit_file"', "Done: add multiplies now."], [0.9, 0.1],
                     rewrite=CALC.replace("a + b", "a * b"))
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    assert agent.settings.chat.repeat_penalty != 1.0
    (agent.workspace / "calc.py").write_text(CALC)
    list(agent.turn("In calc.py, make add multiply a by b"))
    (_, _, sample), = model.apart
    assert sample["repeat_penalty"] == 1.0 and model.penalties[0] == agent.settings.chat.repeat_penalty
    assert (agent.workspace / "calc.py").read_text() == CALC.replace("a + b", "a * b")


def test_a_rewrite_of_too_much_leaves_the_call_to_the_model(home):
    """A rewrite that replaces more lines than an edit does is no call: the model's own is made."""
    own = {"path": "calc.py", "old": "a + b", "new": "a * b"}
    model = RewritingModel(['edit_file"', body("edit_file", own), "Done."], [0.9, 0.1],
                           rewrite="print('hello')\n")
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "calc.py").write_text(CALC)
    events = list(agent.turn("In calc.py, make add multiply a by b"))
    assert [(e.name, e.arguments) for e in events if isinstance(e, ToolCall)] == [("edit_file", own)]
    assert model.apart and "print" not in (agent.workspace / "calc.py").read_text()


def test_a_rewrite_apart_leaves_the_conversations_kv_cache_as_it_was(model):
    """Real SmolLM2: the rewrite's own prompt is generated from, then the conversation's state is back,
    so the turn's next step evaluates none of the conversation again."""
    convo = [Message(role="system", content="You are helpful."), Message(role="user", content="Fix notes.txt")]
    tokens = model.tokenize_prompt(model.render(convo))
    model.prefix_probability(convo, ("Yes",))
    held = model.cached_prefix(tokens)
    assert held >= len(tokens) - 1
    ask = [Message(role="user", content="notes.txt:\n```\nbuy milk\n```\n\nAdd eggs.\n\nWrite the whole new text.")]
    text = model.generate_apart(ask, prefill="```\n", max_tokens=12, temperature=0.0, stop=["```"])
    assert isinstance(text, str) and model.last.prompt_tokens > 20
    assert model.cached_prefix(tokens) == held


@pytest.mark.skipif(qwen_path() is None, reason=SKIP_REASON)
def test_the_1_5b_rewrite_of_a_python_file_keeps_every_definition(home):
    """Real 1.5B, asked to add a function: the rewrite step runs, and whatever it wrote, the file still
    parses and holds every definition it had (the call the rewrite makes passes the loss guard)."""
    code = ("def with_vat(net, rate=0.19):\n    return round(net * (1 + rate), 2)\n\n\n"
            "def split_bill(total, people):\n    return round(total / people, 2)\n")
    agent = qwen_agent(home, tools={"listing": "lean"})
    (agent.workspace / "pricing.py").write_text(code)
    events = list(agent.turn("Add a function tip(total, pct) to pricing.py that returns the tip rounded to 2 decimals"))
    assert any(s.kind == "rewrite" for s in agent.tool_runner.stats)
    after = (agent.workspace / "pricing.py").read_text()
    names = {n.name for n in ast.parse(after).body if isinstance(n, ast.FunctionDef)}
    assert {"with_vat", "split_bill"} <= names
    assert all(e.ok for e in events if isinstance(e, ToolResult) and e.name == "edit_file") or after == code
