"""Per-chat context without the real model: chats and speakers, the CONTEXT.md model, the reviewer
(scripted suggester: a real quote is kept, a fabricated one dropped), pruning and the topic cap on an
injected clock, the 2 KB cap, dry-run, windows, injection and the nightly schedule. The real-model run,
the CLI and the crash between passes are in tests/test_chats_real.py."""

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.chats import nightly
from nanobot.chats.consolidate import consolidate
from nanobot.chats.contextfile import ContextFile, Item, render_capped
from nanobot.chats.feature import ChatContextFeature
from nanobot.chats.messages import ChatMessage, chat_messages
from nanobot.chats.store import ChatError, context_path, load_chat, register_session
from nanobot.chats.suggester import make_windows, window_messages
from nanobot.config import load_settings
from nanobot.core.transcript import Transcript, read_transcript
from nanobot.loop.agent import Agent
from nanobot.observer.reflector import lexical_similarity
from tests.conftest import run_cli

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def clock(at=NOW):
    return lambda: at


def said(settings, chat_id, lines, start=NOW - timedelta(hours=2), speaker=None):
    """A real transcript of ``lines`` (user, assistant alternating) registered with the chat."""
    t = Transcript.create(settings.sessions_dir, start, model="scripted")
    t.user_meta = {"speaker": speaker} if speaker else {}
    for i, text in enumerate(lines):
        t.append("user" if i % 2 == 0 else "assistant", text, now=start + timedelta(minutes=i))
    register_session(settings.home, chat_id, t.id, start + timedelta(minutes=len(lines)), speaker)
    return t


def suggestion(category, item, quote, resolved=False):
    return {"category": category, "item": item, "quote": quote, "resolved": resolved}


def reply(*items):
    return json.dumps({"items": list(items)})


@pytest.fixture
def settings(home):
    return load_settings()


def test_reviewer_keeps_a_real_quote_and_drops_a_fabricated_one(settings):
    said(settings, "proj", ["I am porting the csv parser to Rust this week.", "Nice.",
                            "Please remind me to send the invoice to Bob.", "Will do."])
    model = ScriptedModel([reply(
        suggestion("ongoing", "Porting the csv parser to Rust", "porting the CSV parser to  Rust"),
        suggestion("pending", "Send the invoice to Bob", "I must send Bob the invoice today"),  # paraphrase
        suggestion("preference", "Likes Go", "I love Go"))])  # invented
    rep = consolidate(settings, "proj", model, clock=clock(), similarity=lexical_similarity)
    doc = ContextFile.parse(context_path(settings.home, "proj").read_text())
    assert [(i.category, i.text, i.date) for i in doc.items] == [
        ("ongoing", "Porting the csv parser to Rust", date(2026, 11, 20))]
    reasons = {d.item: (d.outcome, d.reason) for d in rep.decisions}
    assert reasons["Send the invoice to Bob"] == ("dropped", "quote not in transcript")
    assert reasons["Likes Go"] == ("dropped", "quote not in transcript")
    assert model.calls[0]["grammar"] and "porting the csv parser" in model.calls[0]["messages"][1].content
    assert load_chat(settings.home, "proj").last_consolidated == NOW


def test_merge_updates_the_date_and_resolved_removes(settings):
    path = context_path(settings.home, "proj")
    path.parent.mkdir(parents=True)
    path.write_text("## Ongoing\n- Porting the csv parser to Rust [2026-11-10]\n"
                    "## Pending\n- Send the invoice to Bob [2026-11-12]\n- my own reminder, by hand\n")
    said(settings, "proj", ["Still porting the csv parser to Rust.", "ok", "I sent the invoice to Bob.", "ok"])
    model = ScriptedModel([reply(
        suggestion("ongoing", "porting the csv parser to rust", "porting the csv parser to Rust"),
        suggestion("pending", "Send the invoice to Bob", "I sent the invoice to Bob", resolved=True))])
    rep = consolidate(settings, "proj", model, clock=clock(), similarity=lexical_similarity)
    doc = ContextFile.parse(path.read_text())
    assert [(i.text, i.date) for i in doc.items] == [("Porting the csv parser to Rust", date(2026, 11, 20))]
    assert doc.hand["pending"] == ["- my own reminder, by hand"]
    assert [d.outcome for d in rep.decisions] == ["merged", "removed", "dropped"]


def test_pruning_after_14_days_and_five_topics_on_an_injected_clock(settings):
    path = context_path(settings.home, "proj")
    path.parent.mkdir(parents=True)
    path.write_text("## Ongoing\n- Old project [2026-11-06]\n- Fresh project [2026-11-07]\n")
    lines = [f"Let us talk about topic{n} now." for n in range(7)]
    said(settings, "proj", [x for line in lines for x in (line, "ok")], start=NOW - timedelta(days=6))
    model = ScriptedModel([reply(*[suggestion("topic", f"topic{n}", f"about topic{n}") for n in range(4)]),
                           reply(*[suggestion("topic", f"topic{n}", f"about topic{n}") for n in range(4, 7)])])
    model.n_ctx = 320 + model.prompt_tokens(window_messages("")) + 16 + 45  # room for about half: two windows
    rep = consolidate(settings, "proj", model, clock=clock(), similarity=lexical_similarity)
    assert len(rep.windows) == 2
    doc = ContextFile.parse(path.read_text())
    assert [i.text for i in doc.items if i.category == "ongoing"] == ["Fresh project"]  # 14 vs 13 days
    assert len([i for i in doc.items if i.category == "topics"]) == 5
    pruned = [d for d in rep.decisions if d.outcome == "pruned"]
    assert [d.item for d in pruned][0] == "Old project" and len(pruned) == 3
    later = consolidate(settings, "proj", None, clock=clock(NOW + timedelta(days=1)))  # nothing new: no model
    assert "Fresh project" not in later.text and later.messages == 0


def test_the_file_stays_within_2_kb_dropping_oldest_and_lowest_priority_first():
    items = [Item(category=c, text=f"{c} item number {n} " + "x" * 40, date=date(2026, 11, 1 + n))
             for n in range(10) for c in ("pending", "ongoing", "preferences", "topics")]
    doc = ContextFile(chat="big", items=items, hand={"pending": ["- a hand line " + "h" * 300]})
    text, dropped = render_capped(doc, 2048)
    assert len(text.encode()) <= 2048 < len(doc.render().encode())
    kept = ContextFile.parse(text)
    assert kept.hand == doc.hand
    assert min(i.date for i in kept.items) >= max(i.date for i in dropped)
    same_day = [i for i in dropped if i.date == max(i.date for i in dropped)]
    assert all(i.category == "topics" for i in same_day[:1])


def test_dry_run_writes_nothing(settings):
    said(settings, "proj", ["I am porting the csv parser to Rust.", "ok"])
    before = (settings.home / "chats" / "proj" / "chat.json").read_bytes()
    model = ScriptedModel([reply(suggestion("ongoing", "Porting the parser", "porting the csv parser"))])
    rep = consolidate(settings, "proj", model, clock=clock(), dry_run=True, similarity=lexical_similarity)
    assert "- Porting the parser [2026-11-20]" in rep.text and "+- Porting the parser" in rep.diff()
    assert not context_path(settings.home, "proj").exists()
    assert (settings.home / "chats" / "proj" / "chat.json").read_bytes() == before
    assert sorted(p.name for p in (settings.home / "chats" / "proj").iterdir()) == [".chat.json.lock", "chat.json"]


def test_a_group_chat_records_speakers(settings):
    for name, text in (("alice", "I will review the parser PR tomorrow."), ("bob", "I need the release notes.")):
        agent = Agent(settings, ScriptedModel(["ok"]), clock=clock())
        agent.add_feature(ChatContextFeature(settings)).select("team", name)
        list(agent.turn(text))
        records, _ = read_transcript(agent.transcript.path)
        assert [r.meta.get("speaker") for r in records if r.role == "user"] == [name]
    chat = load_chat(settings.home, "team")
    assert chat.speakers == ["alice", "bob"] and chat.group and len(chat.sessions) == 2
    msgs, _ = chat_messages(settings.sessions_dir, chat.sessions, None)
    assert [m.line() for m in msgs] == ["alice: I will review the parser PR tomorrow.", "Assistant: ok",
                                        "bob: I need the release notes.", "Assistant: ok"]
    model = ScriptedModel([reply(suggestion("pending", "Review the parser PR", "review the parser PR"))])
    later = datetime.now().astimezone() + timedelta(minutes=1)  # transcripts are stamped with the real time
    consolidate(settings, "team", model, clock=clock(later), similarity=lexical_similarity)
    assert "- Review the parser PR (by alice) [" in context_path(settings.home, "team").read_text()


def test_bad_chat_ids_and_speakers_are_refused():
    feature = ChatContextFeature(None)
    for bad in ("../x", "", ".hidden", "a/b"):
        with pytest.raises(ChatError):
            feature.select(bad)
    with pytest.raises(ChatError):
        feature.select("ok", "\x1b[31m")


def test_windows_read_each_message_once_and_fit_n_ctx():
    model = ScriptedModel([], n_ctx=300)
    msgs = [ChatMessage(ts=NOW, role="user" if i % 2 == 0 else "assistant", text=f"message {i} " + "w " * (i % 7))
            for i in range(60)]
    windows = make_windows(model, msgs, max_tokens=64)
    assert len(windows) >= 3
    assert [i for w in windows for i in range(w.first, w.last + 1)] == list(range(60))
    assert all(model.prompt_tokens(window_messages(w.text)) <= 300 - 64 for w in windows)


def test_the_chat_file_is_a_stable_section_before_time_with_a_stale_note(settings):
    path = context_path(settings.home, "local")
    path.parent.mkdir(parents=True)
    path.write_text("<!-- nanobot-managed:v1 -->\n# Chat: local\n\n## Ongoing\n- Porting the parser [2026-11-01]\n"
                    "\n## Pending\n\n---\n*Last updated: 2026-11-01 02:00*\n")
    agent = Agent(settings, ScriptedModel([]), clock=clock())
    agent.add_feature(ChatContextFeature(settings))
    agent.start_session()
    prompt = agent.system_prompt()
    names = [s.name for s in prompt.sections]
    chat = prompt.sections[names.index("chat")]
    assert chat.stable and names.index("chat") < names.index("time")
    assert chat.text.startswith("## Current conversation\nNote: older than 7 days (last updated 2026-11-01).")
    assert "- Porting the parser [2026-11-01]" in chat.text and "Pending" not in chat.text
    assert chat.text in prompt.stable_text
    path.write_text(path.read_text().replace("2026-11-01 02:00", "2026-11-19 02:00"))
    agent.refresh_prompt()
    assert "older than" in agent.system_prompt().text  # fixed for the session ...
    agent.start_session()
    assert "older than" not in agent.system_prompt().text  # ... fresh at the next one


def test_a_missed_night_runs_at_the_next_start(settings):
    assert nightly.due(settings, NOW)  # never ran
    nightly.run(settings, datetime(2026, 11, 20, 2, 5), load_model=lambda: pytest.fail("nothing to read"))
    assert not nightly.due(settings, datetime(2026, 11, 21, 1, 59))
    assert nightly.due(settings, datetime(2026, 11, 21, 2, 0))
    assert nightly.due(settings, datetime(2026, 11, 23, 9, 0))  # the daemon was off for two nights


def test_contextfile_round_trip_keeps_hand_lines():
    text = ("<!-- nanobot-managed:v1 -->\n# Chat: team\nA note on top, by hand.\n\n## Ongoing\n"
            "- Porting the parser (by alice) [2026-11-20]\n- Older one [2026-11-18]\n- hand line [not a date]\n"
            "\n## Pending\n\n## Recent Topics\n\n## Preferences\n\n## My notes\nfree text\n\n---\n"
            "*Last updated: 2026-11-20 02:00*\n")
    doc = ContextFile.parse(text)
    assert doc.render(group=True) == text
    assert ContextFile.parse(text.replace("\n\n## My notes\nfree text", "")).hand == doc.hand
    assert doc.hand == {"ongoing": ["- hand line [not a date]"]} and doc.extra == ["## My notes", "free text"]


# -- conformance (issues 25, 29) -----------------------------------------------------------------
def test_completed_items_leave_pending_and_ongoing_on_evidence_in_later_messages(settings):
    path = context_path(settings.home, "proj")
    path.parent.mkdir(parents=True)
    path.write_text("## Ongoing\n- Porting the csv parser to Rust [2026-11-10]\n"
                    "## Pending\n- Send the invoice to ACME [2026-11-12]\n- Book the venue [2026-11-12]\n"
                    "- Send the reminder to Dana [2026-11-12]\n")
    said(settings, "proj", ["I have to renew the parking permit.", "Noted.",
                            "Invoice for ACME sent this morning.", "Great.",
                            "We still need to book the venue.", "Done, the reminder to Dana is sent.",
                            "The Rust port of the csv parser is finished!", "Congrats.",
                            "Renewed the parking permit, all good.", "ok"])
    model = ScriptedModel([reply(suggestion("pending", "Renew the parking permit", "renew the parking permit"))])
    rep = consolidate(settings, "proj", model, clock=clock(), similarity=lexical_similarity)
    doc = ContextFile.parse(path.read_text())
    # not marked resolved by the model: the later messages are the evidence
    assert sorted(i.text for i in doc.items) == ["Book the venue",  # "still need to": not done
                                                 "Send the reminder to Dana"]  # only the assistant said so
    removed = {d.item: d.reason for d in rep.decisions if d.outcome == "removed"}
    assert set(removed) == {"Porting the csv parser to Rust", "Send the invoice to ACME",
                            "Renew the parking permit"}  # added from this run's messages, then done
    assert removed["Renew the parking permit"] == "completed: User said 'Renewed the parking permit, all good.'"


def test_a_group_chat_quotes_only_users_and_credits_who_raised_the_topic(settings):
    said(settings, "team", ["We should migrate the build to Bazel.",
                            "Migrating sounds good; I also suggest remote caching for the CI."],
         start=NOW - timedelta(hours=3), speaker="alice")
    said(settings, "team", ["Agreed, migrate the build to Bazel this sprint.", "ok"],
         start=NOW - timedelta(hours=1), speaker="bob")
    model = ScriptedModel([reply(
        suggestion("pending", "Migrate the build to Bazel", "migrate the build to Bazel"),
        suggestion("pending", "Add remote caching for the CI", "I also suggest remote caching for the CI"))])
    rep = consolidate(settings, "team", model, clock=clock(), similarity=lexical_similarity)
    text = context_path(settings.home, "team").read_text()
    assert "- Migrate the build to Bazel (by alice) [2026-11-20]" in text  # alice raised it, bob repeated it
    assert "caching" not in text
    reasons = {d.item: (d.outcome, d.reason) for d in rep.decisions}
    assert reasons["Add remote caching for the CI"] == ("dropped", "quote is the assistant's, not a user's")


def test_status_shows_each_chats_last_consolidation_and_tonights_job(settings):
    from nanobot.chats.nightly import chat_status

    said(settings, "team", ["I will review the parser PR.", "ok"], speaker="alice")
    said(settings, "quiet", ["hello", "hi"])
    consolidate(settings, "quiet", ScriptedModel([reply(suggestion("topic", "Greeting", "hello"))]),
                clock=clock(NOW + timedelta(hours=1)), similarity=lexical_similarity)
    nightly.run(settings, NOW - timedelta(hours=6), load_model=lambda: ScriptedModel([reply()]))  # 03:00
    lines = {c.chat: c.line() for c in chat_status(settings, NOW)}
    assert lines["team"].startswith("team: last consolidated 2026-11-20 03:00; tonight's job (02:00): ")
    assert lines["quiet"] == "quiet: last consolidated 2026-11-20 10:00; tonight's job (02:00): nothing new"
    said(settings, "quiet", ["are you there?", "yes"], start=NOW + timedelta(hours=2))
    after = {c.chat: c for c in chat_status(settings, NOW + timedelta(hours=3))}
    assert after["quiet"].pending and after["quiet"].line().endswith("tonight's job (02:00): pending")
    missed = chat_status(settings, NOW + timedelta(days=1))  # the daemon did not run at 02:00
    assert all("(02:00, missed: runs when the daemon starts)" in c.line() for c in missed)
    out = run_cli("status", home=settings.home)  # the command shows them (on today's clock)
    assert out.returncode == 0 and "chats: 2\n  quiet: last consolidated 2026-11-20 10:00; tonight's job" in out.stdout
    data = json.loads(run_cli("status", "--json", home=settings.home).stdout)
    assert [c["chat"] for c in data["chats"]] == ["quiet", "team"] and data["chats"][0]["pending"]
