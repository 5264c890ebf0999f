"""A draft's first tool step judged while the person pauses (``tools.foresee``), and what makes the
turn find it answered: the backend's scored prompts (``backends/scored.py``), its yes/no answers and
the runner's picks. The real SmolLM2, its template made to carry the tools' schemas."""

from __future__ import annotations

import threading

import pytest

from nanobot.backends.base import Message
from nanobot.core.events import TextDelta, ToolCall
from nanobot.tools import foresee as foreseen
from nanobot.tools import templatecalls
from tests.test_fitcheck import Judging, pinging


def test_a_generation_after_a_prompt_scored_again_continues_that_prompt(model):
    """P of a prompt scored before is read, not evaluated; the context then holds a later prompt's
    logits, so a generation from the first prompt must decode its last token again. Without that,
    "Name a colour." was answered from where "Another one." left off."""
    a = [Message(role="user", content="Name a colour.")]
    b = [*a, Message(role="assistant", content="Blue."), Message(role="user", content="Now count to three.")]
    ta, tb = (model.tokenize_prompt(model.render(m)) for m in (a, b))
    assert tb[: len(ta)] == ta  # the second prompt continues the first in the KV cache
    model.llm.reset()
    model.scored.clear()
    first = model.prefix_probability(a, ("Blue",))
    model.prefix_probability(b, ("One",))
    evals, real = [], model.llm.eval
    model.llm.eval = lambda tokens: evals.append(len(tokens)) or real(tokens)
    try:
        assert model.prefix_probability(a, ("Blue",)) == first and evals == []  # read, not evaluated
        after = "".join(model.stream_tokens(ta, max_tokens=2, temperature=0.0))
    finally:
        del model.llm.eval
    model.llm.reset()
    assert after == "".join(model.stream_tokens(ta, max_tokens=2, temperature=0.0))  # (later tokens vary with
    # how the prompt was batched)


@pytest.fixture
def foreseeing(home, model, monkeypatch):
    """An agent on the lean listing with a tool the fit check judges, its first decision always going
    on to the pick and the fit check (the floor at 0), the KV cache and scored prompts empty."""
    monkeypatch.setattr(templatecalls, "FIT_FLOOR", 0.0)
    monkeypatch.setattr(foreseen, "FIT_FLOOR", 0.0)
    agent = pinging(home, model)
    agent.settings.tools.call_format = "template"
    agent.start_session()
    model.llm.reset()
    model.scored.clear()
    model._answered.clear()
    return agent


def _turn_batches(agent, model, text):
    """The batch sizes the turn evaluates before its reply's first text (what the reply checks ask
    after it depends on the reply's words)."""
    batches, real = [], model.llm.eval
    model.llm.eval = lambda tokens: batches.append(len(tokens)) or real(tokens)
    before: list[int] | None = None
    try:
        for ev in agent.turn(text):
            if before is None and isinstance(ev, (TextDelta, ToolCall)):
                before = list(batches)
    finally:
        del model.llm.eval
    return (batches if before is None else before), ev.timing


def test_a_message_sent_as_drafted_finds_its_first_step_judged(foreseeing, model):
    """While the person pauses, the draft's decision, pick and fit check are made; the turn whose message
    is the draft evaluates one token at a time until its reply (or call) shows, none of them again. A
    different message (the control) evaluates its decision's tail as a batch."""
    agent, question = foreseeing, "ping the word hi"
    assert agent.tool_runner.template_calls(agent)
    agent.prefill()
    base = agent.stop_prefill()
    agent.prefill(question)
    base.wait(120)
    assert not base.error and agent.tool_runner.picks  # picked while the person paused
    batches, timing = _turn_batches(agent, model, question)
    assert set(batches) <= {1}
    assert timing.read >= 1 and "prefix_probability" not in timing.evaluations  # -v: read, not evaluated
    agent.prefill()
    agent._prefill.wait(120)
    batches, timing = _turn_batches(agent, model, "ping the word ho")
    assert max(batches) > 1 and timing.evaluations["prefix_probability"] >= 1


def test_a_stopped_draft_asks_the_model_nothing(home):
    """Once the stop is set (a keystroke, Enter) no judgement starts: Enter never waits for one."""
    model = Judging(['ping_note"'], [0.5], fit=0.9)
    agent = pinging(home, model)
    stop = threading.Event()
    stop.set()
    agent.judge.context("ping the word hi", [])
    foreseen.foresee(agent, agent.messages_for("ping the word hi"), stop)
    assert model.probs == [0.5] and model.calls == [] and model.asked == [] and agent.judge.cache == {}
    stop.clear()
    foreseen.foresee(agent, agent.messages_for("ping the word hi"), stop)
    assert model.probs == [] and model.asked == ["Tool: ping_note(word) - Write a word into ping.txt\n"
                                                  "Message: ping the word hi"]
