"""Time awareness: every gap bucket gives its hint, with an injected clock; the session pattern."""

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.transcript import Transcript
from nanobot.loop.agent import Agent
from nanobot.observer.feature import attach_observer
from nanobot.observer.timeaware import HINTS, time_report
from nanobot.workspace import init_workspace

TZ = timezone(timedelta(hours=2))
LAST = datetime(2026, 3, 10, 15, 0, tzinfo=TZ)  # the last message of the previous session


def write_session(sessions: Path, start: datetime, minutes: float, turns: int = 2) -> Transcript:
    t = Transcript.create(sessions, start, model="test")
    step = timedelta(minutes=minutes) / max(1, 2 * turns)
    at = start
    for i in range(turns):
        at += step
        t.append("user", f"question {i}", now=at)
        at += step
        t.append("assistant", f"answer {i}", now=at)
    t.append("event", "session end", now=at + timedelta(seconds=5), reason="quit")
    return t


@pytest.mark.parametrize("gap, bucket", [
    (timedelta(minutes=3), "continue"),
    (timedelta(minutes=12), "back"),
    (timedelta(minutes=45), "reorient"),
    (timedelta(hours=3), "summarize"),
    (timedelta(hours=18), "new_day"),  # 15:00 -> 09:00 the next day
    (timedelta(days=4), "new_day"),
])
def test_each_gap_bucket_yields_its_hint(tmp_path, gap, bucket):
    write_session(tmp_path, LAST - timedelta(minutes=20), 20)
    report = time_report(tmp_path, LAST + gap)
    assert report.bucket == bucket
    assert report.gap is not None and abs(report.gap - gap) < timedelta(seconds=1)
    assert HINTS[bucket] in report.lines()


def test_boundaries_and_first_session(tmp_path):
    first = time_report(tmp_path, LAST)
    assert first.bucket == "first" and first.lines() == "Session: just started (first session)"
    write_session(tmp_path, LAST - timedelta(minutes=20), 20)
    assert time_report(tmp_path, LAST + timedelta(minutes=4, seconds=59)).bucket == "continue"
    assert time_report(tmp_path, LAST + timedelta(minutes=5)).bucket == "back"
    assert time_report(tmp_path, LAST + timedelta(minutes=30)).bucket == "reorient"
    assert time_report(tmp_path, LAST + timedelta(hours=2)).bucket == "summarize"
    # the spec: a day boundary counts as the next day whatever the gap (20 min across midnight)
    write_session(tmp_path, datetime(2026, 3, 10, 23, 30, tzinfo=TZ), 25)
    late = time_report(tmp_path, datetime(2026, 3, 11, 0, 15, tzinfo=TZ))
    assert late.bucket == "new_day" and "we last talked 20 min ago. Fresh start" in late.lines()
    assert late.before().startswith("Ended Tuesday 10 Mar, 23:55; it lasted 25 min.")


@pytest.mark.parametrize("gap, words", [
    (timedelta(seconds=30), "just now"), (timedelta(minutes=4, seconds=50), "just now"),
    (timedelta(minutes=5), "5 min ago"), (timedelta(minutes=7), "7 min ago"),
    (timedelta(minutes=61), "1 hour ago"), (timedelta(hours=5, minutes=59), "5 hours ago"),
    (timedelta(hours=24), "1 day ago"), (timedelta(days=3, hours=2), "3 days ago"),
])
def test_gap_wording_and_the_last_session_length(tmp_path, gap, words):
    write_session(tmp_path, LAST - timedelta(minutes=40), 40)  # its last message is at LAST
    report = time_report(tmp_path, LAST + gap)
    assert report.lines().startswith(f"Session: just started; we last talked {words}. ")
    assert report.before() == "Ended Tuesday 10 Mar, 15:00; it lasted 40 min."


def test_session_without_messages_does_not_count_as_interaction(tmp_path):
    write_session(tmp_path, LAST - timedelta(minutes=20), 20)
    empty = Transcript.create(tmp_path, LAST + timedelta(hours=1), model="test")
    empty.append("event", "session end", now=LAST + timedelta(hours=1, seconds=3), reason="eof")
    report = time_report(tmp_path, LAST + timedelta(hours=1, minutes=5))
    assert report.last == LAST and report.bucket == "reorient"


@pytest.mark.parametrize("minutes, word", [(3, "quick check-ins"), (90, "deep work"), (20, "mixed")])
def test_pattern_from_recent_session_lengths(tmp_path, minutes, word):
    for day in range(4):
        write_session(tmp_path, LAST - timedelta(days=4 - day), minutes)
    report = time_report(tmp_path, LAST)
    assert report.pattern.startswith(word)


def test_reorient_hint_points_at_context_md(tmp_path):
    write_session(tmp_path, LAST - timedelta(minutes=20), 20)
    for gap in (timedelta(minutes=30), timedelta(minutes=119)):
        report = time_report(tmp_path, LAST + gap)
        assert report.bucket == "reorient" and "check CONTEXT.md" in report.lines()
    assert "CONTEXT.md" not in time_report(tmp_path, LAST + timedelta(minutes=12)).lines()


def write_debugging(sessions: Path, start: datetime, minutes: float, question: str) -> None:
    t = Transcript.create(sessions, start, model="test")
    t.append("user", question, now=start + timedelta(minutes=minutes / 2))
    t.append("assistant", "Let us look at it.", now=start + timedelta(minutes=minutes))


@pytest.mark.parametrize("questions, word", [
    (["pytest fails with a KeyError traceback", "the build is broken again", "why does it crash on start?",
      "plan the next release"], "debugging sessions"),
    (["plan the next release", "write the changelog", "the error page needs a logo", "rename the module"],
     "mixed"),  # one mention in four is not a debugging pattern
])
def test_pattern_recognises_debugging_sessions(tmp_path, questions, word):
    for day, q in enumerate(questions):
        write_debugging(tmp_path, LAST - timedelta(days=4 - day), 20, q)
    assert time_report(tmp_path, LAST).pattern.startswith(word)


def test_agent_time_section_uses_injected_clock_and_stays_fixed(home):
    settings = load_settings()
    init_workspace(settings.workspace)
    write_session(settings.sessions_dir, LAST - timedelta(minutes=30), 30)
    now = LAST + timedelta(minutes=40)
    agent = Agent(settings, ScriptedModel(["one", "two"]), clock=lambda: now)
    attach_observer(agent)
    agent.start_session()
    first = agent.system_prompt().text
    assert "Now: Tuesday 2026-03-10 15:40" in first
    assert "## Last session\nEnded Tuesday 10 Mar, 15:00; it lasted 30 min.\n\n## Time\n" in first
    assert "Session: just started; we last talked 40 min ago. Re-orient briefly: check CONTEXT.md for the current task." in first
    list(agent.turn("hello"))
    agent.refresh_prompt()
    assert agent.system_prompt().text == first  # built once per session: the prefix stays valid


def test_later_turns_say_how_long_the_session_has_run(home):
    settings = load_settings(memory={"enabled": False})
    init_workspace(settings.workspace)
    clock = [LAST]
    agent = Agent(settings, ScriptedModel(["one", "two", "three"]), clock=lambda: clock[0])
    attach_observer(agent)
    agent.start_session()
    prompt = agent.system_prompt().text
    list(agent.turn("first"))
    clock[0] = LAST + timedelta(minutes=25)
    list(agent.turn("second"))
    sent = [m.content for m in agent.history if m.role == "user"]
    assert sent == ["first", "Session: running for 25 min (first session)\n\nsecond"]  # volatile: with the message
    assert agent.system_prompt().text == prompt  # the cached prefix is untouched


def test_how_long_since_we_last_talked_is_the_gap_before_this_session_not_its_length(home):
    """Asked 25 min into a session that began 3 h after the previous one ended, what the model sees
    answers "3 hours" (the gap since the previous session's end), next to the session's length."""
    settings = load_settings(memory={"enabled": False})
    init_workspace(settings.workspace)
    write_session(settings.sessions_dir, LAST - timedelta(minutes=30), 30)
    start = LAST + timedelta(hours=3)
    clock = [start]
    model = ScriptedModel(["hello", "three hours"])
    agent = Agent(settings, model, clock=lambda: clock[0])
    attach_observer(agent)
    agent.start_session()
    assert "Ended Tuesday 10 Mar, 15:00; it lasted 30 min." in agent.system_prompt().text
    assert "we last talked 3 hours ago." in agent.system_prompt().text
    list(agent.turn("hi"))
    clock[0] = start + timedelta(minutes=25)
    list(agent.turn("How long since we last talked?"))
    seen = model.calls[-1]["messages"][-1].content
    assert seen == ("Session: running for 25 min; before it, we had not talked for 3 h\n\n"
                    "How long since we last talked?")


def test_the_last_session_is_stable_text_the_same_at_any_start(home):
    """The previous session's end, length and the pattern do not depend on when the next session
    starts, so they are stable text (the disk KV entry holds them, saved by the housekeeping child
    before that start): two starts an hour apart share the stable prefix and differ only under Time."""
    settings = load_settings(memory={"enabled": False})
    init_workspace(settings.workspace)
    for day in range(3):
        write_session(settings.sessions_dir, LAST - timedelta(days=2 - day, minutes=30), 30)
    prompts = []
    for gap in (timedelta(minutes=2), timedelta(hours=1)):
        agent = Agent(settings, ScriptedModel(["x"]), clock=lambda gap=gap: LAST + gap)
        attach_observer(agent)
        prompts.append(agent.system_prompt())
    assert prompts[0].stable_text == prompts[1].stable_text
    assert prompts[0].stable_text.endswith(
        "## Last session\nEnded Tuesday 10 Mar, 15:00; it lasted 30 min.\nPattern: mixed sessions (recent sessions ~30 min)")
    assert prompts[0].text != prompts[1].text and "## Time" not in prompts[0].stable_text
