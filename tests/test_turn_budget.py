"""One budget per turn (``nanobot.loop.budget``): a scripted model that trips every check it can --
calls written as text, claimed changes, a sure yes to every judgement -- never spends more model
evaluations in one turn than ``[chat] turn_evaluations``; spent, the turn ends with what the user saw
and one line saying so; the same model with room to spare spends more (the bound is the budget's)."""

from __future__ import annotations

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import Notice, TextDelta, TurnDone
from nanobot.loop.agent import Agent
from nanobot.loop.budget import TurnBudget, metered
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace

WRITTEN = '{"name": "read_file", "arguments": {"path": "notes.txt"}}'


class Tripping(ScriptedModel):
    """Every reply a call written as text or a claimed change; every judgement a sure yes."""

    def __init__(self) -> None:
        from nanobot.loop.judge import CLASSIFIERS

        super().__init__([])
        self.evaluations = 0
        self._judge_trusted = dict.fromkeys(CLASSIFIERS, True)  # calibrated before (once per model, on disk)

    def stream(self, messages, **kw):
        self.evaluations += 1
        self.replies = [WRITTEN if self.evaluations % 2 else "I've updated notes.txt and saved it to memory."]
        return super().stream(messages, **kw)

    def yes_no(self, messages, *, tools=None):
        self.evaluations += 1
        return 0.99, 0.01

    def yes_no_apart(self, messages, **_):
        self.evaluations += 1
        return 0.99, 0.01


def agent_with(home, evaluations: int) -> tuple[Agent, Tripping]:
    settings = load_settings(home, chat={"turn_evaluations": evaluations}, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "notes.txt").write_text("milk, eggs\n")
    model = Tripping()
    agent = Agent(settings, model)
    attach_tools(agent)
    return agent, model


def scripted(home, evaluations: int, replies: list[str]) -> Agent:
    """An agent whose scripted model writes tool steps as text (``call_format = "names"``), one
    generation each, under a budget of ``evaluations``; notes.txt holds "milk, eggs"."""
    settings = load_settings(home, chat={"turn_evaluations": evaluations}, tools={"call_format": "names"},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "notes.txt").write_text("milk, eggs\n")
    agent = Agent(settings, ScriptedModel(replies))
    attach_tools(agent)
    return agent


def test_a_turn_that_trips_every_check_never_spends_more_than_its_budget(home):
    for ask in ("add bread to notes.txt", "what is in notes.txt?", "remember that the shop shuts at 6"):
        agent, model = agent_with(home, 5)
        events = list(agent.turn(ask))
        assert isinstance(events[-1], TurnDone)
        assert model.evaluations <= 5, (ask, model.evaluations)
        assert sum(events[-1].timing.evaluations.values()) == model.evaluations


def test_without_the_budget_the_same_turn_spends_more(home):
    agent, model = agent_with(home, 10_000)
    list(agent.turn("add bread to notes.txt"))
    assert model.evaluations > 5  # the bound above is the budget's, not the model's


def test_a_check_with_no_room_left_corrects_instead_of_retrying(home):
    agent, model = agent_with(home, 2)
    events = list(agent.turn("add bread to notes.txt"))
    assert model.evaluations == 2 and events[-1].corrected and "(nanobot:" in events[-1].reply
    assert not any(isinstance(e, Notice) and "asking again" in e.text for e in events)


def test_a_spent_budget_ends_the_turn_with_what_was_shown_and_one_line(home):
    agent = scripted(home, 2, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", "milk, eggs"])
    events = list(agent.turn("what is in notes.txt?"))  # decision, arguments: the answer step finds no room
    done = events[-1]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert done.corrected and done.reply.endswith("no reply was ready yet; ask again.)")  # none above
    assert shown.strip().endswith(done.reply.splitlines()[-1])
    assert any(isinstance(e, Notice) and "turn budget" in e.text for e in events)
    assert agent.history == []  # a cut turn is not what the model should copy next time


def test_a_spent_budget_with_nothing_said_yet_tells_what_the_turns_change_returned(home):
    """The 1.5B added inches_to_cm with edit_file, then spent the turn's evaluations on more calls, and
    the user saw only "(nanobot: this turn used its budget ...; the reply above is the best it had.)"
    with no reply above it. What the change returned is then the turn's answer; a look's result is not."""
    agent = scripted(home, 2, ["Tool: edit_file", '{"path": "notes.txt", "old": "eggs", "new": "eggs, bread"}',
                               "Answer:", "Added."])
    events = list(agent.turn("add bread to notes.txt"))
    assert (agent.workspace / "notes.txt").read_text() == "milk, eggs, bread\n"
    assert events[-1].reply.startswith("(nanobot: edit_file: edited notes.txt")
    assert events[-1].reply.endswith("the reply above is the best it had.)")
    read = scripted(home, 2, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", "milk, eggs"])
    reply = list(read.turn("what is in notes.txt?"))[-1].reply
    assert reply.startswith("(nanobot: this turn used its budget") and "reply above" not in reply  # none is


def test_evaluations_outside_a_turn_or_on_another_thread_draw_nothing():
    import threading

    model, budget = Tripping(), TurnBudget(evaluations=1, seconds=60.0)
    metered(model, budget)
    model.yes_no([])  # between turns
    budget.start()
    model.yes_no([])
    worker = threading.Thread(target=lambda: model.yes_no([]))  # the prefill thread, housekeeping
    worker.start()
    worker.join()
    budget.stop()
    assert sum(budget.used.values()) == 1 and not budget.room()


def test_a_wrapper_around_a_metered_model_draws_once_and_never_recurses():
    from tests.realmodel import Recorder

    inner, budget = Tripping(), TurnBudget(evaluations=3, seconds=60.0)
    metered(inner, budget)
    outer = Recorder(inner)  # forwards attribute writes to the model it wraps
    metered(outer, budget)
    budget.start()
    "".join(outer.stream([]))
    budget.stop()
    assert budget.used == {"stream": 1}


def test_the_seconds_are_checked_before_an_evaluation_starts():
    now = [0.0]
    budget = TurnBudget(evaluations=99, seconds=10.0, clock=lambda: now[0])
    budget.start()
    budget.draw("stream")
    now[0] = 10.5
    budget.stop()
    assert not budget.room() and budget.spent_what() == "10 s"


def test_a_turn_closed_before_its_reply_leaves_no_budget_on_the_thread(home):
    """A turn the caller drops at its first event (a notice before the reply) takes its budget with
    it: the next evaluation on this thread, between turns, draws nothing."""
    from nanobot.loop.budget import current

    agent = scripted(home, 1, ["Hello."])

    def broken(query: str) -> str:
        raise RuntimeError("index gone")

    agent.memory_block = broken
    turn = agent.turn("hi")
    assert "memory lookup failed" in next(e for e in turn if isinstance(e, Notice)).text
    turn.close()
    assert current() is None


def test_set_up_work_draws_neither_evaluations_nor_seconds():
    from nanobot.loop.budget import unmetered

    now = [0.0]
    model, budget = Tripping(), TurnBudget(evaluations=1, seconds=10.0, clock=lambda: now[0])
    metered(model, budget)
    budget.start()
    with unmetered():  # a classifier's calibration, once per model and process
        model.yes_no([])
        now[0] = 30.0
    assert budget.room()
    model.yes_no([])
    budget.stop()
    assert budget.used == {"yes_no": 1}


def test_a_retry_the_budget_cuts_still_ends_with_its_checks_correction(home):
    """The budget ends a check's retry: the user still hears what the check found (here, that nothing
    was changed), then the budget's line, never the budget's line alone."""
    agent = scripted(home, 3, ["I've added bread to notes.txt.", "Tool: edit_file", '{"path": "notes.txt"', "x"])
    events = list(agent.turn("add bread to notes.txt"))
    assert any(isinstance(e, Notice) and "asking again" in e.text for e in events)  # the retry ran, and was cut
    reply = events[-1].reply
    assert "(nanobot: nothing was changed this turn.)" in reply and reply.endswith("the best it had.)")
    assert reply.index("nothing was changed") < reply.index("this turn used its budget")
    assert (agent.workspace / "notes.txt").read_text() == "milk, eggs\n"


def test_a_generation_nobody_reads_as_it_comes_stops_when_the_seconds_are_spent():
    """The coding bench, the 1.5B: a file's rewrite (``generate_apart``) ran 470 tokens and the turn took 96 s
    against its 60 s. A call's arguments (under a grammar) and a stream inside another evaluation stop
    once the seconds are spent; the reply the user reads as it comes runs on."""
    import pytest

    from nanobot.loop.budget import BudgetSpent

    class Slow(ScriptedModel):
        def generate_apart(self, messages, **kw):
            return "".join(self.stream(messages, **kw))

    now = [0.0]
    for how, cut in (({"grammar": "root ::= x"}, True), ({}, False), ("apart", True)):
        model = Slow(["a b c d e f"])
        budget = TurnBudget(evaluations=99, seconds=10.0, clock=lambda: now[0])
        metered(model, budget)
        now[0] = 0.0
        budget.start()
        try:
            if how == "apart":
                with pytest.raises(BudgetSpent):
                    now[0] = 11.0
                    model.generate_apart([])
                continue
            pieces = model.stream([], **how)
            next(pieces)
            now[0] = 11.0
            if cut:
                with pytest.raises(BudgetSpent):
                    list(pieces)
            else:
                assert "".join(pieces).strip()  # the rest of the reply comes
        finally:
            budget.stop()


def test_the_seconds_inside_each_model_method_are_kept_and_shown_under_v():
    """A judgement's seconds and a stream's, piece by piece as it is read, are each kept under their
    method, and ``nanobot chat -v``'s figures line shows them beside the counts."""
    from nanobot.loop.report import TurnClock

    now = [0.0]

    class Ticking(Tripping):
        def yes_no(self, messages, *, tools=None):
            now[0] += 2.0
            return super().yes_no(messages, tools=tools)

        def stream(self, messages, **kw):
            for piece in super().stream(messages, **kw):
                now[0] += 0.5
                yield piece

    model, budget = Ticking(), TurnBudget(evaluations=9, seconds=60.0, clock=lambda: now[0])
    metered(model, budget)
    budget.start()
    model.yes_no([])
    pieces = list(model.stream([]))
    now[0] += 5.0  # the caller's own time between pieces is no method's
    budget.stop()
    assert budget.spent_s == {"yes_no": 2.0, "stream": 0.5 * len(pieces)}
    line = TurnClock(clock=lambda: now[0]).timing(0.0, budget.used, 0, budget.spent_s).line()
    assert f"stream 1 {0.5 * len(pieces):.2f}s" in line and "yes_no 1 2.00s" in line


def test_set_up_seconds_inside_a_turn_are_shown_apart_from_the_evaluations():
    """A calibration run inside a turn (once per model and process) is the turn's wait too: its
    seconds show as "set-up" under -v, apart from the evaluations the turn drew."""
    from nanobot.loop.budget import unmetered
    from nanobot.loop.report import TurnClock

    now = [0.0]
    budget = TurnBudget(evaluations=9, seconds=60.0, clock=lambda: now[0])
    budget.start()
    with unmetered():
        now[0] += 3.0
    budget.stop()
    line = TurnClock(clock=lambda: now[0]).timing(0.0, budget.used, 0, budget.spent_s).line()
    assert "set-up 3.00s" in line and "evaluations" not in line
