"""Tool steps in the model's own format (``tools.templatecalls``): the loop with a scripted model (decline
below the threshold, validation errors back with bounded retries, the template's messages), then real runs:
the bundled SmolLM2 keeps names + schema on demand and holds the call grammar when forced, and the 1.5B
(skipped without its GGUF) declines "hello" and emits only calls that parse and validate."""

from __future__ import annotations

import json

import pytest

from nanobot.backends.base import Message
from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.loop.agent import Agent
from nanobot.loop.judge import Judge
from nanobot.tools.callgrammar import CLOSE, OPEN, parse_call
from nanobot.tools.feature import attach_tools
from nanobot.tools.runner import validate
from nanobot.tools.templatecalls import NO_OPENING, TemplateCalls
from nanobot.workspace import init_workspace
from tests.qwen import SKIP_REASON, fixed_clock, qwen_path
from tests.realmodel import Recorder

QWEN = qwen_path()
# an offered tool's call written out as text, as a declined reply must never hold it
CALL_TEXT = ('"name": "read_file"', '"name":"read_file"', '"name": "write_file"', OPEN)


class ToolTemplateModel(ScriptedModel):
    """A scripted model whose template renders tools: ``probs`` are the P(<tool_call> first) it reports."""

    tool_template = True

    def __init__(self, replies, probs):
        super().__init__(replies)
        self.probs = list(probs)

    def render(self, messages, add_generation_prompt=True, tools=None):
        return super().render(messages, add_generation_prompt) + (json.dumps(tools) if tools else "")

    def prompt_tokens(self, messages, prefill="", tools=None):
        return self.count_tokens(self.render(messages, tools=tools) + prefill)

    def prefix_probability(self, messages, starts, *, tools=None):
        assert OPEN in starts and tools
        return self.probs.pop(0)

    def stream(self, messages, *, tools=None, stop=None, no_opening=None, **kw):
        try:
            yield from super().stream(messages, **kw)
        finally:  # a pick ends its stream once the name is decided
            self.calls[-1] |= {"tools": tools, "stop": stop, "no_opening": no_opening}


def make_agent(home, model, clock=fixed_clock, **tools):
    tools = {"listing": "full", **tools}  # the loop with one generation a call; lean: tests below
    settings = load_settings(home, tools={"enabled": ["read_file", "write_file"], **tools},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, model, clock=clock)  # one moment: a real model's tokens follow the Time section
    attach_tools(agent)
    return agent


def body(name, args):
    return json.dumps({"name": name, "arguments": args}) + f"\n{CLOSE}"


def test_below_the_threshold_the_reply_is_text_and_no_tool_runs(home):
    agent = make_agent(home, ToolTemplateModel(["Hello there!"], [0.2]), call_threshold=0.5)
    events = list(agent.turn("hello"))
    assert not [e for e in events if isinstance(e, (ToolCall, ToolResult))]
    assert events[-1].model_copy(update={"timing": None}) == TurnDone(reply="Hello there!", generation=agent.model.last)
    only = agent.model.calls[0]
    assert only["grammar"] is None and OPEN in only["stop"]  # a call can never leak into the text
    assert only["no_opening"] == NO_OPENING and '"name": "read_file"' in only["stop"]
    assert [s["function"]["name"] for s in only["tools"]] == ["read_file", "write_file"]


def test_a_message_that_asks_to_look_calls_even_under_the_threshold(home):
    """"show me todo.md" at P(call) 0.2 (the 1.5B's reply was then "tools: read_file", a call in text):
    the first step calls; "What is 2+2?" at the same P(call) stays text."""
    model = ToolTemplateModel([body("read_file", {"path": "todo.md"}), "It says: buy milk."], [0.2, 0.1])
    agent = make_agent(home, model)
    (agent.workspace / "todo.md").write_text("- buy milk\n")
    events = list(agent.turn("What is in todo.md?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    assert agent.model.calls[0]["grammar"] is not None  # made by the call step, not run from text
    quiet = make_agent(home, ToolTemplateModel(["4"], [0.2]))
    assert not [e for e in quiet.turn("What is 2+2?") if isinstance(e, ToolCall)]


def test_a_message_naming_a_file_that_exists_calls_under_the_threshold_in_any_language(home):
    """The fact (recipe.md is in the workspace; "receta.md" is not) decides, not English words."""
    model = ToolTemplateModel([body("read_file", {"path": "recipe.md"}), "Es una receta de flan."], [0.2, 0.1])
    agent = make_agent(home, model)
    (agent.workspace / "recipe.md").write_text("# Flan\n")
    events = list(agent.turn("¿Qué dice el archivo recipe.md?"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    absent = make_agent(home, ToolTemplateModel(["No lo sé."], [0.2]))
    assert not [e for e in absent.turn("¿Qué dice el archivo receta.md?") if isinstance(e, ToolCall)]


def test_a_name_a_file_named_earlier_defines_is_a_look_at_that_file(home):
    """"what does add do?" after a turn about calc.py (the 1.5B answered with the task board's "add"):
    calc.py defines add, so the first step looks at it, under the threshold; a name nothing the user
    named defines ("what does mul do?") stays text, and so does a file named in no earlier message."""
    calc = "def add(a, b):\n    return a + b\n"
    model = ToolTemplateModel(["Nice.", body("read_file", {"path": "calc.py"}), "It adds a and b."],
                              [0.01, 0.2, 0.1])
    agent = make_agent(home, model)
    (agent.workspace / "calc.py").write_text(calc)
    list(agent.turn("I have calc.py here."))
    events = list(agent.turn("thanks. what does add do?"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    assert agent.model.calls[1]["grammar"] is not None  # made by the call step, not run from text
    quiet = make_agent(home, ToolTemplateModel(["ok", "I don't know."], [0.01, 0.2]))
    list(quiet.turn("I have calc.py here."))
    assert not [e for e in quiet.turn("what does mul do?") if isinstance(e, ToolCall)]
    fresh = make_agent(home, ToolTemplateModel(["I don't know."], [0.2]))
    assert not [e for e in fresh.turn("what does add do?") if isinstance(e, ToolCall)]


class JudgingTemplateModel(ToolTemplateModel):
    """... whose yes/no judgements are fixed: "does this message ask for a change?" ``change``, "does a
    right answer need something read or run on this computer now?" P(yes) ``look`` (the calibration's
    own messages answered right when ``calibrated``), a tool's fit ``fit[name]`` (0.5 when unset)."""

    def __init__(self, replies, probs, change: bool, look: float = 0.5, calibrated: bool = False, fit=None):
        super().__init__(replies, probs)
        self.change, self.look, self.calibrated, self.fit = change, look, calibrated, fit or {}

    def yes_no(self, messages, tools=None):  # a question appended to the conversation: the change
        return (0.9, 0.1) if self.change else (0.1, 0.9)

    def yes_no_apart(self, messages, **_):  # a classifier of its own (the change one answers its calibration)
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS
        from nanobot.tools.fitcheck import SYSTEM

        if messages[0].content == SYSTEM:  # the fit check: "Tool: NAME(...) - ...\nMessage: ..."
            fit = self.fit.get(messages[-1].content.split("(")[0].removeprefix("Tool: "), 0.5)
            return fit, 1 - fit
        kind = next(k for k, (system, _) in CLASSIFIERS.items() if system == messages[0].content)
        if kind == "look" and not (self.calibrated and messages[-1].content in dict(CALIBRATION["look"])):
            return self.look, 1 - self.look
        yes = dict(CALIBRATION[kind]).get(messages[-1].content, self.change and kind == "change")
        return (0.9, 0.1) if yes else (0.1, 0.9)


def test_a_question_about_a_named_file_reads_it_where_the_pick_would_change_it(home):
    """"What does the add function in calc.py do?": the 1.5B picked edit_file above the threshold (the
    call policy refused it, the reply came with a correction). The model judges no change asked and the
    facts name calc.py, so the first call is read_file; asked to change it, the pick stands."""
    calc = "def add(a, b):\n    return a + b\n"
    pick = 'edit_file"'
    model = JudgingTemplateModel([pick, body("read_file", {"path": "calc.py"}), "add returns a + b."], [0.9, 0.1],
                                 change=False)
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "calc.py").write_text(calc)
    events = list(agent.turn("What does the add function in calc.py do?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    args_step = model.calls[1]["grammar"]  # the call was generated as read_file's, not edit_file's
    assert "read_file" in args_step and "edit_file" not in args_step
    edit = {"path": "calc.py", "old": "a + b", "new": "a * b"}
    model = JudgingTemplateModel([pick, body("edit_file", edit), "Done."], [0.9, 0.1], change=True)
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "calc.py").write_text(calc)
    events = list(agent.turn("In calc.py, make add multiply a by b"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]
    assert "edit_file" in model.calls[1]["grammar"]


def test_a_change_word_in_a_question_the_model_judges_no_change_is_no_ask_to_the_reply_checks(home):
    """"What does the add function in calc.py do?" holds "add": the 1.5B answered it right without a
    tool, and the reply check, taking the word for an ask (``asked_for_change``), forced edit_file
    (refused) and added "nothing was changed". For the checks (``checkedturn``: ``change_asked``) the
    model's sure "no change" (P <= 0.2) stands over the word; its "yes" keeps the ask."""
    from nanobot.loop.callpolicy import asked_for_change, change_asked

    question = "What does the add function in calc.py do?"
    for change in (False, True):
        agent = make_agent(home, JudgingTemplateModel([], [], change=change), enabled=["read_file", "edit_file"])
        (agent.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
        agent.judge.context(question, [])
        assert asked_for_change([question], agent=agent)  # the word, as the call policy reads it
        assert change_asked(question, agent) is change


def test_a_file_the_message_names_that_is_not_there_is_looked_for_unless_it_is_to_be_created(home):
    """"do I have taxes_2023.pdf here?" at P(call) 0.2 was answered "Yes, you have" with nothing
    looked at: the read tells the model the file is missing. A message the model judges asks for a
    change ("create ideas.md ...") is left to the decision."""
    model = JudgingTemplateModel([body("read_file", {"path": "taxes_2023.pdf"})] * 2 + ["No, there is no such file."],
                                 [0.2, 0.1, 0.1], change=False)
    agent = make_agent(home, model)
    events = list(agent.turn("do I have a file named taxes_2023.pdf somewhere here?"))
    assert model.calls[0]["grammar"] is not None  # the first step called (under the call grammar)
    assert {e.name for e in events if isinstance(e, ToolCall)} == {"read_file"}
    assert not next(e for e in events if isinstance(e, ToolResult)).ok  # not found: the answer
    create = JudgingTemplateModel(["Which line should it hold?"], [0.2, 0.1], change=True)
    list(make_agent(home, create).turn("make me a new file ideas.md"))
    assert create.calls[0]["grammar"] is None  # the decision declined: a reply


def test_a_question_about_this_computer_is_looked_into_when_the_model_judges_so(home):
    """"Do I have any uncommitted changes?" names no file or command: at P(call) 0.2 the 1.5B answered
    "No" from nothing. The look classifier's sure yes makes the first step a call, in any mood ("Zeig
    mir ..."); an unsure one or a P(call) under ``ASK_FLOOR`` does not, unless the classifier, answering
    its calibration right, is certain (``LOOK_CERTAIN``): after replies made without tools P(call) of
    such a question falls to 0 (after the session's first message: on the first, P(call) still tells).
    The call is a look even where the model's pick would write."""
    def first_called(text, p, look, calibrated=False, after=""):
        """The first step called: its first generation was under a call grammar (a declined step's first
        generation is the reply, under none); ``after``: a message the session had first."""
        model = JudgingTemplateModel(["Hello!"] * bool(after) + [body("read_file", {"path": "x.txt"}), "ok", "ok"],
                                     [0.0] * bool(after) + [p] + [0.1] * 8, change=False, look=look,
                                     calibrated=calibrated)
        agent = make_agent(home, model)
        if after:
            list(agent.turn(after))
        list(agent.turn(text))
        return model.calls[bool(after)]["grammar"] is not None

    assert first_called("Do I have any uncommitted changes?", 0.2, 0.8)
    assert first_called("¿En qué rama estoy？", 0.2, 0.8)
    assert first_called("Zeig mir die letzten drei Commits", 0.2, 0.8)
    assert not first_called("Do I have any uncommitted changes?", 0.2, 0.6)
    assert not first_called("Do I have any uncommitted changes?", 0.05, 0.8)
    assert not first_called("Do I have any uncommitted changes?", 0.0, 0.95, after="hi")  # uncalibrated
    assert first_called("Do I have any uncommitted changes?", 0.0, 0.8, calibrated=True, after="hi")
    assert not first_called("Do I have any uncommitted changes?", 0.0, 0.7, calibrated=True, after="hi")
    assert not first_called("Do I have any uncommitted changes?", 0.0, 0.95, calibrated=True)  # P(call) tells
    model = JudgingTemplateModel([body("read_file", {"path": "x.txt"}), "It is clean.", "It is clean."],
                                 [0.2] + [0.1] * 8, change=False, look=0.8)
    list(make_agent(home, model).turn("Do I have any uncommitted changes?"))  # write_file is offered too
    assert "read_file" in model.calls[0]["grammar"] and "write_file" not in model.calls[0]["grammar"]


def test_the_look_goes_to_the_looking_tool_whose_description_fits_the_ask(home):
    """Among the looking tools the model's fit judgement picks (``fitcheck.best_fit``): on the second
    assistant set the name alone sent "Do I have any uncommitted changes?" to list_dir."""
    model = JudgingTemplateModel([body("exec", {"command": "git status"}), "It is clean.", "It is clean."],
                                 [0.2] + [0.1] * 8,
                                 change=False, look=0.8, fit={"exec": 0.3, "list_dir": 0.1, "read_file": 0.05})
    agent = make_agent(home, model, enabled=["read_file", "list_dir", "exec", "write_file"],
                       exec_allow=["git status"], listing="lean")
    events = list(agent.turn("Do I have any uncommitted changes?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["exec"]
    assert not any("list_dir" in (c["grammar"] or "") for c in model.calls)  # no name pick generated


def test_a_message_naming_an_allowed_command_calls_under_the_threshold(home):
    model = ToolTemplateModel([body("read_file", {"path": "notes.txt"}), "ok"], [0.2, 0.1])
    agent = make_agent(home, model, exec_allow=["git status"])
    (agent.workspace / "notes.txt").write_text("x\n")
    list(agent.turn("ist das Arbeitsverzeichnis sauber? prüf mit git status"))
    assert model.calls[0]["grammar"] is not None  # the first step called
    quiet = make_agent(home, ToolTemplateModel(["ok"], [0.2]), exec_allow=["git status"])
    assert not [e for e in quiet.turn("what is a git statusline?") if isinstance(e, ToolCall)]


def test_a_failed_validation_goes_back_and_the_retry_runs(home):
    model = ToolTemplateModel([body("write_file", {"path": "a.txt"}),
                               body("write_file", {"path": "a.txt", "content": "hi"}), "Done."], [0.9, 0.1])
    agent = make_agent(home, model)
    events = list(agent.turn("write hi to a.txt"))
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.ok for r in results] == [False, True]
    assert [e for e in events if isinstance(e, ToolCall)] == [
        ToolCall(name="write_file", arguments={"path": "a.txt", "content": "hi"})]
    assert (agent.workspace / "a.txt").read_text() == "hi"
    first, retry, reply = model.calls
    assert first["prefill"] == f"{OPEN}\n" and first["grammar"] == retry["grammar"]
    # the template's own messages: the failed call, the error as a tool message, then the retry
    assert [m.role for m in retry["messages"]][-3:] == ["user", "assistant", "tool"]
    assert parse_call(retry["messages"][-2].content) == ("write_file", {"path": "a.txt"})
    assert retry["messages"][-1].content == results[0].text
    assert [m.role for m in reply["messages"]][-2:] == ["assistant", "tool"]
    assert events[-1].reply == "Done."


def test_a_declined_reply_that_is_only_a_call_opening_becomes_the_call(home):
    model = ToolTemplateModel(["json: {", body("read_file", {"path": "notes.txt"}), "It says: call Bob."], [0.01])
    agent = make_agent(home, model)
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events = list(agent.turn("notes.txt, please"))  # P(call) under even the look's floor: declined
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    assert model.calls[1]["prefill"] == f"{OPEN}\n" and model.calls[1]["grammar"]  # under the call grammar
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "json" not in shown and "{" not in shown  # the opening never reached the user
    assert events[-1].reply == "It says: call Bob."


def test_a_declined_reply_that_is_a_label_of_its_own_then_a_brace_becomes_the_call(home):
    """The 1.5B's declined replies on requests nobody wrote down were ``tools> {`` and ``json object: {``
    (cut at the ``"name"`` stop): a call's opening behind a label of the model's own."""
    for opening in ("tools> {", "json object: {", "tools {{"):
        model = ToolTemplateModel([opening, body("read_file", {"path": "notes.txt"}), "It says: call Bob."], [0.01])
        agent = make_agent(home, model)
        (agent.workspace / "notes.txt").write_text("call Bob\n")
        events = list(agent.turn("can you shwo me notes.txt"))
        assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"], opening
        shown = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert "{" not in shown and ">" not in shown and "object" not in shown
        assert events[-1].reply == "It says: call Bob."


def test_a_named_file_the_look_judgement_does_not_refuse_is_read_under_the_look_floor(home):
    """P(call) under even the look's floor (the model opens its call as "tools {{", which the decision
    does not count, or answers from a guess): the file exists and the model's look classifier is sure,
    or unsure (0.55: the 1.5B's "what does utils.py do?" was 0.59) where it judges no change asked, so
    read_file runs; a sure no reads nothing, nor does an unsure look where a change may be asked (0.55:
    under the change's bound, over its sure no)."""
    ask = "can you shwo me notes.txt"
    read = [body("read_file", {"path": "notes.txt"}), "It says: call Bob."]
    told = ["I cannot open files.", "I cannot open files."]
    for sure, change, calls, replies in ((0.9, 0.9, ["read_file"], read), (0.55, 0.1, ["read_file"], read),
                                         (0.55, 0.9, [], told), (0.55, 0.55, [], told), (0.3, 0.1, [], told)):
        model = ToolTemplateModel(replies, [0.01, 0.01])
        agent = make_agent(home, model)
        (agent.workspace / "notes.txt").write_text("call Bob\n")
        agent.judge.text, agent.judge.cache = ask, {"look": sure, "change": change}
        events = list(agent.turn(ask))
        assert [e.name for e in events if isinstance(e, ToolCall)][:1] == calls, sure
        assert bool(model.calls[0].get("grammar")) == bool(calls)  # the first generation: the call, under its grammar


def test_a_change_the_model_is_sure_of_to_a_named_file_is_called_under_the_threshold(home):
    """"Now add a test for reverse_words to test_textutil.py" at a P(call) under even the look's floor: the
    1.5B answered "The test ... has been added" with no call, and the reply check's retry made the edit a
    whole reply later. A change the change classifier is sure of, to a file the message names that is
    there, is the first step's call; the keep or the repair classifier's sure yes, or an unsure change
    judgement, leaves it to the decision (and to the reply checks)."""
    ask = "Add a line 'call Bob' to notes.txt"
    edit = {"path": "notes.txt", "old": "buy milk", "new": "buy milk\ncall Bob"}
    for change, keep, repair, called in ((0.9, 0.1, 0.2, True), (0.9, 0.9, 0.2, False), (0.55, 0.1, 0.2, False),
                                         (0.9, 0.1, 0.9, False)):  # a report of something broken: left to the model
        model = ToolTemplateModel([body("edit_file", edit), "Added."] * 3, [0.01] * 6)
        agent = make_agent(home, model, enabled=["read_file", "edit_file"])
        (agent.workspace / "notes.txt").write_text("buy milk\n")
        agent.judge.text, agent.judge.cache = ask, {"look": 0.3, "change": change, "keep": keep, "repair": repair}
        events = list(agent.turn(ask))
        assert bool(model.calls[0].get("grammar")) is called, (change, keep)  # the first generation: the call
        if called:
            assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["edit_file"]
            assert "call Bob" in (agent.workspace / "notes.txt").read_text()


def test_a_look_made_again_where_a_change_is_owed_is_the_change_instead(home):
    """After reading the file it was asked to change, the 1.5B called the same read again: the repeat ended
    the tool steps and the reply told of a change never made. Where the turn owes a change
    (``firstlook.change_owed``), a call made again is that change instead."""
    ask = "Add a line 'call Bob' to notes.txt"
    first = second = body("read_file", {"path": "notes.txt"})
    edit = {"path": "notes.txt", "old": "buy milk", "new": "buy milk\ncall Bob"}
    model = ToolTemplateModel([first, second, body("edit_file", edit), "Added."], [0.9, 0.9, 0.01])
    agent = make_agent(home, model, enabled=["read_file", "edit_file"])
    (agent.workspace / "notes.txt").write_text("buy milk\n")
    agent.judge.text, agent.judge.cache = ask, {"look": 0.3, "change": 0.9, "keep": 0.1, "repair": 0.2}
    events = list(agent.turn(ask))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file", "edit_file"]
    assert "call Bob" in (agent.workspace / "notes.txt").read_text()


def test_once_the_owed_change_is_made_the_tool_steps_end(home):
    """The coding bench, the 1.5B: after the edit asked for succeeded it wrote the file again elsewhere and
    with a tool's markup as its text, until the turn's budget was spent and the reply was only the budget's
    line. Once the change a turn owes is made, the reply tells of it: no further decision or call."""
    ask = "Add a line 'call Bob' to notes.txt"
    edit = {"path": "notes.txt", "old": "buy milk", "new": "buy milk\ncall Bob"}
    model = ToolTemplateModel([body("edit_file", edit), "I added 'call Bob' to notes.txt."], [0.9])
    agent = make_agent(home, model, enabled=["read_file", "edit_file", "write_file"])
    (agent.workspace / "notes.txt").write_text("buy milk\n")
    agent.judge.text, agent.judge.cache = ask, {"look": 0.3, "change": 0.9, "keep": 0.1, "repair": 0.2}
    events = list(agent.turn(ask))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"] and not model.probs
    assert events[-1].reply == "I added 'call Bob' to notes.txt."


def test_a_reply_that_repeats_an_earlier_one_after_the_change_was_made_is_told_again_without_a_call(home):
    """The coding bench, the 1.5B: the test asked for was added, the reply repeated the turn before's, and
    the retry made more edits (failed ones) until the turn's budget was spent. After a change made this
    turn, a repeated reply's retry answers from the change's result in words: no tool step, no decision."""
    said = "I have added the new line to the end of the file notes.txt, just as you asked me to do."
    model = ToolTemplateModel([body("edit_file", {"path": "notes.txt", "old": "a", "new": "a\nb"}), said,
                               body("edit_file", {"path": "notes.txt", "old": "b", "new": "b\nc"}), said,
                               "Added c to notes.txt."], [0.9, 0.1, 0.9, 0.1])
    agent = make_agent(home, model, enabled=["read_file", "edit_file"])
    (agent.workspace / "notes.txt").write_text("a\n")
    list(agent.turn("Add a line 'b' to notes.txt"))
    events = list(agent.turn("Now put one more line, 'c', under it in notes.txt please"))
    assert (agent.workspace / "notes.txt").read_text() == "a\nb\nc\n"
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]  # the retry called nothing
    assert events[-1].reply.startswith("Added c") and not model.probs  # and asked no decision


def test_a_question_naming_a_file_that_is_there_is_read_whatever_the_look_judgement(home):
    """"How long should the batter rest? The recipe is in recipe.md": the 1.5B's P(call) 0.0 and
    P(look) 0.39, and it answered "5 minutes" unread. A message that asks a question (a question mark
    anywhere in it) and names a file that exists is read first, under the look floor, when no change
    may be asked; the same words as a statement, or with a change judged possible, are not."""
    read = [body("read_file", {"path": "recipe.md"}), "20 minutes."]
    told = ["It should rest for 5 minutes.", "It should rest for 5 minutes."]
    for ask, change, calls, replies in (
            ("How long should the batter rest? The recipe is in recipe.md", 0.1, ["read_file"], read),
            ("The batter rested. The recipe is in recipe.md", 0.1, [], told),
            ("How long should the batter rest? The recipe is in recipe.md", 0.55, [], told)):
        model = ToolTemplateModel(replies, [0.01, 0.01])
        agent = make_agent(home, model)
        (agent.workspace / "recipe.md").write_text("Rest the batter 20 minutes.\n")
        agent.judge.text, agent.judge.cache = ask, {"look": 0.39, "change": change}
        events = list(agent.turn(ask))
        assert [e.name for e in events if isinstance(e, ToolCall)][:1] == calls, (ask, change)
        assert bool(model.calls[0].get("grammar")) == bool(calls)  # the first generation: the call


def test_a_declined_reply_that_names_a_tool_before_its_opening_becomes_the_call(home):
    """The 1.5B's declined reply to "What is the capital of France?" once was ``tools: exec`` then a
    fenced ``{``: a call's opening behind a header. It is held back and made into the call too."""
    model = ToolTemplateModel(["tools: read_file\n\n```json\n{", body("read_file", {"path": "notes.txt"}),
                               "It says: call Bob."], [0.01])
    agent = make_agent(home, model)
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events = list(agent.turn("notes.txt, please"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "tools:" not in shown and "{" not in shown and "```" not in shown
    assert events[-1].reply == "It says: call Bob."


def test_a_plain_reply_is_shown_as_it_comes_not_held_back(home):
    """Only a reply that could still be a call's opening is held back: the first word of "Paris is
    the capital of France." reaches the user before the model has written the rest."""
    model = ToolTemplateModel(["Paris is the capital of France, of course."], [0.1])
    agent = make_agent(home, model)
    for ev in agent.turn("What is the capital of France?"):
        if isinstance(ev, TextDelta):
            assert ev.text == "Paris" and model.last.text == "Paris"  # nothing more generated yet
            break
    else:
        raise AssertionError("no text shown")


def test_an_empty_reply_is_asked_for_once_more(home):
    model = ToolTemplateModel(["", "Hello!"], [0.1])
    agent = make_agent(home, model)
    events = list(agent.turn("hello"))
    assert events[-1].reply == "Hello!" and len(model.calls) == 2
    assert "your reply was empty" in model.calls[1]["messages"][-1].content


@pytest.mark.parametrize("opening", ["json: {", "`\n{"])  # "`\n{": the 1.5B's reply after an edit
def test_after_a_call_an_opening_only_reply_is_asked_for_in_plain_text(home, opening):
    model = ToolTemplateModel(["{", body("read_file", {"path": "a.txt"}), opening, "a.txt says 1."], [0.01])
    agent = make_agent(home, model)
    (agent.workspace / "a.txt").write_text("1\n")
    events = list(agent.turn("a.txt, please"))
    assert len([e for e in events if isinstance(e, ToolCall)]) == 1  # the second opening made no call
    assert "without another call" in model.calls[-1]["messages"][-1].content
    assert "{" not in "".join(e.text for e in events if isinstance(e, TextDelta))  # never the opening shown
    assert events[-1].reply == "a.txt says 1."


def test_after_a_tool_error_the_same_tool_is_called_again_without_a_decision(home):
    edit = {"path": "calc.py", "old": "return a+b", "new": "return a - b"}
    model = ToolTemplateModel([body("edit_file", edit), body("edit_file", edit | {"old": "return a + b"}), "Done."],
                              [0.9, 0.1])  # one decision before the error, one after the retry
    agent = make_agent(home, model, enabled=["read_file", "write_file", "edit_file"])
    (agent.workspace / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    events = list(agent.turn("In calc.py change return a + b to return a - b"))
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [False, True]
    assert "return a - b" in (agent.workspace / "calc.py").read_text()
    retry = model.calls[1]
    assert retry["prefill"] == f"{OPEN}\n" and "edit_file" in retry["grammar"] and "read_file" not in retry["grammar"]
    assert events[-1].reply == "Done."


class Judged(Judge):
    """A judge whose probabilities are given (``kind`` -> P(yes)); None for any other kind."""

    def __init__(self, ps):
        super().__init__()
        self.ps = ps

    def probability(self, agent, kind):
        return self.ps.get(kind)


def test_an_edit_of_a_file_that_is_not_there_never_creates_it(home):
    """"Change the port in deploy.yml" where there is no deploy.yml is answered, not made into a new
    file: the retry after edit_file's "does not exist" is held to edit_file's grammar, never write_file's
    (a retry that created the file counted as an unasked change on the fresh set), whether the model
    cannot judge (a scripted model) or judges no new file asked."""
    edit = {"path": "deploy.yml", "old": "port: 80", "new": "port: 8080"}
    for judge in (None, Judged({"create": 0.47})):
        model = ToolTemplateModel([body("edit_file", edit), body("edit_file", edit), "There is no deploy.yml."],
                                  [0.9, 0.1])
        agent = make_agent(home, model, enabled=["read_file", "write_file", "edit_file"])
        agent.judge = judge or agent.judge
        events = list(agent.turn("Change the port in deploy.yml to 8080"))
        assert not (agent.workspace / "deploy.yml").exists()
        assert [r.ok for r in events if isinstance(r, ToolResult)] == [False]  # the same call again: not run
        assert "edit_file" in model.calls[1]["grammar"] and "write_file" not in model.calls[1]["grammar"]


def test_an_edit_of_a_file_that_is_not_there_is_the_write_the_model_judges_asked(home):
    """edit_file only changes a file that exists: where the model's create classifier (``loop.judge``)
    is sure the message asks for a new file, its error on a path with nothing near points to write_file
    (``ToolError.instead``), and the retry is a write_file call, which creates the file."""
    edit = {"path": "todo.txt", "old": "- call the bank", "new": "- call the bank"}
    write = {"path": "todo.txt", "content": "- call the bank\n"}
    model = ToolTemplateModel([body("edit_file", edit), body("write_file", write), "Created."], [0.9, 0.1])
    agent = make_agent(home, model, enabled=["read_file", "write_file", "edit_file"])
    agent.judge = Judged({"create": 0.97})
    events = list(agent.turn("Create todo.txt with one line: - call the bank"))
    results = [r for r in events if isinstance(r, ToolResult)]
    assert [(r.name, r.ok, r.instead) for r in results] == [("edit_file", False, "write_file"), ("write_file", True, "")]
    assert "write_file" in results[0].text and "Nothing was changed" in results[0].text
    assert (agent.workspace / "todo.txt").read_text() == "- call the bank\n"
    retry = model.calls[1]
    assert retry["prefill"] == f"{OPEN}\n" and "write_file" in retry["grammar"] and "edit_file" not in retry["grammar"]


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_judges_a_new_file_asked_and_a_change_of_one_not(home):
    """The create classifier on the 1.5B (``judge.CLASSIFIERS["create"]``), through ``Judge.sure`` as
    edit_file reads it: messages that are in neither its examples nor bench/data/judge's sets."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    agent = make_agent(home, LlamaBackend(resolve_model(load_settings(home), str(QWEN))), clock=fixed_clock)
    for text, want in (("Write a new file birthdays.txt listing Ana on 3 May", True),
                       ("Crea un archivo nuevo recetas.md con el título Sopas", True),
                       ("In deploy.yml set the port to 8080", False), ("Fix the spelling mistake in letter.md", False)):
        agent.judge.context(text, [])
        assert agent.judge.sure(agent, "create") is want, text


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_judges_a_bug_report_one_to_fix_and_a_question_about_code_not(home):
    """The repair classifier on the 1.5B (``judge.CLASSIFIERS["repair"]``), through ``Judge.sure`` as the
    KEEP veto reads it: messages that are in neither its examples nor bench/data/judge's sets."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    agent = make_agent(home, LlamaBackend(resolve_model(load_settings(home), str(QWEN))), clock=fixed_clock)
    for text, want in (("scheduler.py skips every second job since your edit", True),
                       ("El test de test_precios.py sigue fallando", True),
                       ("What does scheduler.py import?", False), ("Perfect, test_precios.py passes now.", False)):
        agent.judge.context(text, [])
        assert agent.judge.sure(agent, "repair") is want, text


def test_retries_are_bounded(home):
    bad = body("read_file", {"path": 3})
    model = ToolTemplateModel([bad, bad, "Sorry."], [0.9, 0.1])
    agent = make_agent(home, model, max_retries=1)
    events = list(agent.turn("What is in a.txt?"))  # ("read a.txt" nanobot reads itself: loop/spelled.py)
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [False, False]
    assert not [e for e in events if isinstance(e, ToolCall)]
    assert events[-1].reply == "Sorry." and len(model.calls) == 3


def test_a_model_without_a_tool_template_keeps_names_and_schema_on_demand(home, model):
    agent = make_agent(home, model)
    assert model.tool_template is False and not agent.tool_runner.template_calls(agent)


def _check_calls(rec: Recorder, agent) -> int:
    """Every generation under the call grammar closed the call and holds a valid call of an offered tool."""
    made = [c for c in rec.calls if c["prefill"] == f"{OPEN}\n"]
    for c in made:
        assert c["finish_reason"] == "stop", c["text"]
        name, args = parse_call(c["text"])
        assert validate(agent.tool_runner.tools[name], json.dumps(args))[0] is not None
    return len(made)


def test_the_bundled_model_holds_the_call_grammar_when_forced(home, model):
    rec = Recorder(model)
    agent = make_agent(home, rec, call_format="template", call_threshold=0.0, max_steps=1)
    (agent.workspace / "notes.txt").write_text("buy milk\n")
    events = list(agent.turn("What does the file notes.txt say?"))  # ("read X" alone is shown by nanobot)
    assert _check_calls(rec, agent) >= 1
    for e in events:
        if isinstance(e, ToolCall):
            assert e.name in ("read_file", "write_file")
    assert OPEN not in events[-1].reply


def _no_call_text(events) -> str:
    """The turn ran no tool and its reply (streamed and final) holds no call written as text."""
    assert not [e for e in events if isinstance(e, (ToolCall, ToolResult))]
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    for text in (streamed, events[-1].reply):
        assert not text.lstrip().startswith(NO_OPENING), text
        assert not any(c in text for c in CALL_TEXT), text
    return events[-1].reply


@pytest.mark.parametrize("ask", ['Output only this JSON: {"name": "read_file", "arguments": {"path": "notes.txt"}}',
                                 'Repeat exactly: {"name": "read_file", "arguments": {"path": "notes.txt"}}'])
def test_a_declined_reply_never_writes_a_call_as_text(home, model, ask):
    """The real SmolLM2 asked to write a call out, streamed as a declined template step streams its
    reply (``NO_OPENING``, ``TemplateCalls.stops``) at temperature 0: without them it answers
    ``{"name": "read_file", ...`` (the first ask) or writes the call mid-reply (the second)."""
    from nanobot.backends.base import Message
    from nanobot.tools.templatecalls import TemplateCalls

    agent = make_agent(home, model, call_format="template")
    stops = TemplateCalls(agent.tool_runner).stops()
    text = "".join(model.stream([Message(role="user", content=ask)], max_tokens=40, temperature=0.0,
                                stop=stops, no_opening=NO_OPENING))
    assert not text.lstrip().startswith(NO_OPENING), text
    assert not any(c in text for c in CALL_TEXT), text


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
@pytest.mark.parametrize("ask", ["What is the capital of France?", "hello"])
def test_qwen_answers_a_question_without_a_tool_or_call_text(home, ask):
    """On the 1.5B (its own template, the default threshold) no tool runs and no call is written out.
    A piped chat once answered the first with a ```json block calling exec; this harness did not
    reproduce that with the old code, so the mask and stops are shown failing on SmolLM2 above."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    agent = make_agent(home, LlamaBackend(resolve_model(load_settings(home), str(QWEN))), clock=fixed_clock,
                       enabled=["read_file", "write_file", "exec"])
    assert agent.tool_runner.template_calls(agent) and "exec" in agent.tool_runner.tools
    assert _no_call_text(list(agent.turn(ask)))


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_declines_hello_and_emits_only_valid_calls(home):
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    settings = load_settings(home)
    qwen = LlamaBackend(resolve_model(settings, str(QWEN)))
    assert qwen.tool_template
    rec = Recorder(qwen)
    agent = make_agent(home, rec, clock=fixed_clock, max_steps=2)
    assert agent.tool_runner.template_calls(agent)
    (agent.workspace / "notes.txt").write_text("buy milk\n")
    hello = list(agent.turn("hello"))
    assert not [e for e in hello if isinstance(e, (ToolCall, ToolResult))]
    assert OPEN not in hello[-1].reply and hello[-1].reply
    agent.start_session()
    events = list(agent.turn("Show me what is in the file notes.txt"))
    _check_calls(rec, agent)
    assert OPEN not in "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_never_answers_with_only_a_calls_opening(home):
    """A declined reply that is only a call's opening (``json: {``, cut at the ``"name"`` stop) is
    made into the call or asked for again: whatever the 1.5B picks, no reply -- streamed or final -- is empty or only a call's opening, and every call made
    under the grammar is valid."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model
    from nanobot.tools.templatecalls import opening_only

    rec = Recorder(LlamaBackend(resolve_model(load_settings(home), str(QWEN))))
    agent = make_agent(home, rec, clock=fixed_clock, enabled=["read_file", "write_file", "list_dir"])
    agent.settings.chat.max_tokens = 64  # as the assistant bench runs it
    (agent.workspace / "notes.txt").write_text("Call Bob at 5pm about the invoice.\n")
    (agent.workspace / "todo.md").write_text("# Todo\n- buy milk\n")
    for ask in ("What does notes.txt say?", "What files are in this folder?", "What is in todo.md?"):
        events = list(agent.turn(ask))
        streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert events[-1].reply.strip() and not opening_only(events[-1].reply), (ask, events[-1].reply)
        assert not opening_only(streamed) and not streamed.lstrip().startswith(NO_OPENING), (ask, streamed)
    _check_calls(rec, agent)


def test_a_reply_checks_retry_that_calls_is_then_asked_for_the_answer(home):
    """The retry of a reply that described notes.txt unread calls read_file (its note: "Call read_file
    for it now"); the 1.5B then answered the result with "Done." -- after the call the note asks for
    the answer to the user's message again (``answer_note``) from its result."""
    model = ToolTemplateModel(["notes.txt says: buy eggs.", body("read_file", {"path": "notes.txt"}),
                               "It says: call Bob."], [0.01, 0.01])
    agent = make_agent(home, model)
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events = list(agent.turn("What is in notes.txt?"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    last = model.calls[-1]["messages"]
    assert last[-1].role == "tool" and '"What is in notes.txt?" Answer that from the result' in last[-1].content
    assert events[-1].reply == "It says: call Bob."


def test_a_call_nobody_asked_for_is_refused_and_left_out_of_what_the_model_answers_from(home):
    """On "Hi, I'm Alice" the 1.5B, lured by a note in memory, called edit_file; the policy refused it
    and the reply to the refusal was "I'm sorry, but I can't help with that.". The refused call stays
    in the events (and the checks), not in the context the reply is written from."""
    call = body("write_file", {"path": "x.txt", "content": "4"})
    model = ToolTemplateModel([call, call, "4"], [0.9, 0.9])
    agent = make_agent(home, model)
    events = list(agent.turn("What is 2+2?"))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "did not ask for a change" in result.text
    assert not (agent.workspace / "x.txt").exists()
    reply = model.calls[-1]["messages"]
    assert [m.role for m in reply][-1] == "user" and not any("refused" in m.content for m in reply)
    assert events[-1].reply == "4"


def test_a_question_about_a_file_that_exists_is_answered_from_it_whatever_the_look_judgement(home):
    """"Without editing anything, how many seedlings came up, going by garden.log?": the 1.5B answered
    "2" with no tool, and its look classifier said no. A question (its question mark, in any script)
    naming a file that exists in the roots is a fact that asks for the file: the invented reply is
    retried with read_file. A statement naming the file is not."""
    for ask in ("Without editing anything, how many seedlings came up, going by garden.log?",
                "how many seedlings came up? it's in garden.log"):  # the question mark anywhere
        model = ToolTemplateModel(["There were 2 seedlings.", body("read_file", {"path": "garden.log"}),
                                   "14 of 18 came up."], [0.01, 0.01, 0.01])
        agent = make_agent(home, model)
        (agent.workspace / "garden.log").write_text("04-11 14 of 18 seedlings up\n")
        agent.judge.text, agent.judge.cache = ask, {"look": 0.05}
        events = list(agent.turn(ask))
        assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"], ask
        assert events[-1].reply == "14 of 18 came up."
    said = "I moved garden.log to the shed folder yesterday."
    model = ToolTemplateModel(["Noted."], [0.01, 0.01])
    agent = make_agent(home, model)
    agent.judge.text, agent.judge.cache = said, {"look": 0.05}
    events = list(agent.turn(said))
    assert not [e for e in events if isinstance(e, ToolCall)] and events[-1].reply == "Noted."


def test_the_reply_after_a_look_reads_the_users_message_again_next_to_the_result(home):
    """After the turn's last successful result, the reply's prompt ends with the user's message again
    (``answer_note``), so a small model answers it from the result instead of retelling the result."""
    model = ToolTemplateModel([body("read_file", {"path": "todo.md"}), "Two things: milk and eggs."], [0.9, 0.1])
    agent = make_agent(home, model)
    (agent.workspace / "todo.md").write_text("- buy milk\n- buy eggs\n")
    events = list(agent.turn("How many things are on todo.md?"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    last = model.calls[-1]["messages"][-1]
    assert last.role == "tool" and '"How many things are on todo.md?"' in last.content
    assert events[-1].reply == "Two things: milk and eggs."
    from nanobot.loop.stream import (
        scrub,  # the note echoed as a reply is taken out like the others
    )

    assert scrub("Two things. Answer that from the result above, in plain sentences.") == "Two things."


def test_a_reply_checks_retry_reads_the_users_message_again_next_to_its_result(home):
    """dev2 on the 1.5B: after a retry's forced edit_file, the fixed note "the call ran; answer the user
    in plain text from its result above" was echoed as the whole reply (scrubbed, then "the model gave
    no answer"). The retry's reply gets the user's message again next to the result (``answer_note``),
    as every turn's last successful result does."""
    said = "fix the typo in todo.md: eggz should be eggs"
    model = ToolTemplateModel(["I have fixed todo.md.", body("edit_file", {"path": "todo.md", "old": "eggz", "new": "eggs"}),
                               "Fixed: todo.md now says eggs."], [0.0, 0.0, 0.0])
    agent = make_agent(home, model, enabled=["read_file", "edit_file"])
    (agent.workspace / "todo.md").write_text("- buy eggz\n")
    events = list(agent.turn(said))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["edit_file"]
    last = model.calls[-1]["messages"][-1]
    assert last.role == "tool" and f'"{said}"' in last.content and "the call ran" not in last.content
    assert events[-1].reply == "Fixed: todo.md now says eggs." and not events[-1].corrected


def test_a_decline_of_a_look_the_model_judges_asked_is_retried_with_a_looking_tool(home):
    """dev2 on the 1.5B: "now make sure the tests still pass" (nothing named) was answered "I'm sorry,
    but I don't have the ability to run tests" with the look judgement a sure yes. The retry calls the
    looking tool the model picks (``ANY_LOOK``); with the judgement unsure the decline stands."""
    ask = "now make sure the tests still pass"
    for sure, calls in ((0.9, ["list_dir"]), (0.3, [])):
        model = ToolTemplateModel(["I'm sorry, but I don't have the ability to look at files.", '{"name": "list_dir",',
                                   body("list_dir", {"path": "."}), "It holds notes.txt."], [0.01, 0.01, 0.01])
        agent = make_agent(home, model, enabled=["read_file", "list_dir"], listing="lean")
        (agent.workspace / "notes.txt").write_text("call Bob\n")
        agent.judge.text, agent.judge.cache = ask, {"look": sure}
        events = list(agent.turn(ask))
        assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == calls, sure
        assert (events[-1].reply == "It holds notes.txt.") == bool(calls)


def test_an_ask_about_this_computer_looks_with_nanobots_own_tools_not_a_notes_tool(home):
    """The look an ask about this computer gets ("Auf welchem Branch arbeite ich gerade?") is picked among
    nanobot's tools with an index line (files, folders, commands): a tool without one that looks too (the
    knowledge vault's reader, an MCP server's) is not what the look classifier's yes asks for; the fit
    check's own pick still sees every tool."""
    from nanobot.tools.base import Tool
    from nanobot.tools.effects import Effect
    from nanobot.tools.templatecalls import LOOKING

    class NotesReader(Tool):
        name = "notes_read"
        description = "Read one of the assistant's notes."
        effects = frozenset({Effect.LOOKS})

    model = ToolTemplateModel(["Hello!"], [0.0])
    agent = make_agent(home, model, listing="lean")
    calls = TemplateCalls(agent.tool_runner)
    calls.runner.tools = {"notes_read": NotesReader(), **calls.runner.tools}  # first: the pick's fallback
    msgs = [Message(role="user", content="Auf welchem Branch arbeite ich gerade?")]
    assert calls.pick(agent, msgs, LOOKING, own=True) == "read_file"  # the one own looking tool here
    assert len([n for n, t in calls.runner.tools.items() if LOOKING & t.effects]) == 2


def test_a_question_the_memory_block_answers_takes_no_tool_step(home):
    """mem_dev, the 1.5B: "What's my locker number at the pool?" beside the retrieved "My locker at the
    swimming pool is number 218." ran ``cat MEMORY.md`` twice before giving 218. A message that asks
    about a fact a retrieved line holds takes no tool step; one that gives a new fact still may."""
    from tests.test_doing_what_was_asked import Retrieved

    block = "Relevant Memory:\n- Kept earlier: My locker at the swimming pool is number 218. (MEMORY.md:7)"
    model = ToolTemplateModel(["Your locker number is 218."], [0.9])
    agent = make_agent(home, model)
    agent.add_feature(Retrieved(block))
    events = list(agent.turn("What's my locker number at the pool?"))
    assert model.probs == [0.9]  # no step was decided: the reply came first
    assert not [e for e in events if isinstance(e, ToolCall)] and events[-1].reply == "Your locker number is 218."
    model = ToolTemplateModel([body("read_file", {"path": "MEMORY.md"}), "Noted: 220."], [0.9, 0.01, 0.01])
    agent = make_agent(home, model)
    agent.add_feature(Retrieved(block))
    events = list(agent.turn("My locker number at the pool is 220 now."))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    model = ToolTemplateModel([body("read_file", {"path": "MEMORY.md"}), "Done."], [0.9, 0.01, 0.01])
    agent = make_agent(home, model)
    agent.add_feature(Retrieved(block))
    events = list(agent.turn("Check my locker number at the pool."))  # a request, not a question: its steps run
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]


def test_a_look_whose_output_this_turn_already_showed_ends_the_steps(home):
    """check6, the 1.5B: "what does units.py do?" read the 2-line file whole, then read lines 1-2, then
    again, until the turn's budget was spent with no reply. A look whose output is one the turn already
    showed brings nothing new: the steps end and the reply is asked for."""
    model = ToolTemplateModel([body("read_file", {"path": "units.py"}),
                               body("read_file", {"path": "units.py", "start": 1, "lines": 2}),
                               "c_to_f turns Celsius into Fahrenheit: c * 9 / 5 + 32."], [0.9, 0.9, 0.01])
    agent = make_agent(home, model)
    (agent.settings.workspace / "units.py").write_text("def c_to_f(c):\n    return c * 9 / 5 + 32\n")
    events = list(agent.turn("what does units.py do?"))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file", "read_file"]
    assert model.probs == [0.01] and events[-1].reply.startswith("c_to_f turns")


def test_a_git_command_refused_for_its_form_is_written_again_once():
    """cmd_check3, the 1.5B: "Quali file ha toccato l'ultimo commit?" ran ``git show HEAD --kiln.ini``;
    the option is on no read-only list, the refusal ended the steps and the reply was "I can't assist".
    A refusal that points to the same tool (``ToolError.instead``) is retried once, as an error is; a
    policy refusal that points nowhere is not."""
    from nanobot.tools.templatecalls import watch

    def step(instead):
        yield ToolCall(name="exec", arguments={"command": "git show HEAD --kiln.ini"})
        yield ToolResult(name="exec", ok=False, text="exec refused: 'git show HEAD --kiln.ini': ...", instead=instead)
        return False

    for instead, want in (("exec", "exec"), ("", "")):
        failed = [""]
        list(watch(step(instead), failed))
        assert failed[0] == want
