"""The "Recent Changes (last 24h)" digest: window edges on an injected clock, newest first, the
change_summary (or the reason of older entries), a torn or corrupt line skipped with a warning, the
budget's "… and N more changes", and reading backwards (a long ledger is not read whole)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features
from nanobot.vault import digest, ledger
from nanobot.vault.ledger import LedgerEntry, ledger_path
from nanobot.workspace import init_workspace

NOW = datetime(2026, 3, 10, 15, 40, tzinfo=timezone(timedelta(hours=1)))


def entry(ago: timedelta, path="projects/a.md", action="update", change="Changed a", reason="asked"):
    return LedgerEntry(ts=NOW - ago, actor="model", action=action, path=f"knowledge/{path}",
                       reason=reason, change_summary=change)


@pytest.fixture
def ws(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    return settings.workspace


def write_ledger(ws, entries, tail: bytes = b""):
    p = ledger_path(ws)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"".join(e.line().encode() + b"\n" for e in entries) + tail)
    return p


def prompt(home, clock=lambda: NOW):
    agent = Agent(load_settings(home), ScriptedModel([]), clock=clock)
    attach_features(agent)
    notes = agent.start_session()
    return agent.system_prompt().text, [n.text for n in notes if n.level == "warning"]


def section(text: str) -> list[str]:
    return text.split("## Recent Changes (last 24h)\n", 1)[1].split("\n## ")[0].splitlines()


def test_window_edges_on_an_injected_clock(ws, home):
    write_ledger(ws, [entry(timedelta(hours=24, minutes=1), change="too old"),
                      entry(timedelta(hours=23, minutes=59), path="old.md", action="create", change="kept"),
                      entry(timedelta(minutes=5), path="new.md", action="delete", change="newest")])
    text, warnings = prompt(home)
    assert warnings == []
    assert section(text) == ["- [15:35] Deleted knowledge/new.md — newest",
                             "- [15:41] Created knowledge/old.md — kept"]  # local time, newest first
    later, _ = prompt(home, clock=lambda: NOW + timedelta(minutes=2))  # the same ledger, 2 min later
    assert section(later) == ["- [15:35] Deleted knowledge/new.md — newest"]


def test_reason_stands_in_for_older_entries_without_change_summary(ws):
    write_ledger(ws, [entry(timedelta(hours=1), change="", reason="the user   asked\nfor it")])
    found = digest.recent(ledger_path(ws), NOW, 24)
    text = digest.render_digest(found.entries, NOW, 24, 200, lambda t: len(t.split()))
    assert text.splitlines()[1] == "- [14:40] Updated knowledge/projects/a.md — the user asked for it"


def test_torn_last_line_and_corrupt_line_are_skipped_with_a_warning(ws, home):
    good = [entry(timedelta(hours=2), change="first"), entry(timedelta(hours=1), change="second")]
    p = write_ledger(ws, good, tail=b'{"ts":"2026-03-10T14:39:00Z","actor":"mo')  # a crash mid-append
    with open(p, "r+b") as f:  # and garbage in the middle
        data = f.read()
        f.seek(0)
        first, rest = data.split(b"\n", 1)
        f.write(first + b"\nnot json at all\n" + rest)
    text, warnings = prompt(home)
    assert section(text) == ["- [14:40] Updated knowledge/projects/a.md — 2 changes, last: second"]
    assert len(warnings) == 2
    assert warnings[0] == "audit/ledger.jsonl: torn last line skipped (not a ledger entry)"
    assert warnings[1].startswith("audit/ledger.jsonl: corrupt line at byte ")
    # appending after a torn line starts a new line: the next entry is readable
    ledger.append(ws, entry(timedelta(minutes=1), change="after the crash"))
    found = digest.recent(p, NOW, 24)
    assert [e.change_summary for e in found.entries] == ["after the crash", "second", "first"]


def test_budget_keeps_the_newest_and_counts_the_rest(ws):
    entries = [entry(timedelta(minutes=m), path=f"d{m}.md", change=f"change number {m}") for m in range(60, 0, -1)]
    write_ledger(ws, entries)
    found = digest.recent(ledger_path(ws), NOW, 24)
    count = lambda t: len(t.split())  # noqa: E731
    text = digest.render_digest(found.entries, NOW, 24, 100, count)
    lines = text.splitlines()
    assert count(text) <= 100
    assert lines[1].endswith("d1.md — change number 1")  # newest kept
    shown = len(lines) - 2
    assert 5 < shown < 60 and lines[-1] == f"… and {60 - shown} more changes"


def test_lines_lacking_optional_fields_read_with_defaults(ws, home):
    p = ledger_path(ws)
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        '{"ts":"2026-03-10T13:00:00Z","action":"create","path":"knowledge/script.md"}',  # a script's line
        '{"ts":"2026-03-10T13:10:00Z","action":"update","path":"knowledge/old.md","reason":"fixed typo"}',
        '{"ts":"2026-03-10T13:20:00Z","action":"update","path":"knowledge/odd.md","actor":"cron",'
        '"sha_after":7,"change_summary":"Nightly sync"}',  # unreadable optional fields: their defaults
        '{"ts":"2026-03-10T13:30:00Z","action":"update"}',  # no path: not an entry
        '["ts","action","path"]',  # not an object
        '{"ts":"yesterday","action":"update","path":"knowledge/x.md"}',  # ts unreadable
    ]
    p.write_text("\n".join(lines) + "\n")
    text, warnings = prompt(home)
    assert section(text) == ["- [14:20] Updated knowledge/odd.md — Nightly sync",
                             "- [14:10] Updated knowledge/old.md — fixed typo",
                             "- [14:00] Created knowledge/script.md"]
    assert len(warnings) == 1 and "3 corrupt lines skipped" in warnings[0]  # one summary warning
    odd = LedgerEntry.from_line(lines[2])
    assert odd is not None and odd.actor == "unknown" and odd.sha_after is None


def test_repeated_edits_of_one_doc_are_one_line_and_every_doc_shows(ws):
    busy = [entry(timedelta(minutes=90 - i), path="projects/zephyr.md", change=f"Port is now {8436 + i}")
            for i in range(8)]  # eight edits, the newest last
    others = [entry(timedelta(hours=h), path=f"d{h}.md", change=f"Note {h}") for h in (3, 4, 5)]
    write_ledger(ws, others[::-1] + busy)
    found = digest.recent(ledger_path(ws), NOW, 24)
    count = lambda t: len(t.split())  # noqa: E731
    lines = digest.render_digest(found.entries, NOW, 24, 200, count).splitlines()
    assert lines[1:] == ["- [14:17] Updated knowledge/projects/zephyr.md — 8 changes, last: Port is now 8443",
                         "- [12:40] Updated knowledge/d3.md — Note 3",
                         "- [11:40] Updated knowledge/d4.md — Note 4",
                         "- [10:40] Updated knowledge/d5.md — Note 5"]
    cut = digest.render_digest(found.entries, NOW, 24, 30, count).splitlines()  # the cut is kept
    assert count("\n".join(cut)) <= 30 and cut[-1] == "… and 2 more changes"
    tight = digest.render_digest(found.entries, NOW, 24, 8, count).splitlines()
    assert tight == ["## Recent Changes (last 24h)", "… and 11 more changes to 4 docs"]


def test_empty_window_says_no_changes(ws, home):
    write_ledger(ws, [entry(timedelta(days=3))])
    text, _ = prompt(home)
    assert section(text) == ["No changes."]


def test_read_backwards_stops_at_the_window(ws, monkeypatch):
    old = [entry(timedelta(days=10)).line() for _ in range(20_000)]
    p = ledger_path(ws)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("\n".join(old) + "\n" + entry(timedelta(hours=1)).line() + "\n")
    reads = []
    real = ledger.read_backwards

    def counting(path, block=ledger.BLOCK):
        for item in real(path, block):
            reads.append(item)
            yield item

    monkeypatch.setattr(digest, "read_backwards", counting)
    found = digest.recent(p, NOW, 24)
    assert len(found.entries) == 1 and len(reads) == 2  # the recent line and the first old one


def test_entries_are_utc_iso_and_the_line_is_one_json_object(ws):
    e = LedgerEntry(ts=datetime(2026, 3, 10, 15, 40, tzinfo=timezone(timedelta(hours=1))), actor="user",
                    action="create", path="knowledge/a.md")
    data = json.loads(e.line())
    assert data["ts"] == "2026-03-10T14:40:00Z" and "\n" not in e.line()
    assert LedgerEntry.model_validate_json(e.line()).ts == datetime(2026, 3, 10, 14, 40, tzinfo=UTC)
