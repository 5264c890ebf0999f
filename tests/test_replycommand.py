"""A command the reply proposes for the user to run, run by nanobot when the model judges the message an
ask to read or run something here (``loop.written``): a real ``git status`` in a real repository,
through the whole turn (the reply checks, the exec permission), with a scripted template-tool model."""

from __future__ import annotations

import subprocess

from nanobot.core.events import ToolCall, ToolResult
from tests.test_templatecalls import JudgingTemplateModel, make_agent

PROPOSES = "You can check it yourself:\n\n```sh\ngit status\n```\n\nIt lists what changed."


def _agent(home, look: float, replies: list[str], git_reads: bool = True):
    model = JudgingTemplateModel(replies, [0.01, 0.01, 0.01], change=False, look=look, calibrated=True)
    agent = make_agent(home, model, enabled=["read_file", "exec"], exec_allow=["git status", "python3"],
                       git_reads=git_reads)
    subprocess.run(["git", "init", "-q", str(agent.workspace)], check=True)
    (agent.workspace / "draft.txt").write_text("first line\n")
    return agent


def test_a_command_the_reply_proposes_for_an_ask_to_check_something_here_is_run(home):
    agent = _agent(home, 0.9, [PROPOSES, "draft.txt is not committed yet."])
    events = list(agent.turn("is my work all committed?"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments["command"]) for c in calls] == [("exec", "git status")]
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok and "draft.txt" in result.text  # the real repository's status
    assert events[-1].reply.endswith("draft.txt is not committed yet.")


def test_a_how_to_question_keeps_the_command_it_is_answered_with(home):
    agent = _agent(home, 0.1, [PROPOSES])
    events = list(agent.turn("how do I see what changed in git?"))
    assert not [e for e in events if isinstance(e, (ToolCall, ToolResult))]
    assert events[-1].reply == PROPOSES


def test_a_proposed_command_the_allow_list_lacks_or_that_writes_is_not_run(home):
    for reply, git_reads in (("Run:\n```sh\nmake check\n```", True), ("Run:\n```sh\ngit log\n```", False),
                             ("Run:\n```sh\ngit status > out.txt\n```", True)):
        agent = _agent(home, 0.9, [reply, "ok"], git_reads=git_reads)
        events = list(agent.turn("is my work all committed?"))
        assert not [e for e in events if isinstance(e, ToolCall)], reply
    assert not (agent.workspace / "out.txt").exists()


def test_a_proposed_read_only_git_command_runs_without_an_allow_list_entry(home):
    """``git log`` is not in exec_allow; with ``tools.git_reads`` (the default) it reads the real
    repository as ``git status`` does."""
    agent = _agent(home, 0.9, ["Run:\n```sh\ngit log --oneline\n```", "Nothing is committed yet."])
    events = list(agent.turn("is my work all committed?"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments["command"]) for c in calls] == [("exec", "git log --oneline")]
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.ok and "does not have any commits yet" in result.text  # git's own words, from the real repo
