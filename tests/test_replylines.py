"""A change written as the file's own lines in the reply is made as the edit it describes
(``nanobot.loop.replylines``): only where a change was asked, of lines the reply quotes around it, and
under the loss guard like any call."""

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


def test_a_fix_the_reply_writes_as_the_files_corrected_text_is_made(home):
    agent = make_agent(home, ["Answer:", f"Here is the corrected letter:\n\n{FIXED}", "Answer:", "Fixed the weekday."])
    (agent.workspace / "letter.txt").write_text(LETTER)
    events, done = run(agent, "I misspelled a weekday in letter.txt, could you fix that?")
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["edit_file"]
    assert calls[0].arguments["old"] == "The parcel arrived on Wendesday in perfect condition."
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [True]
    assert (agent.workspace / "letter.txt").read_text() == LETTER.replace("Wendesday", "Wednesday")
    assert done.reply.endswith("Fixed the weekday.")


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
    ("Fix the weekday in letter.txt", "The parcel arrived on Wednesday."),  # too little quoted to place it
])
def test_the_files_lines_in_a_reply_change_nothing_unless_they_are_an_asked_change_around_quoted_lines(home, ask, reply):
    agent = make_agent(home, ["Answer:", reply, "Answer:", "ok", "Answer:", "ok"])
    (agent.workspace / "letter.txt").write_text(LETTER)
    events, _ = run(agent, ask)
    assert not [e for e in events if isinstance(e, ToolCall) and e.name in ("edit_file", "write_file")]
    assert (agent.workspace / "letter.txt").read_text() == LETTER


def test_a_copy_that_also_drops_a_line_nobody_named_is_refused_by_the_loss_guard(home):
    dropped = FIXED.replace("thank you for the quick reply.\n", "")
    agent = make_agent(home, ["Answer:", dropped, "Answer:", "ok", "Answer:", "ok"])
    (agent.workspace / "letter.txt").write_text(LETTER)
    events, _ = run(agent, "I misspelled a weekday in letter.txt, could you fix that?")
    results = [r for r in events if isinstance(r, ToolResult) and r.name == "edit_file"]
    assert results and not any(r.ok for r in results)
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
