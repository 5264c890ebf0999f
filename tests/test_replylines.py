"""Lines the reply adds to its copy of a file are made as the edit it describes
(``nanobot.loop.written``): only where a change was asked, only lines added among quoted ones (a
changed or dropped line is never taken), under the call policy and the loss guard like any call."""

from __future__ import annotations

import pytest

from nanobot.core.events import ToolCall, ToolResult
from tests.qwen import SKIP_REASON, qwen_agent, qwen_path
from tests.test_doing_what_was_asked import make_agent, run

LETTER = ("Dear Mr Okafor,\nthank you for the quick reply.\nThe parcel arrived on Wendesday in perfect condition.\n"
          "Kind regards,\nLinnea\n")
FIXED = LETTER.replace("Wendesday", "Wednesday").strip()
LOG = "2024-04-03 sowed tomatoes\n2024-05-02 moved the basil\n2024-05-19 slugs ate the lettuce\n"
QWEN = qwen_path()


def test_a_line_the_reply_adds_among_the_files_quoted_lines_is_added(home):
    added = LETTER.replace("reply.\n", "reply.\nBest wishes to the whole team.\n").strip()
    agent = make_agent(home, ["Answer:", f"Here is the letter with the line:\n\n{added}", "Answer:", "Added."])
    (agent.workspace / "letter.txt").write_text(LETTER)
    events, done = run(agent, "Add the line 'Best wishes to the whole team.' after the thank-you line in letter.txt")
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["edit_file"]
    assert calls[0].arguments["old"] == "thank you for the quick reply."
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [True]
    assert (agent.workspace / "letter.txt").read_text() == added + "\n"
    assert done.reply.endswith("Added.")


def test_a_line_a_fenced_copy_adds_at_the_end_is_appended(home):
    copy = f"```\n{LOG}2024-06-08 picked the first strawberries\n```"
    agent = make_agent(home, ["Answer:", f"Sure:\n{copy}", "Answer:", "Logged."],
                       enabled=["read_file", "edit_file", "append_file"])
    (agent.workspace / "garden.log").write_text(LOG)
    events, _ = run(agent, "Add this line at the end of garden.log: 2024-06-08 picked the first strawberries")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["append_file"]
    assert (agent.workspace / "garden.log").read_text() == LOG + "2024-06-08 picked the first strawberries\n"


@pytest.mark.parametrize("ask, reply", [
    ("What does letter.txt say?", LETTER),  # the file's text, shown
    ("How would letter.txt read with the weekday spelled right?", FIXED),  # no change asked
    ("I misspelled a weekday in letter.txt, could you fix that?", "Dear Mr Okafor,\n...\nKind regards,\nLinnea"),
    ("I misspelled a weekday in letter.txt, could you fix that?", FIXED),  # a line changed: not taken
    ("I misspelled a weekday in letter.txt, could you fix that?",  # a line dropped and one changed
     FIXED.replace("thank you for the quick reply.\n", "")),
    ("Fix the weekday in letter.txt", "The parcel arrived on Wednesday."),  # too little quoted to place it
])
def test_the_files_lines_in_a_reply_change_nothing_unless_they_are_an_asked_change_around_quoted_lines(home, ask, reply):
    agent = make_agent(home, ["Answer:", reply, "Answer:", "ok", "Answer:", "ok"])
    (agent.workspace / "letter.txt").write_text(LETTER)
    events, _ = run(agent, ask)
    assert not [e for e in events if isinstance(e, ToolCall) and e.name in ("edit_file", "write_file")]
    assert (agent.workspace / "letter.txt").read_text() == LETTER


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_the_assistants_weekday_fix_keeps_every_other_line(home):
    """The 1.5B asked to fix a typo described in words, whichever way it answers (a call, the corrected
    text in its reply, words): the letter's other lines stay as they were."""
    agent = qwen_agent(home, max_tokens=96)
    (agent.workspace / "letter.txt").write_text(LETTER)
    list(agent.turn("I misspelled a weekday in letter.txt, could you fix that?"))
    kept = (agent.workspace / "letter.txt").read_text().splitlines()
    assert [line for line in LETTER.splitlines() if "Wendesday" not in line] == [
        line for line in kept if "Wendesday" not in line and "Wednesday" not in line]
