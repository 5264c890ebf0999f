"""Session end: /quit, EOF and Ctrl-C write an observation and update CONTEXT.md (real model, real CLI)."""

import json
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime

from nanobot.config import load_settings
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.loop.agent import Agent
from nanobot.observer import observer as observer_mod
from nanobot.observer.contextmd import load_context
from nanobot.observer.feature import FALLBACK_NOTE, attach_observer
from nanobot.observer.observer import load_observation
from nanobot.workspace import init_workspace
from tests.conftest import ROOT, cli_env, wait_reading_stdin
from tests.housekeeping import wait_housekept
from tests.realmodel import (
    EMPTY_DRAFT_GRAMMAR,
    Recorder,
    draft_closed,
    expected_generator,
    grammar_held,
)

FAST = {"NANOBOT_CHAT__MAX_TOKENS": "24", "NANOBOT_OBSERVER__REFLECT_ON_START": "false",
        "NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_TOOLS__ENABLED": "[]"}
ASK = "I am Ada. We decided to use the csv crate with serde for my Rust CSV parser.\n"


def only_observation(home):
    files = sorted((home / "workspace" / "observations").glob("*.md"))
    assert len(files) == 1, files
    return load_observation(files[0])


def check_context_updated(home, obs):
    doc = load_context(home / "workspace" / "CONTEXT.md")
    part = obs.parts[-1]
    assert doc.time.last_session.endswith("1 turns)") and doc.time.session_started
    assert doc.now.focus == part.focus or doc.now.task == part.task
    assert doc.recent and doc.recent[0].split(" ", 1)[1] in part.decisions + [part.summary]


def test_quit_writes_observation_and_context(cli, home):
    r = cli("chat", input=ASK + "/quit\n", env=FAST)
    assert r.returncode == 0, r.stderr
    assert "observing this session in the background" in r.stderr  # the terminal did not wait
    log = wait_housekept(home)
    obs = only_observation(home)
    assert obs.parts[-1].trigger == "quit" and obs.parts[-1].turns == 1
    # whichever part was written (the model's draft or the fallback), the log says which
    assert f"observation written to {home / 'workspace' / 'observations'}" in log
    assert f"({obs.parts[-1].generator})" in log, log
    assert obs.parts[-1].summary
    check_context_updated(home, obs)


def test_eof_writes_observation_and_context(cli, home):
    r = cli("chat", input=ASK, env=FAST)
    assert r.returncode == 0, r.stderr
    wait_housekept(home)
    obs = only_observation(home)
    assert obs.parts[-1].trigger == "eof"
    check_context_updated(home, obs)
    records, _ = read_transcript(list_transcripts(home / "sessions")[0])
    assert records[-1].content == "session end" and records[-1].meta["reason"] == "eof"


def test_ctrl_c_exit_writes_observation(home):
    env = cli_env(home, FAST | {"PYTHONUNBUFFERED": "1"})
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "chat"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    proc.stdin.write(ASK)
    proc.stdin.flush()
    assert "Nano:" in proc.stdout.readline()  # the reply has started
    sessions = home / "sessions"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the reply is recorded, then press Ctrl-C
        files = list_transcripts(sessions)
        if files and any(r.role == "assistant" for r in read_transcript(files[0])[0]):
            break
        time.sleep(0.2)
    wait_reading_stdin(proc.pid)  # the reply is over (Ctrl-C during a reply only stops the reply)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    wait_housekept(home)
    obs = only_observation(home)
    assert obs.parts[-1].trigger == "interrupt" and obs.parts[-1].turns == 1
    check_context_updated(home, obs)


def _end_session_with_real_model(home, model):
    settings = load_settings(chat={"max_tokens": 24, "temperature": 0},
                             observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    fixed = datetime(2026, 3, 2, 10, 30, tzinfo=UTC)
    agent = Agent(settings, Recorder(model), clock=lambda: fixed)
    hook = attach_observer(agent)
    agent.start_session()
    list(agent.turn(ASK.strip()))
    notices = agent.end_session("quit")
    (written,) = [n.text for n in notices if "observation written" in n.text]
    obs = only_observation(home)
    part = obs.parts[-1]
    assert obs.session == agent.transcript.id and part.trigger == "quit" and part.turns == 1
    assert written.endswith(FALLBACK_NOTE) == (part.generator == "fallback"), (written, part)
    check_context_updated(home, obs)
    assert not hook.last_error
    (draft,) = agent.model.constrained()  # the observation is the only constrained call
    return part, draft


def test_agent_api_end_session(home, model):
    """Whatever the model writes: the grammar held and the right part was written."""
    part, draft = _end_session_with_real_model(home, model)
    print("observer at session end:", json.dumps(model.last.model_dump(exclude={"text"})))
    draft_closed(draft)
    assert part.generator == expected_generator(draft)


def test_unusable_real_draft_at_session_end_falls_back_and_says_so(home, model, monkeypatch):
    monkeypatch.setattr(observer_mod, "draft_grammar", lambda *a: EMPTY_DRAFT_GRAMMAR)
    part, draft = _end_session_with_real_model(home, model)
    assert grammar_held(draft["text"])["focus"]["text"] == ""
    assert part.generator == "fallback"
    gist = "We decided to use the csv crate with serde for my Rust CSV parser."
    assert part.summary == gist  # the session's gist (not its first sentence, "I am Ada."): extractive
    assert part.focus == gist and part.decisions == []
    assert part.facts == ['User said: "I am Ada."']  # the user's own statement, word for word
    assert part.evidence[part.facts[0]] == "I am Ada."
