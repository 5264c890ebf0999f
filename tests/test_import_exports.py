"""``nanobot import`` of what people export: ChatGPT's and Claude's ``conversations.json`` (fixtures in
tests/data/exports, shaped as the documented exports), read as a stream; anything else, and JSON
nested 100,000 deep, is one line naming the format and the field."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import UTC, datetime

import pexpect
import pytest

from nanobot.config import load_settings
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.importing import jsonstream
from nanobot.importing.chatgpt import Skipped
from nanobot.importing.detect import parse_file, read_sessions
from nanobot.importing.formats import ImportFormatError
from nanobot.importing.importer import import_file
from tests.conftest import ROOT, cli_env, run_cli

DATA = ROOT / "tests" / "data" / "exports"


def utc(ts) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def test_chatgpt_export_keeps_the_active_branch_its_title_and_times():
    skipped = Skipped()
    porto, dogs = read_sessions(DATA / "chatgpt_conversations.json", skipped)
    said = [(m.role, m.content) for m in porto.messages]
    assert said == [("user", "We found a flat in Porto with two rooms and a balcony."),
                    ("assistant", "Congratulations! When does the lease start?"),
                    ("user", "Sorry, the lease starts on 1 May."),  # the edit, not the first version
                    ("assistant", "Noted: the lease starts on 1 May."),  # the regenerated reply
                    ("user", "Here is the floor plan of the Porto flat."),  # the image part left out
                    ("assistant", "The balcony faces south, nice.")]  # the tool call and output left out
    assert (skipped.branches, skipped.messages) == (2, 3)
    assert porto.title == "Flat in Porto" and utc(porto.started) == "2024-03-01T10:00:00"
    assert utc(porto.messages[2].ts) == "2024-03-01T10:02:00" and porto.messages[2].ref == "u2"
    assert dogs.title == "Dog names" and (dogs.messages[1].ts - dogs.messages[0].ts).total_seconds() == 1


def test_claude_export_keeps_senders_titles_times_and_content_text():
    (lyon,) = parse_file(DATA / "claude_conversations.json")  # the empty conversation: no session
    assert lyon.title == "Sister in Lyon" and utc(lyon.started) == "2024-05-10T08:00:00"
    assert [m.role for m in lyon.messages] == ["user", "assistant", "user", "assistant"]
    assert lyon.messages[1].content == "Lyon is lovely in spring.\nDoes she like it there?"  # text was ""
    assert utc(lyon.messages[3].ts) == "2024-05-10T08:01:04" and lyon.messages[0].ref == "m1"


def test_imported_export_sessions_carry_their_titles(home):
    written = import_file(load_settings(home), DATA / "chatgpt_conversations.json")
    recs, warnings = read_transcript(written[0])
    assert not warnings and recs[0].meta["title"] == "Flat in Porto"
    assert recs[0].meta["imported"] == "chatgpt_conversations.json" and len(recs) == 7


def test_sessions_come_as_they_are_read(tmp_path):
    """The first conversation is there before the file's end is read (a whole-file parse would fail
    first): memory holds one conversation, not the export."""
    good = json.loads((DATA / "claude_conversations.json").read_text())[0]
    f = tmp_path / "conversations.json"
    f.write_text("[" + json.dumps(good) + ', {"uuid": "x", "chat_messages": [{"sender": "robot"}]}, {"cut')
    sessions = read_sessions(f)
    assert next(sessions).title == "Sister in Lyon"
    with pytest.raises(ImportFormatError, match="message 1: sender 'robot'"):
        next(sessions)


def test_progress_follows_the_bytes_read(home, tmp_path):
    seen: list[tuple[int, int]] = []
    import_file(load_settings(home), DATA / "claude_conversations.json", progress=lambda d, t: seen.append((d, t)))
    size = (DATA / "claude_conversations.json").stat().st_size
    assert seen and seen[-1] == (size, size) and [d for d, _ in seen] == sorted(d for d, _ in seen)


CHATGPT = {"title": "t", "create_time": 1709287200, "current_node": "a",
           "mapping": {"a": {"parent": None, "children": [], "message": {
               "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi"]}}}}}


@pytest.mark.parametrize("items, said", [
    ([{"foo": 1, "bar": 2}], "item 1 (foo, bar) is none of a ChatGPT export's conversations ('mapping')"),
    ([{"title": "t", "create_time": 1, "conversation_id": "c"}], "a ChatGPT export's conversation needs 'mapping'"),
    ([{"uuid": "u", "name": "n", "created_at": "2024-01-01"}], "a Claude export's conversation needs 'chat_messages'"),
    ([{**CHATGPT, "current_node": None}], "conversation 1: a ChatGPT export's conversation needs 'current_node'"),
    ([{**CHATGPT, "current_node": "zz"}], "conversation 1: node 'zz' is not in the ChatGPT export's 'mapping'"),
    ([{**CHATGPT, "mapping": [1]}], "a ChatGPT export's 'mapping' must be an object"),
    ([{"uuid": "u", "chat_messages": [{"text": "hi"}]}], "message 1: a Claude export's message needs 'sender'"),
    ([CHATGPT, {"uuid": "u", "chat_messages": []}], "item 2 is not like item 1 (chatgpt)"),
    ([{"uuid": "u", "created_at": "last week", "chat_messages": []}], "conversation 1: time 'last week'"),
])
def test_anything_else_is_one_line_naming_the_format_and_the_field(home, tmp_path, items, said):
    f = tmp_path / "conversations.json"
    f.write_text(json.dumps(items))
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 2 and said in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert list_transcripts(home / "sessions") == []


@pytest.mark.parametrize("name, body", [
    ("deep.json", "[" * 100_000 + "]" * 100_000),
    ("deepobj.json", '{"messages": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001),
    ("deep.jsonl", '{"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}\n"),
    ("deepitem.json", '[{"mapping": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001 + "]"),
])
def test_json_nested_100000_deep_is_one_line(home, tmp_path, name, body):
    f = tmp_path / name
    f.write_text(body)
    r = run_cli("import", str(f), home=home, timeout=60)
    assert r.returncode == 2 and "nested" in r.stderr and name in r.stderr, r.stderr[-500:]
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_cut_export_names_its_line_or_how_far_it_read(tmp_path, monkeypatch):
    f = tmp_path / "conversations.json"
    shutil.copy(DATA / "claude_conversations.json", f)
    f.write_bytes(f.read_bytes()[:900])
    with pytest.raises(ImportFormatError, match=r"conversations.json:\d+: not valid JSON") as e:
        parse_file(f)
    assert "\n" not in str(e.value)
    monkeypatch.setattr(jsonstream, "EXACT_LINE_BYTES", 100)  # a big file is not read twice
    with pytest.raises(ImportFormatError, match=r"not valid JSON \(.*\) in its first 900 bytes"):
        parse_file(f)
    f.write_bytes(b"[" + "\u00e9".encode("latin-1") + b"]")
    with pytest.raises(ImportFormatError, match="not UTF-8"):
        parse_file(f)


def test_cli_import_of_an_export_indexes_it_and_search_finds_it(home, tmp_path):
    f = DATA / "chatgpt_conversations.json"
    dry = run_cli("import", "--dry-run", str(f), home=home)
    assert "2 sessions, 8 messages (3 messages on 2 other branches" in dry.stdout, dry.stderr
    r = run_cli("import", str(f), home=home)
    assert r.returncode == 0 and "imported 2 sessions" in r.stdout and "indexed: 8 chunks" in r.stdout, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "━" not in r.stderr  # piped: no bar drawn
    hits = json.loads(run_cli("memory", "search", "--json", "--k", "3", "when does the lease start", home=home).stdout)
    assert "1 May" in " ".join(h["text"] for h in hits) and "April" not in " ".join(h["text"] for h in hits)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_on_a_terminal_import_and_index_show_progress(home):
    env = cli_env(home, {"TERM": "xterm", "COLUMNS": "100", "LINES": "30"})
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "import", str(DATA / "claude_conversations.json")],
                          cwd=str(ROOT), env=env, encoding="utf-8", timeout=120, dimensions=(30, 100))
    try:
        child.expect(pexpect.EOF)
        seen = child.before
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, seen
    assert "importing" in seen and "indexing memory (files)" in seen and "━" in seen, seen
    assert "indexed: 4 chunks" in seen


def test_message_times_are_kept_in_the_transcript(home):
    (lyon,) = [p for p in import_file(load_settings(home), DATA / "claude_conversations.json")]
    recs, _ = read_transcript(lyon)
    assert recs[1].ts == datetime(2024, 5, 10, 8, 0, 5, 120000, tzinfo=UTC)
    assert recs[0].meta["title"] == "Sister in Lyon"


def test_a_big_unindexed_import_is_searched_as_far_as_it_is_indexed_with_a_note(home, tmp_path):
    """`memory search` does not index 25 new sessions first (at real sizes: many minutes, unshown): it
    says how far the index is and what indexes the rest; `memory reindex` does, and then it is found."""
    f = tmp_path / "chats.json"
    f.write_text(json.dumps([{"date": f"2026-03-{n + 1:02d}", "messages": [
        {"role": "user", "content": f"On day {n} the parcel code was {7000 + n}."}]} for n in range(25)]))
    assert run_cli("import", "--no-index", str(f), home=home).returncode == 0
    r = run_cli("memory", "search", "--json", "parcel code on day 3", home=home)
    assert json.loads(r.stdout) == [] and "note: 0 of 26 files are indexed so far" in r.stderr, r.stderr
    r = run_cli("memory", "reindex", home=home)
    assert r.returncode == 0 and "25 chunks" in r.stdout and "━" not in r.stdout + r.stderr, r.stderr
    r = run_cli("memory", "search", "--json", "--k", "1", "parcel code on day 3", home=home)
    assert "7003" in json.loads(r.stdout)[0]["text"] and "note:" not in r.stderr
