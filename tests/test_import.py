"""``nanobot import``: OpenAI-style JSON/JSONL and the text format become dated sessions; a bad
file is one line naming the line and writes nothing; a crash mid-import is undone by the next one."""

from __future__ import annotations

import json
import os

import pytest

from nanobot.config import load_settings
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.importing.detect import parse_file
from nanobot.importing.formats import ImportFormatError
from nanobot.importing.importer import import_file, import_sessions
from tests.conftest import run_cli

TEXT = """# exported from my old assistant
## 2026-03-01 10:00
user: We found a flat in Porto.
It has a balcony.
assistant: Congratulations! How many rooms?
Ana (user): Two.

## 2026-03-04
system: be nice
user: The lease starts in May.
"""


def test_text_format_sessions_times_speakers(home, tmp_path):
    f = tmp_path / "old.txt"
    f.write_text(TEXT)
    s = load_settings(home)
    written = import_file(s, f)
    assert [p.name[:8] for p in written] == ["20260301", "20260304"]
    recs, warnings = read_transcript(written[0])
    assert not warnings and [r.role for r in recs] == ["session", "user", "assistant", "user"]
    assert recs[1].content == "We found a flat in Porto.\nIt has a balcony."
    assert recs[3].meta == {"speaker": "Ana"} and recs[1].ts < recs[2].ts < recs[3].ts
    assert recs[0].meta["imported"] == "old.txt"
    assert [r.content for r in read_transcript(written[1])[0][1:]] == ["The lease starts in May."]
    with pytest.raises(ImportFormatError, match="already imported"):
        import_file(s, f)


def test_openai_json_and_jsonl(tmp_path):
    j = tmp_path / "chat.json"
    j.write_text(json.dumps([{"title": "porto", "create_time": 1772359200, "messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "flat in Porto"}], "name": "ana"},
        {"role": "assistant", "content": "nice", "timestamp": "2026-03-01T10:05:00Z"}]},
        {"messages": [{"role": "user", "content": "second"}], "date": "2026-03-02"}]))
    a, b = parse_file(j)
    assert (a.title, a.messages[0].speaker, a.messages[0].content) == ("porto", "ana", "flat in Porto")
    assert a.started.timestamp() == 1772359200 and a.messages[1].ts.isoformat().startswith("2026-03-01T10:05")
    assert b.started.date().isoformat() == "2026-03-02"

    lines = tmp_path / "msgs.jsonl"
    lines.write_text('{"role": "user", "content": "a", "ts": "2026-03-01T10:00:00"}\n\n'
                     '{"role": "assistant", "content": "b"}\n')
    (only,) = parse_file(lines)
    assert [m.content for m in only.messages] == ["a", "b"] and only.messages[1].ts > only.messages[0].ts


@pytest.mark.parametrize("name, body, where", [
    ("bad.jsonl", '{"messages": []}\n{"messages": [{"role": "user", "content": "x"}]}\n{oops\n', "bad.jsonl:3: not valid JSON"),
    ("bad.json", '[\n{"role": "user",\n "content": "x"\n},\n]\n', "bad.json:5: not valid JSON"),
    ("role.jsonl", '{"role": "user", "content": "x"}\n{"role": "bot", "content": "y"}\n', "role.jsonl:2: role 'bot'"),
    ("time.json", '[{"role": "user", "content": "x", "ts": "yesterday"}]', "time.json: message 1: time 'yesterday'"),
    ("stray.txt", "## 2026-03-01\nuser: hi\n", None),
    ("stray2.txt", "hello\n## 2026-03-01\nuser: hi\n", "stray2.txt:1: expected '## YYYY-MM-DD'"),
    ("date.txt", "## 2026-13-01\nuser: hi\n", "date.txt:1: time '2026-13-01'"),
    ("empty.json", "[]", "no user or assistant messages"),
])
def test_bad_files_one_line_naming_the_line_nothing_written(home, tmp_path, name, body, where):
    f = tmp_path / name
    f.write_text(body)
    if where is None:
        assert len(parse_file(f)) == 1
        return
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 2 and where in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert list_transcripts(home / "sessions") == []


def test_cli_import_then_memory_search_finds_it(home, tmp_path):
    f = tmp_path / "old.txt"
    f.write_text(TEXT)
    assert "nothing written" in run_cli("import", "--dry-run", str(f), home=home).stdout
    assert list_transcripts(home / "sessions") == []
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 0 and "imported 2 sessions" in r.stdout, r.stderr
    r = run_cli("memory", "search", "--json", "flat with a balcony in Porto", home=home)
    hits = json.loads(r.stdout)
    assert hits and hits[0]["source"].startswith("sessions/20260301-") and "Porto" in hits[0]["text"]


def test_failure_mid_move_leaves_nothing(home, tmp_path, monkeypatch):
    s = load_settings(home)
    sessions = parse_file(_write(tmp_path, TEXT))
    real = os.rename
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "rename", flaky)
    with pytest.raises(Exception, match="disk is full|No space"):
        import_sessions(s, sessions)
    assert len(calls) == 2 and list_transcripts(s.sessions_dir) == []
    assert [p.name for p in s.sessions_dir.iterdir()] == []  # no staging folder, no journal


def test_crash_mid_move_is_undone_by_the_next_import(home, tmp_path):
    f = _write(tmp_path, TEXT)
    r = run_cli("import", str(f), home=home, env={"NANOBOT_FAULT": "import-moved"})
    assert r.returncode != 0
    assert len(list_transcripts(home / "sessions")) == 1  # killed after the first of two
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 0, r.stderr
    assert len(list_transcripts(home / "sessions")) == 2
    assert not list((home / "sessions").glob(".import-*"))


def _write(tmp_path, text):
    f = tmp_path / "hist.txt"
    f.write_text(text)
    return f


def test_imported_sessions_are_not_queued_for_observation_unless_asked(home, tmp_path):
    """500 imported sessions must not become 500 model observations at the next start: imported
    sessions are past conversations only, unless imported with --observe; a live session that
    missed its observation is still pending."""
    from datetime import datetime

    from nanobot.core.transcript import Record

    live = home / "sessions" / "20260310-090000-beef.jsonl"
    live.parent.mkdir(parents=True, exist_ok=True)
    when = datetime(2026, 3, 10, 9, 0).astimezone()
    live.write_text(Record(ts=when, role="session", meta={"id": live.stem}).model_dump_json() + "\n"
                    + Record(ts=when, role="user", content="the lease starts in May").model_dump_json() + "\n")
    f = tmp_path / "old.txt"
    f.write_text(TEXT)
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 0 and "only if imported with --observe" in r.stdout, r.stderr
    st = json.loads(run_cli("status", "--json", home=home).stdout)
    assert st["pending"] == [live.stem]

    g = tmp_path / "other.txt"
    g.write_text("## 2026-02-01 08:00\nuser: My sister lives in Lyon.\n")
    r = run_cli("import", "--observe", str(g), home=home)
    assert r.returncode == 0, r.stderr
    st = json.loads(run_cli("status", "--json", home=home).stdout)
    (observed,) = [p for p in list_transcripts(home / "sessions") if p.name.startswith("20260201")]
    assert sorted(st["pending"]) == sorted([live.stem, observed.stem])
