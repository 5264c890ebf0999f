"""The 80% trigger: fires before trimming, once per threshold crossing (not every turn)."""

import json
from datetime import UTC, datetime

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.loop.agent import Agent
from nanobot.observer import observer as observer_mod
from nanobot.observer.feature import FALLBACK_NOTE, attach_observer
from nanobot.observer.observer import fallback_draft, load_observation, observation_path
from nanobot.workspace import init_workspace
from tests.realmodel import (
    EMPTY_DRAFT_GRAMMAR,
    Recorder,
    draft_closed,
    expected_generator,
    grammar_held,
)

DRAFT = json.dumps({"focus": {"text": "f words", "quote": "word word"}, "task": {"text": "t words", "quote": "word"},
                    "blocked": {"text": "", "quote": ""}, "decisions": [{"text": "d words", "quote": "word"}],
                    "open_items": [], "facts": []})


class JsonWhenAsked(ScriptedModel):
    """Replies 'ok' to turns and a valid draft when the observer asks with a grammar."""

    def __init__(self, n_ctx: int):
        super().__init__([], n_ctx=n_ctx)
        self.observed_at: list[int] = []
        self.observed: list[str] = []  # the session as each observation read it

    def stream(self, messages, *, grammar=None, **kw):
        self.replies = [DRAFT if grammar else "ok fine"]
        if grammar:
            self.observed_at.append(self.prompt_tokens(messages[:-1]))
            self.observed.append(messages[-1].content)
        return super().stream(messages, grammar=grammar, **kw)


def make_agent(home, n_ctx=1000, max_tokens=100, **env):
    settings = load_settings(chat={"max_tokens": max_tokens, "temperature": 0},
                             observer={"reflect_on_start": False, **env})
    init_workspace(settings.workspace)
    agent = Agent(settings, JsonWhenAsked(n_ctx))
    hook = attach_observer(agent)
    agent.start_session()
    return agent, hook


def test_the_threshold_is_a_chat_setting_with_the_old_observer_key_as_an_alias(home):
    assert load_settings(home).chat.pressure_threshold == 0.8  # the default
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[observer]\nthreshold = 0.5\n")
    assert load_settings(home).chat.pressure_threshold == 0.5  # the old key still read
    (home / "config.toml").write_text("[observer]\nthreshold = 0.5\n[chat]\npressure_threshold = 0.7\n")
    assert load_settings(home).chat.pressure_threshold == 0.7  # [chat] wins
    assert load_settings(home, chat={"temperature": 0}, observer={"threshold": 0.3}).chat.pressure_threshold == 0.7
    (home / "config.toml").write_text("[chat]\npressure_threshold = 0.6\n")
    assert load_settings(home, observer={"threshold": 0.3}).chat.pressure_threshold == 0.6


def test_the_core_fires_pressure_at_the_chat_setting(home):
    agent, _ = make_agent(home, n_ctx=1000)
    run(agent, words(120))  # ~13% of n_ctx: under the default 0.8
    assert pressure_parts(agent) == 0
    agent, _ = make_agent(home, n_ctx=1000, threshold=0.05)  # the old [observer] key
    run(agent, words(120))
    assert pressure_parts(agent) == 1


def words(n: int) -> str:
    return " ".join(["word"] * n)


def run(agent, text: str) -> tuple[list[Notice], bool]:
    events = list(agent.turn(text))
    notices = [e for e in events if isinstance(e, Notice)]
    trimmed = any("history trimmed" in n.text for n in notices)
    return notices, trimmed


def pressure_parts(agent) -> int:
    obs = load_observation(observation_path(agent.workspace, agent.transcript.id))
    return sum(p.trigger == "pressure" for p in obs.parts) if obs else 0


def test_fires_once_while_above_threshold_even_with_trims(home):
    agent, _ = make_agent(home, max_tokens=200)  # the trim then lands under the threshold (the case tested)
    fired, trims, after_trim, sent = [], 0, [], []
    for i in range(14):
        sent.append(words(120))
        notices, trimmed = run(agent, sent[-1])
        trims += trimmed
        if any(n.text.startswith("context at") for n in notices):
            fired.append(i)
        if trimmed:
            after_trim.append(agent.model.prompt_tokens(agent.messages_for("x")))
    assert trims >= 3, "the test must reach trimming"
    # trimming leaves usage just under the threshold, so a naive "was under it" test would fire
    # on every turn from here on
    assert min(after_trim) < 0.8 * agent.model.n_ctx
    assert len(fired) == 1 and pressure_parts(agent) == 1
    # observed with the full, untrimmed history: every turn said until then is in what it read
    assert all(s in agent.model.observed[0] for s in sent[: fired[0] + 1])


def test_fires_again_after_usage_fell_below_and_crossed_again(home):
    agent, _ = make_agent(home)
    fired = []
    sizes = [450] + [60] * 14  # the big first exchange is trimmed away: usage falls, then rises
    for i, n in enumerate(sizes):
        notices, _ = run(agent, words(n))
        if any(x.text.startswith("context at") for x in notices):
            fired.append(i)
    assert len(fired) == 2 and pressure_parts(agent) == 2
    assert fired[1] - fired[0] > 1


def test_new_session_starts_a_new_episode(home):
    agent, _ = make_agent(home)
    for _ in range(6):
        run(agent, words(120))
    first = agent.transcript.id
    agent.end_session("new")
    agent.start_session()
    for _ in range(6):
        run(agent, words(120))
    assert agent.transcript.id != first and pressure_parts(agent) == 1


def _pressure_with_real_model(home, model):
    settings = load_settings(chat={"max_tokens": 24, "temperature": 0, "pressure_threshold": 0.05},
                             observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    fixed = datetime(2026, 3, 2, 10, 30, tzinfo=UTC)
    agent = Agent(settings, Recorder(model), clock=lambda: fixed)
    attach_observer(agent)
    agent.start_session()
    limit = 0.05 * model.n_ctx
    n, first_notices = 0, []
    while n < 6:
        notices, _ = run(agent, "Tell me about Rust and CSV parsing with serde, briefly please.")
        n += 1
        if any("observation written" in x.text for x in notices):
            first_notices = notices
            break
    assert first_notices, f"no pressure observation within {n} turns (limit {limit:.0f} tokens)"
    obs = load_observation(observation_path(agent.workspace, agent.transcript.id))
    (part,) = obs.parts
    assert part.trigger == "pressure" and part.turns == n - 1  # observed before turn n's message
    written = next(x.text for x in first_notices if "observation written" in x.text)
    # the notice says so exactly when the fallback was written
    assert written.endswith(FALLBACK_NOTE) == (part.generator == "fallback"), (written, part)
    notices, _ = run(agent, "And one more question about serde?")
    assert not any(x.text.startswith("context at") for x in notices)  # same crossing
    (draft,) = agent.model.constrained()  # one grammar-constrained call: the observation
    return agent, part, draft


def test_pressure_observation_with_the_real_model(home, model):
    """Whatever the model writes: the grammar held, and the part is the model's draft exactly when
    that draft says something (otherwise the reported fallback)."""
    _, part, draft = _pressure_with_real_model(home, model)
    draft_closed(draft)
    assert part.generator == expected_generator(draft)


def test_unusable_real_draft_falls_back_and_says_so(home, model, monkeypatch):
    """The real model under a grammar that admits only an empty draft: fallback, reported."""
    monkeypatch.setattr(observer_mod, "draft_grammar", lambda *a: EMPTY_DRAFT_GRAMMAR)
    agent, part, draft = _pressure_with_real_model(home, model)
    assert grammar_held(draft["text"])["focus"]["text"] == ""
    assert part.generator == "fallback"
    seen = [(m.role, m.content) for m in agent.history[: 2 * part.turns]]
    expected = fallback_draft(seen)  # extractive: what was asked, nothing invented
    assert (part.summary, part.focus, part.task) == (expected.summary, expected.focus, expected.task)


def test_trimming_never_drops_a_turn_no_observation_saw(home):
    """Every user message trimmed out of the history was in some observation's prompt first."""
    agent, _ = make_agent(home)
    seen: set[str] = set()
    stream = agent.model.stream

    def recording(messages, **kw):
        if kw.get("grammar"):
            seen.update(m.content for m in messages if m.role == "user")
        return stream(messages, **kw)

    agent.model.stream = recording
    sent = [f"turn {i}: " + words(120) for i in range(16)]
    trims = sum(run(agent, text)[1] for text in sent)
    assert trims >= 8, "the test must trim the whole early history away"
    known = [m.content for m in agent.history] + list(seen)  # a message may carry a Session line
    assert [s[:8] for s in sent if not any(s in c for c in known)] == []  # read whole, if compact
