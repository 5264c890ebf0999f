"""Hooks ask, the Agent applies (``nanobot.core.intents``): a feature returns an intent among its events
instead of assigning to the Agent; the Agent applies it and passes only the other events on. The
real bundled model's tokenizer counts (no generation)."""

from __future__ import annotations

from nanobot.backends.base import Message
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.core.intents import FreshContext, PrefillOff, TranscriptMeta
from nanobot.loop.agent import Agent
from nanobot.runtime import load_model
from nanobot.workspace import init_workspace


class Asks(Feature):
    name = "asks"

    def on_session_start(self, agent):
        return [TranscriptMeta(user_meta={"speaker": "ada"}), PrefillOff(), Notice(text="hello")]

    def on_context_pressure(self, agent, used):
        return [FreshContext(history=[Message(role="user", content="hand-off"),
                                      Message(role="assistant", content="ok")])]


def _agent(home, threshold=0.8):
    settings = load_settings()
    settings.chat.pressure_threshold = threshold
    init_workspace(settings.workspace)
    agent = Agent(settings, load_model(settings, vocab_only=True))
    agent.add_feature(Asks())
    return agent


def test_session_start_intents_are_applied_and_not_passed_on(home):
    agent = _agent(home)
    events = agent.start_session()
    assert [e.text for e in events] == ["hello"]  # the intents are the Agent's, not the user's
    assert agent._prefill_off and agent.settings.chat.prefill  # this session only: settings untouched
    agent.transcript.append("user", "hi")
    user = [line for line in agent.transcript.path.read_text().splitlines() if '"role":"user"' in line]
    assert len(user) == 1 and '"speaker":"ada"' in user[0]
    agent.start_session()  # /new: a fresh session has the prefill back until a hook says otherwise
    assert agent._prefill_off  # Asks says it again at every start


def test_a_fresh_context_from_pressure_rebuilds_the_turn_without_trimming(home):
    agent = _agent(home, threshold=0.01)  # every prompt is "under pressure"
    agent.start_session()
    agent.history = [Message(role="user", content="old " * 50), Message(role="assistant", content="reply")]
    messages = agent.messages_for("new question")
    events = list(agent._fit(messages))
    assert [m.content for m in messages[1:]] == ["hand-off", "ok", "new question"]
    assert agent.history[0].content == "hand-off"
    assert not any("trimmed" in getattr(e, "text", "") for e in events)
