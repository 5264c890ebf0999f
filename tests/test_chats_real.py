"""Per-chat consolidation with the real bundled model over real transcripts: two sessions of a group
chat written by ``nanobot chat --chat proj --as NAME``; then the three passes in-process (every item
the file holds is backed by a quote that occurs in the transcript; the grammar held), ``--dry-run``
through the CLI writes nothing, and a kill -9 between passes keeps the previous file. The model's
wording is never asserted."""

import json
import shutil

import pytest

from nanobot.chats.consolidate import consolidate
from nanobot.chats.contextfile import ContextFile
from nanobot.chats.messages import chat_messages
from nanobot.chats.store import context_path, load_chat
from nanobot.chats.suggester import MAX_ITEMS, Suggestion, parse_suggestions, suggestions_grammar
from nanobot.config import load_settings
from nanobot.core.grounding import quote_found
from tests.conftest import run_cli
from tests.realmodel import Recorder, llama_accepts

pytestmark = pytest.mark.slow

QUIET = {"NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_MEMORY__ENABLED": "false",
         "NANOBOT_TOOLS__ENABLED": "[]", "NANOBOT_CHAT__MAX_TOKENS": "24"}
ALICE = "I am porting the csv parser to Rust this week.\nI prefer short answers without emojis.\n"
BOB = "Please remind me to send the invoice to Bob on Friday.\nThe release notes still need a review.\n"
OLD = ("<!-- nanobot-managed:v1 -->\n# Chat: proj\n\n## Ongoing\n- Writing the design doc [2026-01-01]\n"
       "- my own line, by hand\n\n## Pending\n\n## Recent Topics\n\n## Preferences\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A home with a real two-session group chat ``proj`` and an older CONTEXT.md."""
    home = tmp_path_factory.mktemp("chats") / "home"
    for name, text in (("alice", ALICE), ("bob", BOB)):
        r = run_cli("chat", "--chat", "proj", "--as", name, home=home, input=text, env=QUIET)
        assert r.returncode == 0, r.stderr
    path = context_path(home, "proj")
    path.write_text(OLD)
    return home


@pytest.fixture
def chat_home(base, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(base, home)
    return home


def test_a_real_consolidation_keeps_only_items_backed_by_the_transcript(chat_home, model):
    settings = load_settings(chat_home)
    chat = load_chat(chat_home, "proj")
    assert chat.speakers == ["alice", "bob"] and len(chat.sessions) == 2
    msgs, _ = chat_messages(settings.sessions_dir, chat.sessions, None)
    assert {m.speaker for m in msgs if m.role == "user"} == {"alice", "bob"}
    transcript = "\n".join(m.line() for m in msgs)
    rec = Recorder(model)
    rep = consolidate(settings, "proj", rec)
    assert llama_accepts(model, suggestions_grammar())
    assert rep.messages == len(msgs) and len(rec.constrained()) == len(rep.windows) >= 1
    for w, call in zip(rep.windows, rec.constrained()):
        assert call["text"] == w.output
        if call["finish_reason"] == "stop":  # the grammar held: 1-4 complete, valid items
            items = json.loads(w.output)["items"]
            assert 1 <= len(items) <= MAX_ITEMS and [Suggestion.model_validate(i) for i in items] == w.suggestions
        else:  # cut by max_tokens (tokens follow the CPU): only the complete items are kept
            assert call["finish_reason"] == "length", call
            assert len(w.suggestions) <= MAX_ITEMS and w.suggestions == parse_suggestions(w.output)
    text = context_path(chat_home, "proj").read_text()
    assert text == rep.text and len(text.encode()) <= 2048 and text.startswith("<!-- nanobot-managed:v1 -->\n")
    doc = ContextFile.parse(text)
    assert doc.hand == {"ongoing": ["- my own line, by hand"]} and doc.updated is not None
    backed = {" ".join(d.item.split()).lower(): d for d in rep.decisions if d.outcome == "added"}
    for item in doc.items:
        d = backed[item.text.lower()]  # (the old item is 14+ days old: pruned)
        assert quote_found(d.quote, transcript), (item, d)
    for d in rep.decisions:  # every quote the reviewer let through is in the transcript, no other
        assert (d.outcome in ("added", "merged")) <= quote_found(d.quote, transcript)
    assert load_chat(chat_home, "proj").last_consolidated is not None


def test_dry_run_through_the_cli_writes_nothing(chat_home):
    before = {p: p.read_bytes() for p in (chat_home / "chats").rglob("*") if p.is_file()}
    r = run_cli("consolidate", "proj", "--dry-run", "--verbose", home=chat_home)
    assert r.returncode == 0, r.stderr
    assert "== pass A (suggester)" in r.stdout and "--- CONTEXT.md (now)" in r.stdout
    assert "would write CONTEXT.md" in r.stdout
    after = {p: p.read_bytes() for p in (chat_home / "chats").rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.parametrize("fault", ["consolidate-suggested", "consolidate-reviewed"])
def test_a_crash_between_passes_keeps_the_old_file(chat_home, fault):
    chat_json = chat_home / "chats" / "proj" / "chat.json"
    before = chat_json.read_bytes()
    r = run_cli("consolidate", "proj", home=chat_home, env={"NANOBOT_FAULT": fault})
    assert r.returncode == -9, (r.returncode, r.stderr)
    assert context_path(chat_home, "proj").read_text() == OLD
    assert chat_json.read_bytes() == before  # not marked consolidated: the next run reads it all again
    assert not [p for p in (chat_home / "chats" / "proj").iterdir() if p.name.endswith(".tmp")]
