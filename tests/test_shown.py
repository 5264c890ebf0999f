"""A look that is the whole message ("show me todo.md", "run date") is answered with its output by
nanobot (nanobot.loop.spelled), not retold by the model: the 1.5B retold such outputs wrongly ("The file
`todo.md` is in the current directory.") and every retelling cost a model reply. A message with more
in it is still the model's to answer."""

from __future__ import annotations

import pytest

from nanobot.core.events import TextDelta, ToolCall, ToolResult
from nanobot.loop.spelled import direct, only_look
from tests.test_doing_what_was_asked import make_agent, run
from tests.test_tools_real import make_agent as real_agent

WRONG = "The file todo.md is in the current directory."


def test_show_me_a_file_is_answered_with_the_file_and_no_model_call(home):
    agent = make_agent(home, [WRONG, WRONG, WRONG])
    (agent.workspace / "todo.md").write_text("# Todo\n- buy milk\n")
    events, done = run(agent, "show me todo.md")
    assert done.reply == "todo.md (lines 1-2 of 2):\n# Todo\n- buy milk" and not done.corrected
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == done.reply
    assert agent.model.calls == []  # the model was not asked to retell it
    user, said = agent.history  # the output, for follow-ups; not the caption, which the 1.5B copied
    assert done.shown and user.content == "show me todo.md" and said.content == "# Todo\n- buy milk"


def test_a_shown_reply_enters_the_history_without_its_caption_and_stays_out_of_the_memory_index(home):
    from nanobot.core.transcript import read_transcript
    from nanobot.memory.transcripts import transcript_chunks

    agent = make_agent(home, ["Answer:", "Hello!"])
    (agent.workspace / "todo.md").write_text("# Todo\n- buy milk\n")
    run(agent, "show me todo.md")
    run(agent, "hello")
    assert [m.content for m in agent.history[2:]] == ["hello", "Hello!"]
    assert "(lines 1-2 of 2)" not in agent.history[1].content
    records, _ = read_transcript(agent.transcript.path)  # the transcript keeps what the user saw
    assert any(r.role == "assistant" and r.meta.get("shown") and "- buy milk" in r.content for r in records)
    indexed = " ".join(c.text for c in transcript_chunks(agent.transcript.path))
    assert "show me todo.md" in indexed and "buy milk" not in indexed and "Hello!" in indexed


def test_a_command_that_is_the_whole_message_shows_its_output(home):
    agent = make_agent(home, [WRONG], exec_allow=["echo"])
    events, done = run(agent, "now run echo hello-there")
    assert done.reply == "`echo hello-there` (exit 0):\nhello-there" and agent.model.calls == []


def test_a_command_spelled_in_a_sentence_runs_up_to_the_word_the_program_rejects(home):
    import subprocess

    agent = make_agent(home, [WRONG], exec_allow=["git log"])
    git = ["git", "-C", str(agent.workspace), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "first light"], check=True)
    events, done = run(agent, "run git log --oneline and list the commits")
    ran = [e.arguments["command"] for e in events if isinstance(e, ToolCall)]
    assert ran == ["git log --oneline and list the commits", "git log --oneline"]  # git named 'and'
    assert done.reply.startswith("`git log --oneline` (exit 0):") and "first light" in done.reply


def test_a_failed_look_shows_the_error_not_a_made_up_answer(home):
    agent = make_agent(home, [WRONG])
    events, done = run(agent, "read missing.txt")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and done.reply.startswith("read_file failed: ") and result.text in done.reply


def test_a_message_with_more_than_the_look_is_the_models_to_answer(home):
    agent = make_agent(home, ["Answer:", "notes.txt has 1 line."], exec_allow=["wc"])
    (agent.workspace / "notes.txt").write_text("Call Bob.\n")
    events, done = run(agent, "How many lines does notes.txt have? Run wc -l notes.txt")
    assert any(isinstance(e, ToolResult) and e.ok for e in events)
    assert done.reply == "notes.txt has 1 line." and agent.model.calls
    assert not only_look("run pytest and tell me what fails", ("exec", {"command": "pytest"}))
    assert direct("run date", ("exec", {"command": "date"}), []) == ""  # nothing ran: nothing to show


def test_terminal_markup_in_a_shown_file_stays_text(home):
    """A hostile file's escape codes reach the reply as its bytes; the CLI prints them as text
    (base/safe_text.printable), as it prints any reply."""
    from nanobot.base.safe_text import printable

    agent = make_agent(home, [WRONG])
    (agent.workspace / "evil.txt").write_text("hi\x1b[2J\x1b]0;pwned\x07 [bold]x[/bold]\n")
    _, done = run(agent, "show me evil.txt")
    assert "\x1b" not in printable(done.reply) and "\x07" not in printable(done.reply)


@pytest.mark.slow
def test_with_the_real_model_the_shown_reply_is_the_file(home, model):
    from nanobot.tools.feature import attach_tools

    agent = real_agent(home, model)
    attach_tools(agent)
    (agent.workspace / "todo.md").write_text("# Todo\n- fix the bike\n")
    events = list(agent.turn("show me todo.md"))
    done = events[-1]
    assert done.reply.endswith("# Todo\n- fix the bike") and done.generation.completion_tokens == 0


def test_the_modules_examples_hold():
    import doctest

    import nanobot.loop.spelled
    import nanobot.tools.pydefs

    for module in (nanobot.loop.spelled, nanobot.tools.pydefs):
        failed, tried = doctest.testmod(module)
        assert tried and not failed, module.__name__


def test_a_model_reply_that_imitates_the_caption_is_retried_then_corrected(home):
    """SmolLM2 copied the caption from its history over invented output ("`python3 -m asyncio...` (exit 2):
    459867 seconds"): the caption is nanobot's alone, so such a reply is retried, then corrected."""
    fake = "`python3 calc.py` (exit 0):\n42"
    agent = make_agent(home, ["Answer:", fake, "Answer:", "It has 1 line."], exec_allow=["wc"])
    (agent.workspace / "notes.txt").write_text("Call Bob.\n")
    events, done = run(agent, "How many lines does notes.txt have? Run wc -l notes.txt")
    assert any("imitates nanobot's display" in e.text for e in events if getattr(e, "kind", "") == "notice")
    assert done.reply == "It has 1 line." and not done.corrected
    agent = make_agent(home, ["Answer:", fake, "Answer:", fake], exec_allow=["wc"])
    _, done = run(agent, "How many lines does notes.txt have? Run wc -l notes.txt")
    assert done.corrected and "imitates a tool's output" in done.reply


def test_a_long_file_is_shown_up_to_the_read_limit_with_a_pointer_to_the_rest(home):
    agent = make_agent(home, [WRONG])
    (agent.workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 251)))
    _, done = run(agent, "show me big.txt")
    first, *body = done.reply.splitlines()
    assert first.startswith("big.txt (lines 1-") and body[0] == "line 1"
    assert body[-1].startswith("[more from line ") and "ask to read big.txt from line" in body[-1]
