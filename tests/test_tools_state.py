"""task_board, cron (+ chat firing and ``nanobot daemon``), scratchpad, skill_manager, spawn."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest

from nanobot.backends.base import Message
from nanobot.backends.scripted import ScriptedModel
from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.loop.agent import Agent
from nanobot.tools.base import ToolContext
from nanobot.tools.cron import Cron, fire_due
from nanobot.tools.feature import attach_tools
from nanobot.tools.scratchpad import Scratchpad
from nanobot.tools.skills import SkillManager
from nanobot.tools.spawn import SUB_SYSTEM, Spawn
from nanobot.tools.tasks import TaskBoard
from nanobot.workspace import init_workspace


@pytest.fixture
def ctx(home):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    return ToolContext(settings=settings, session_id="s1")


def run(tool, ctx, **args):
    return tool.run(tool.Args(**args), ctx)


def test_task_board_persists_in_the_workspace_database(ctx):
    assert run(TaskBoard(), ctx, action="add", title="buy milk") == "added task #1: buy milk [todo]"
    run(TaskBoard(), ctx, action="add", title="write report")
    assert run(TaskBoard(), ctx, action="update", id=2, status="doing") == "task #2 is now [doing]"
    # a fresh context (another process, later) sees the same board
    fresh = ToolContext(settings=load_settings(ctx.settings.home))
    assert run(TaskBoard(), fresh, action="list") == "#2 [doing] write report\n#1 [todo] buy milk"
    run(TaskBoard(), fresh, action="remove", id=1)
    assert run(TaskBoard(), ctx, action="list") == "#2 [doing] write report"
    assert (ctx.workspace / "nanobot.db").exists()
    with pytest.raises(ToolError, match="no task #9"):
        run(TaskBoard(), ctx, action="update", id=9, status="done")
    with pytest.raises(ToolError, match="needs a title"):
        run(TaskBoard(), ctx, action="add")


def test_cron_schedules_fire_once_per_run(ctx):
    soon = (datetime.now() + timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M")
    out = run(Cron(), ctx, action="add", message="stand up", at=soon)
    assert out.startswith("scheduled #1 for ") and out.endswith(": stand up")
    run(Cron(), ctx, action="add", message="drink water", every_minutes=30)
    assert "#2 next" in run(Cron(), ctx, action="list") and "every 30 min" in run(Cron(), ctx, action="list")
    assert fire_due(ctx.settings) == []  # nothing due yet
    later = time.time() + 31 * 60
    fired = fire_due(ctx.settings, now=later)
    assert [(f.id, f.message, f.repeats) for f in fired] == [(1, "stand up", False), (2, "drink water", True)]
    assert fire_due(ctx.settings, now=later) == []  # claimed: never fired twice
    listing = run(Cron(), ctx, action="list")
    assert "#1" not in listing and "#2" in listing  # one-shot removed, repeating one moved on
    with pytest.raises(ToolError, match="YYYY-MM-DD HH:MM"):
        run(Cron(), ctx, action="add", message="x", at="tomorrow")
    with pytest.raises(ToolError, match="needs 'at'"):
        run(Cron(), ctx, action="add", message="x")


def test_running_chat_fires_due_cron_entries(ctx):
    past = (datetime.now() - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M")
    run(Cron(), ctx, action="add", message="call mum", at=past)
    agent = Agent(ctx.settings, ScriptedModel(["Answer:", "ok"]))
    attach_tools(agent)
    events = agent.start_session()
    assert Notice(text="⏰ reminder #1: call mum") in events
    run(Cron(), ctx, action="add", message="second", at=past)
    events = list(agent.turn("hi"))
    assert Notice(text="⏰ reminder #2: second") in events


def test_daemon_fires_due_entries(cli, ctx):
    past = (datetime.now() - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M")
    run(Cron(), ctx, action="add", message="backup the notes", at=past)
    proc = cli("daemon", "--once")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("reminder #1: backup the notes")
    assert cli("daemon", "--once").stdout == ""  # fired once


def test_scratchpad_is_per_session(ctx):
    assert run(Scratchpad(), ctx, action="read") == "(scratchpad is empty)"
    run(Scratchpad(), ctx, action="append", text="step 1 done")
    run(Scratchpad(), ctx, action="append", text="step 2 next")
    assert run(Scratchpad(), ctx, action="read") == "step 1 done\nstep 2 next"
    other = ToolContext(settings=ctx.settings, session_id="s2")
    assert run(Scratchpad(), other, action="read") == "(scratchpad is empty)"
    run(Scratchpad(), ctx, action="clear")
    assert run(Scratchpad(), ctx, action="read") == "(scratchpad is empty)"


def test_skills_listed_by_name_and_loaded_on_demand(ctx):
    skills = ctx.workspace / "skills"
    (skills / "commit-message.md").write_text("# Commit messages\nUse the imperative mood.\n")
    (skills / "review").mkdir()
    (skills / "review" / "SKILL.md").write_text("Check tests first.")
    assert run(SkillManager(), ctx, action="list") == "commit-message, review"
    assert "imperative mood" in run(SkillManager(), ctx, action="load", name="commit-message")
    assert run(SkillManager(), ctx, action="load", name="review") == "Check tests first."
    with pytest.raises(ToolError, match="known skills: commit-message, review"):
        run(SkillManager(), ctx, action="load", name="deploy")


@pytest.mark.slow
def test_spawn_runs_a_sub_agent_on_the_real_model(ctx, model):
    ctx.model = model
    ctx.settings.chat.max_tokens = 24
    task = "What is the capital of France? One word."
    answer = run(Spawn(), ctx, task=task)
    # its own lean context (the sub-agent's system line and the task, nothing of the chat's) ...
    lean = [Message(role="system", content=SUB_SYSTEM), Message(role="user", content=task)]
    assert model.last.prompt_tokens == model.prompt_tokens(lean) < 60
    assert model.last.completion_tokens <= 24  # ... and the chat's reply bound
    # what it said is the tool's result (the words are the model's: not asserted)
    assert answer == (model.last.text.strip() or "(the sub-agent gave no answer)")


def test_spawn_without_a_model_says_so(ctx):
    with pytest.raises(ToolError, match="needs a loaded model"):
        run(Spawn(), ctx, task="x")


def test_memory_tools_follow_the_memory_switch(home, monkeypatch):
    from nanobot.config import load_settings
    from nanobot.runtime import every_tool

    assert {"memory_search", "memory_add"} <= set(every_tool(load_settings())[1])
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    names = set(every_tool(load_settings())[1])
    assert "memory_search" not in names and "memory_add" not in names and "read_file" in names
