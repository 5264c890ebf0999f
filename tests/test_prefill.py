"""Prefill while the user types, with the real model: the next turn evaluates only its new tokens,
and a message sent while the prefill runs cancels it cleanly (no corrupted KV state)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from nanobot.backends.base import Message
from nanobot.config import load_settings
from nanobot.core.prefill import known_prefix
from nanobot.loop.agent import Agent
from nanobot.workspace import init_workspace

LONG = " ".join(f"Point {i}: the parser keeps rows with quoted commas intact." for i in range(60))


@pytest.fixture
def agent(home, model):
    settings = load_settings(tools={"enabled": []}, memory={"enabled": False},
                             observer={"enabled": False}, chat={"max_tokens": 8, "temperature": 0})
    init_workspace(settings.workspace)
    a = Agent(settings, model)
    a.start_session()
    model.llm.reset()
    return a


def test_known_prefix_is_shared_by_any_message(agent, model):
    msgs = [Message(role="system", content=agent.system_prompt().text)]
    prefix = known_prefix(model, msgs)
    for text in ("hello", "What is 2+2?", "Relevant Memory:\n- x\n\nhi"):
        full = model.tokenize_prompt(model.render([*msgs, Message(role="user", content=text)]))
        assert full[: len(prefix)] == prefix
    assert len(prefix) > model.count_tokens(agent.system_prompt().text)  # system + user header


def test_after_prefill_the_first_turn_evaluates_only_the_users_words(agent, model):
    agent.prefill()
    pre = agent.stop_prefill()
    agent.prefill()  # the real flow: started, left to finish while the user types
    agent._prefill._thread.join(120)
    assert pre is not None and not agent._prefill.error and agent._prefill.evaluated >= 0
    system = [Message(role="system", content=agent.system_prompt().text)]
    prefix = len(known_prefix(model, system))
    assert model.cached_prefix(known_prefix(model, system)) == prefix
    list(agent.turn("What is 2+2?"))
    g = agent.last
    assert g.reused_tokens >= prefix and g.evaluated_tokens == g.prompt_tokens - g.reused_tokens
    assert g.evaluated_tokens <= model.count_tokens("What is 2+2?") + 8  # the words + the template's tail
    model.llm.reset()  # the same turn without prefill evaluates the whole system prompt
    agent2 = Agent(agent.settings, model)
    agent2.start_session()
    list(agent2.turn("What is 2+2?"))
    assert agent2.last.evaluated_tokens > g.evaluated_tokens + prefix // 2


def test_message_sent_during_prefill_cancels_it_cleanly(agent, model):
    agent.history = [Message(role="user", content=LONG), Message(role="assistant", content="Noted.")]
    msgs = [Message(role="system", content=agent.system_prompt().text), *agent.history]
    prefix = known_prefix(model, msgs)
    agent.prefill()
    events = list(agent.turn("Summarize in one word."))  # at once: the prefill is cancelled
    assert agent._prefill.evaluated < len(prefix) and not agent._prefill.error
    assert events and agent.last.completion_tokens > 0
    turn = model.tokenize_prompt(model.render([msgs[0], *agent.history[:-1]]))
    assert len(turn) == agent.last.prompt_tokens and model.cached_prefix(turn) == len(turn)
    # the KV state is sound: a chunked, cancelled-then-resumed prefill gives the logits of one batch
    model.llm.reset()
    cancel = threading.Event()
    model.prefill(prefix[: len(prefix) // 3], cancel)
    model.prefill(prefix, cancel)
    chunked = _last_logits(model.llm)
    model.llm.reset()
    model.llm.eval(prefix)
    whole = _last_logits(model.llm)
    assert np.corrcoef(chunked, whole)[0, 1] > 0.999
    model.llm.reset()
    model.llm.eval(prefix[: len(prefix) // 2])  # a broken resume (wrong cells) would not match
    assert np.corrcoef(_last_logits(model.llm), whole)[0, 1] < 0.99


def _last_logits(llm) -> np.ndarray:
    return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).copy()


def test_typed_draft_is_prefilled_so_enter_evaluates_only_the_last_words(agent, model):
    question = "What is the capital city of France?"
    agent.prefill()
    base = agent.stop_prefill()
    for i in range(1, len(question.split()) + 1):  # keystrokes: each draft supersedes the last
        agent.prefill(" ".join(question.split()[:i]))
    base.wait(120)
    assert not base.error and base.evaluated > 0
    list(agent.turn(question))
    g = agent.last
    assert g.evaluated_tokens == g.prompt_tokens - g.reused_tokens
    assert g.evaluated_tokens <= 8  # the last token or two + the template's tail
    model.llm.reset()
    other = Agent(agent.settings, model)
    other.start_session()
    other.prefill()
    other._prefill.wait(120)
    list(other.turn(question))  # prefilled without the draft: all the words are evaluated
    assert other.last.evaluated_tokens >= g.evaluated_tokens + model.count_tokens(question) - 2


def test_a_keystroke_never_waits_for_the_running_prefill(agent, model, monkeypatch):
    agent.history = [Message(role="user", content=LONG), Message(role="assistant", content="Noted.")]
    model.llm.reset()  # the shared model may hold this prefix from an earlier test: then nothing would run
    inside, go, real_eval = threading.Event(), threading.Event(), model.llm.eval

    def held_eval(batch):  # the running prefill sits inside its first chunk until the test lets it go
        if not inside.is_set():
            inside.set()
            go.wait(30)
        return real_eval(batch)

    monkeypatch.setattr(model.llm, "eval", held_eval)
    agent.prefill()  # a long prefix: seconds of work, chunk by chunk
    running = agent._prefill._thread
    assert inside.wait(60)
    agent.prefill("Summ")  # returns at once: the running prefill is cancelled, not joined here
    assert running.is_alive()  # joining it would have waited out go's 30 s and found it finished
    go.set()
    agent.prefill("Summarize")
    agent.stop_prefill()
    assert not running.is_alive() and not agent._prefill.error
    monkeypatch.undo()
    list(agent.turn("Summarize in one word."))
    assert agent.last.completion_tokens > 0


def test_a_draft_whose_pause_passed_during_a_chunk_starts_when_the_chunk_ends(agent, model, monkeypatch):
    """A draft's pause (the debounce) counts from its keystroke: queued behind a chunk that took
    longer than the pause, it starts as that chunk ends (it waited the whole pause again after the
    chunk: at 60 wpm a keystroke comes every 0.2 s and each 32-token chunk of the 1.5B takes longer,
    so the prefill sat idle 0.15 s per chunk while the person typed)."""
    import time

    from nanobot.core.prefill import Prefill

    model.llm.reset()
    inside, go, real_eval = threading.Event(), threading.Event(), model.llm.eval

    def held_eval(batch):
        if not inside.is_set():
            inside.set()
            go.wait(30)
        return real_eval(batch)

    monkeypatch.setattr(model.llm, "eval", held_eval)
    pre = Prefill(model)
    pre.start([Message(role="system", content=LONG)])
    assert inside.wait(60)
    asked: list[float] = []
    pre.start(lambda: asked.append(time.monotonic()) or [], delay=3.0)  # typed while the chunk runs
    time.sleep(3.5)  # the pause has passed; the chunk still runs
    released = time.monotonic()
    go.set()
    pre.wait(30)
    assert asked and asked[0] - released < 2.0  # not the chunk + another 3 s


def test_a_drafts_look_judgement_is_made_while_typing_and_the_turn_takes_it(agent, model):
    """The look classifier a turn's first step asks of a later message before the reply runs on the
    prefill thread once the draft's words are in; the turn whose message is the draft reuses it (no
    evaluation after Enter), and a message that differs from the draft gets none of it."""
    question = "which branch am I on?"
    agent.prefill()
    base = agent.stop_prefill()
    agent.prefill(question)
    base.wait(120)
    assert not base.error and "look unchecked" not in base.judged[1]  # a first message: only at a likely call
    list(agent.turn("hello"))
    agent.prefill()
    base = agent.stop_prefill()
    agent.prefill(question)
    base.wait(120)
    assert not base.error and base.judged is not None
    key, judged = base.judged
    assert key == (question, 2) and "look" in judged
    asked = []
    had = vars(model).get("yes_no_apart")  # the turn budget's meter, when a turn ran before
    real = model.yes_no_apart
    model.yes_no_apart = lambda messages, **kw: asked.append(messages) or real(messages, **kw)
    try:
        list(agent.turn(question))
        assert agent.judge.probability(agent, "look") == judged["look"] and asked == []
        agent.prefill("what is in notes.txt")
        agent._prefill.wait(120)
        list(agent.turn("hello there"))  # not the draft: judged afresh when asked
        assert "look" not in agent.judge.cache
    finally:
        if had is None:
            del model.yes_no_apart
        else:
            model.yes_no_apart = had
