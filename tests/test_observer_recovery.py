"""Never lose the session: a failed model or write leaves the transcript intact, and the next
start notices the missing observation and writes it."""

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.transcript import read_transcript
from nanobot.housekeeping.housekeep import queued
from nanobot.loop.agent import Agent
from nanobot.observer import observer as observer_mod
from nanobot.observer.feature import attach_observer
from nanobot.observer.observer import find_pending, load_observation, observation_path
from nanobot.workspace import init_workspace
from tests.housekeeping import wait_housekept

TURNS = ["My name is Ada and I write a CSV parser in Rust.", "We will use serde for the rows."]


def new_agent(model, **observer):
    settings = load_settings(chat={"max_tokens": 24, "temperature": 0},
                             observer={"reflect_on_start": False, **observer})
    init_workspace(settings.workspace)
    agent = Agent(settings, model)
    hook = attach_observer(agent)
    return agent, hook


def test_failed_write_loses_nothing_and_next_start_recovers(home, monkeypatch):
    draft = ('{"focus": {"text": "Rust CSV parser", "quote": "I write a CSV parser in Rust."}, '
             '"task": {"text": "serde for rows", "quote": "We will use serde for the rows."}, '
             '"blocked": {"text": "", "quote": ""}, "decisions": [], "open_items": [], "facts": []}')
    agent, hook = new_agent(ScriptedModel(["hi", "ok", draft]))
    agent.start_session()
    for text in TURNS:
        list(agent.turn(text))
    sid = agent.transcript.id

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as mp:
        mp.setattr(observer_mod, "atomic_write", disk_full)
        notices = agent.end_session("quit")
    assert any(n.level == "warning" and "No space left" in n.text for n in notices)
    assert not observation_path(agent.workspace, sid).exists()
    records, warnings = read_transcript(agent.transcript.path)  # the session is all there
    assert not warnings
    assert [r.content for r in records if r.role == "user"] == TURNS
    assert sum(r.role == "assistant" for r in records) == 2
    assert records[-1].content == "session end"

    agent2, hook2 = new_agent(ScriptedModel([draft]))
    start_notices = agent2.start_session()
    assert any("1 earlier session(s) have no observation" in n.text for n in start_notices), start_notices
    assert find_pending(agent2.settings, exclude=agent2.transcript.id) == [agent.transcript.path]
    end_notices = agent2.end_session("eof")  # no turns in this one: only the recovery runs
    assert any(f"observed earlier session {sid}" in n.text for n in end_notices), end_notices
    obs = load_observation(observation_path(agent2.workspace, sid))
    assert obs.parts[0].trigger == "recovered" and obs.parts[0].turns == 2
    # the scripted model's draft (not a real model's wording) was used, not the fallback
    assert (obs.parts[0].focus, obs.parts[0].generator) == ("Rust CSV parser", "model")
    assert "Conversation:" in agent2.model.calls[-1]["messages"][-1].content  # from the transcript
    assert find_pending(agent2.settings, exclude=agent2.transcript.id) == []
    assert not observation_path(agent2.workspace, agent2.transcript.id).exists()  # empty session


class Broken(ScriptedModel):
    def __init__(self, error: BaseException):
        super().__init__([])
        self.error = error

    def stream(self, messages, *, grammar=None, **kw):
        if grammar:
            raise self.error
        self.replies = ["fine"]
        return super().stream(messages, grammar=grammar, **kw)


@pytest.mark.parametrize("error", [RuntimeError("llama_decode returned -1"), KeyboardInterrupt()])
def test_model_failure_or_ctrl_c_falls_back_to_an_extractive_observation(home, error):
    agent, hook = new_agent(Broken(error))
    agent.start_session()
    for text in TURNS:
        list(agent.turn(text))
    notices = agent.end_session("interrupt")
    assert any("fallback" in n.text for n in notices)
    part = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts[0]
    assert part.generator == "fallback" and part.summary == TURNS[1]  # the gist, not the name
    assert part.facts == [f'User said: "{TURNS[0]}"']  # the user's own words, nothing invented


def test_cut_off_draft_is_closed_and_garbage_falls_back(home):
    model = ScriptedModel(["fine", "fine", '{"focus": {"text": "serde rows", "quote": "use serde for the rows'])
    agent, _ = new_agent(model)
    agent.start_session()
    for text in TURNS:
        list(agent.turn(text))
    agent.end_session("quit")
    part = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts[0]
    assert (part.generator, part.focus) == ("model", "serde rows")
    assert part.evidence["serde rows"] == "use serde for the rows"


def test_invalid_json_from_the_model_falls_back(home):
    model = ScriptedModel(["fine", "fine", "Sorry, I cannot write JSON."])
    agent, _ = new_agent(model)
    agent.start_session()
    for text in TURNS:
        list(agent.turn(text))
    agent.end_session("quit")
    part = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts[0]
    assert part.generator == "fallback" and part.focus == TURNS[1]  # the gist, not the first message


def test_cli_failed_write_then_next_start_recovers(cli, home):
    """Real CLI, real model: the observations folder is blocked by a file, then unblocked."""
    env = {"NANOBOT_CHAT__MAX_TOKENS": "16", "NANOBOT_MEMORY__ENABLED": "false",
           "NANOBOT_OBSERVER__REFLECT_ON_START": "false", "NANOBOT_TOOLS__ENABLED": "[]"}
    ws = home / "workspace"
    ws.mkdir(parents=True)
    (ws / "observations").write_text("a file where the folder should be")
    r = cli("chat", input="Remember that my cat is called Miso.\n/quit\n", env=env)
    assert r.returncode == 0, r.stderr
    log = wait_housekept(home)  # the detached child failed to write; its job stays queued
    (sessions,) = (home / "sessions").glob("*.jsonl")
    assert f"{sessions.stem}: failed" in log and "kept for the next start" in log, log
    assert "Miso" in sessions.read_text()
    assert [p.stem for p in queued(home)] == [sessions.stem]
    (ws / "observations").unlink()
    r = cli("chat", input="", env=env)  # the next start notices and starts the child again
    assert r.returncode == 0, r.stderr
    assert "1 earlier session(s) without an observation: housekeeping in the background" in r.stderr
    log = wait_housekept(home)
    assert f"{sessions.stem}: observation written" in log, log
    obs = load_observation(ws / "observations" / f"{sessions.stem}.md")
    assert obs.parts[0].trigger == "quit" and obs.parts[0].turns == 1  # from the queued session
    assert not queued(home)
