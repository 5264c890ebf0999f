"""CONTEXT.md's Now.Task comes from the task board's active item, Blocked from blocked items and
the draft's ``blocked`` field (real files, the real task_board tool, the real model)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer.contextmd import load_context
from nanobot.observer.feature import attach_observer
from nanobot.observer.observation import ObservationDraft, ObservationPart
from nanobot.observer.observer import write_part
from nanobot.tools.base import ToolContext
from nanobot.tools.tasks import TaskBoard, board_now
from nanobot.workspace import init_workspace

AT = datetime(2026, 3, 2, 10, 30, tzinfo=UTC)


def board(settings, **args) -> str:
    tool = TaskBoard()
    return tool.run(tool.Args(**args), ToolContext(settings=settings))


def fold(settings, **draft) -> None:
    part = ObservationPart.of(ObservationDraft(summary="worked", **draft), "quit", 1, at=AT)
    write_part(settings, "20260302-100000-abcd", AT, part)


def settings_for(home):
    settings = load_settings(home, observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    return settings


def test_active_item_rules(home):
    s = settings_for(home)
    assert board_now(s.workspace) == ("", [])  # no board yet, and reading does not create one
    assert not (s.workspace / "nanobot.db").exists()
    board(s, action="add", title="write the parser")
    board(s, action="add", title="write the docs")
    assert board_now(s.workspace) == ("write the parser", [])  # first open item
    board(s, action="update", id=2, status="doing")
    board(s, action="update", id=1, status="doing")
    assert board_now(s.workspace)[0] == "write the parser"  # the most recently updated in progress
    board(s, action="update", id=1, status="blocked")
    assert board_now(s.workspace) == ("write the docs", ["write the parser"])
    assert "[blocked] write the parser" in board(s, action="list")


def test_board_decides_task_and_blocked_cli(cli, home):
    for args in ({"action": "add", "title": "ship the CSV parser"},
                 {"action": "add", "title": "get a review from Bob"},
                 {"action": "update", "id": 1, "status": "doing"},
                 {"action": "update", "id": 2, "status": "blocked"}):
        r = cli("tools", "run", "task_board", json.dumps(args))
        assert r.returncode == 0, r.stderr
    s = load_settings(home)
    fold(s, task="something the model made up", blocked="waiting for the CI runner")
    doc = load_context(s.workspace / "CONTEXT.md")
    assert doc.now.task == "ship the CSV parser"
    assert doc.now.blocked == "get a review from Bob; waiting for the CI runner"
    assert "Blocked: get a review from Bob" in doc.prompt_text()


def test_no_board_draft_decides_and_empty_blocked_not_sent(home):
    s = settings_for(home)
    fold(s, task="the model's task", blocked="a stale blocker")
    fold(s, task="the model's task")  # nothing blocks any more: the field is cleared
    doc = load_context(s.workspace / "CONTEXT.md")
    assert doc.now.task == "the model's task" and doc.now.blocked == ""
    assert "Blocked" not in doc.prompt_text() and "Task: the model's task" in doc.prompt_text()


def test_real_model_observation_takes_task_from_board(home, model):
    s = load_settings(chat={"max_tokens": 24, "temperature": 0}, observer={"reflect_on_start": False})
    init_workspace(s.workspace)
    board(s, action="add", title="migrate the invoices table")
    board(s, action="update", id=1, status="doing")
    agent = Agent(s, model, clock=lambda: AT)
    hook = attach_observer(agent)
    agent.start_session()
    list(agent.turn("We decided to use the csv crate with serde for my Rust CSV parser."))
    agent.end_session("quit")
    assert not hook.last_error
    part = sorted((s.workspace / "observations").glob("*.md"))
    assert len(part) == 1
    doc = load_context(s.workspace / "CONTEXT.md")
    assert doc.now.task == "migrate the invoices table"  # whatever the model wrote
