"""A reply the token limit cut while it copied a look's output is finished from the output
(``nanobot.loop.stream``); a reply that only speaks of the output, or one that was not cut, stands."""

from __future__ import annotations

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import TextDelta
from nanobot.loop.agent import Agent
from nanobot.loop.stream import REST_CHARS, rest
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace

LOG = ("commit 3f1c\nAuthor: Ana <ana@x>\nDate:   Mon Nov 23\n\n    Parse quoted fields in the reader\n\n"
       "commit 09ab\nAuthor: Ana <ana@x>\nDate:   Sun Nov 22\n\n    First import\n")


def agent_with(home, replies: list[str], max_tokens: int) -> Agent:
    settings = load_settings(home, chat={"max_tokens": max_tokens}, memory={"enabled": False},
                             observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "history.txt").write_text(LOG)
    agent = Agent(settings, ScriptedModel(replies))
    attach_tools(agent)
    return agent


def test_a_copy_cut_at_the_limit_is_finished_from_the_look_and_streamed(home):
    copy = "Here it is: commit 3f1c Author: Ana <ana@x>\nDate: Mon Nov 23 Parse quoted fields in the reader"
    agent = agent_with(home, ["Tool: read_file", '{"path": "history.txt"}', "Answer:", copy], max_tokens=8)
    events = list(agent.turn("¿Qué dice history.txt sobre los commits?"))
    done = events[-1]
    assert "First import" in done.reply and "Parse quoted fields" in done.reply  # the rest, from the file
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip() == done.reply  # as shown


def test_a_reply_that_stops_by_itself_or_speaks_of_the_output_stands(home):
    said = "The log has two commits by Ana; the last parses quoted fields."
    agent = agent_with(home, ["Tool: read_file", '{"path": "history.txt"}', "Answer:", said], max_tokens=200)
    assert list(agent.turn("what do the commits in history.txt say?"))[-1].reply == said
    assert rest("The last commit, by Ana <ana@x>", [LOG]) == ""  # its last line is no line of the output
    assert rest("- commit 3f1c\n  Author: Ana <ana@x>", [LOG]).startswith("\nDate:   Mon Nov 23")
    assert rest("Here it is:\nDate:", [LOG]) == ""  # too short to tell, and the line before is no copy
    assert len(rest("commit 0\nline 1", ["commit 0\nline 1\n" + "more output\n" * 400])) <= REST_CHARS + 2
