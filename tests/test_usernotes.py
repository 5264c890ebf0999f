"""USER.md as memory the user can see (``observer/usernotes.py``): the user's stated name, preferences
and standing instructions reach nanobot's section of USER.md with their words, the user's own text
and edits are never clobbered, and the next session's prompt carries them (real model, real CLI)."""

from __future__ import annotations

import json
import threading

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer.feature import attach_observer
from nanobot.observer.observer import observe_live
from nanobot.observer.usernotes import HEADING, kind_of, merge_notes, note_user, notes_from
from nanobot.workspace import init_workspace, visible_text
from tests.housekeeping import wait_housekept

SAID = ["Hi, my name is Priya. Can you read notes.txt?",
        "I prefer short answers with code. Always use metric units.",
        "I need to fix the parser. What is 2+2?"]
FAST = {"NANOBOT_CHAT__MAX_TOKENS": "16", "NANOBOT_OBSERVER__REFLECT_ON_START": "false",
        "NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_TOOLS__ENABLED": "[]"}


def test_kinds_and_lines_are_the_users_words():
    assert [kind_of(s) for s in ["Call me Sam.", "I'm Ada.", "Never use emojis.", "I love Rust.",
                                  "I live in Lyon.", "Never mind.", "I think so.", "call me later"]] == \
        ["Name", "Name", "Instruction", "Prefers", "About", None, None, None]
    lines = notes_from(SAID)
    assert lines == ['- Name: Priya (you said: "my name is Priya.")',
                     '- Prefers: (you said: "I prefer short answers with code.")',
                     '- Instruction: (you said: "Always use metric units.")']
    assert notes_from(["Remember that I prefer tabs over spaces."]) == \
        ['- Prefers: (you said: "I prefer tabs over spaces.")']


def test_merge_keeps_every_byte_of_the_users_file_and_adds_each_statement_once():
    mine = "# User\n<!-- my notes -->\n- Works on: Ferrum\n\n## My own section\nfree text\n"
    once = merge_notes(mine, notes_from(SAID))
    assert once.startswith(mine) and once.count(HEADING) == 1
    assert merge_notes(once, notes_from(SAID)) == once  # said again: nothing added twice
    # the user edits a line in nanobot's section, deletes another and adds one: all kept as they are
    edited = once.replace("- Name: Priya", "- Name: Priya B.").replace(
        '- Instruction: (you said: "Always use metric units.")\n', "") + "- Likes: tea\n"
    again = merge_notes(edited, ['- Prefers: (you said: "I prefer vim.")'])
    assert again.startswith(edited.rstrip("\n").rsplit("\n", 1)[0]) and "- Name: Priya B." in again
    assert "- Likes: tea" in again and '"I prefer vim."' in again and "metric" not in again
    # nanobot's heading removed by the user: a new section at the end, their text untouched
    gone = "# User\n- Name: Ada\n"
    assert merge_notes(gone, ['- Prefers: (you said: "I prefer tea.")']).startswith(gone)


def test_note_user_writes_atomically_and_merges_an_edit_made_meanwhile(home, monkeypatch):
    settings = load_settings()
    init_workspace(settings.workspace)
    path = settings.workspace / "USER.md"
    template = path.read_text()
    assert visible_text(template) == ""  # the template sends nothing
    from nanobot.observer import usernotes

    real_merge = usernotes.merge_notes
    raced = threading.Event()

    def editor_saves_meanwhile(text, lines):  # the user saves in an editor while nanobot merges
        if not raced.is_set():
            raced.set()
            path.write_text(path.read_text() + "- Editor: helix\n")
        return real_merge(text, lines)

    monkeypatch.setattr(usernotes, "merge_notes", editor_saves_meanwhile)
    added = note_user(settings, SAID)
    text = path.read_text()
    assert len(added) == 3 and "- Editor: helix" in text and text.startswith(template)
    assert "Priya" in visible_text(text) and '(you said: "Always use metric units.")' in text


def test_live_observation_notes_the_user_with_a_scripted_model(home):
    settings = load_settings(memory={"enabled": False}, kv_cache={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["ok", "ok", "ok", "not json"]))
    attach_observer(agent)
    agent.start_session()
    for text in SAID:
        list(agent.turn(text))
    observe_live(agent, "quit")
    assert "my name is Priya." in (settings.workspace / "USER.md").read_text()


def test_real_chat_puts_the_name_in_user_md_and_the_next_prompt(cli, home):
    """The bundled model, the real CLI: the name reaches USER.md after the session and the next
    session's system prompt (not only when retrieval happens to surface it)."""
    r = cli("chat", input="\n".join(SAID) + "\n", env=FAST)
    assert r.returncode == 0, r.stderr
    wait_housekept(home)
    user_md = (home / "workspace" / "USER.md").read_text()
    assert HEADING in user_md and '- Name: Priya (you said: "my name is Priya.")' in user_md
    assert '(you said: "Always use metric units.")' in user_md
    shown = cli("prompt", "--json", env=FAST)
    assert shown.returncode == 0, shown.stderr
    text = json.loads(shown.stdout)["text"]
    assert "## About the user" in text and "Priya" in text and "Always use metric units." in text
