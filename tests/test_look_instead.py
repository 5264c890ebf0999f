"""A look made with the wrong looking tool is made again with the right one (``ToolError.instead``: the
next step calls that tool, under its grammar, with no new decision).

- knowledge_read of a path that is no knowledge doc but a file of the roots ("What is in docs/guide.md?"
  read as a doc): the error names the file and points to read_file, and the reply answers from the file.
  A path that is nowhere, or a file outside the roots, keeps knowledge_read's own error, pointing nowhere.
- read_file of a folder points to list_dir; edit_file of a folder points to no look."""

from __future__ import annotations

import json

from nanobot.config import load_settings
from nanobot.core.events import ToolResult
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, ReadFile
from nanobot.tools.runner import execute, validate
from nanobot.vault.tools import KnowledgeRead
from nanobot.workspace import init_workspace
from tests.qwen import fixed_clock
from tests.test_templatecalls import OPEN, ToolTemplateModel, body

GUIDE = "# Guide\nStart with `make run`.\n"


def read(ctx, path, tool=None, **more):
    tool = tool or KnowledgeRead()
    parsed, error = validate(tool, json.dumps({"path": path, **more}))
    assert parsed is not None, error
    ok, text, _ = execute(tool, parsed, ctx)
    return ok, text, ctx.instead


def test_a_file_of_the_roots_read_as_a_doc_points_to_read_file(home, tmp_path):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "docs").mkdir()
    (settings.workspace / "docs" / "guide.md").write_text(GUIDE)
    (settings.workspace / "notes.txt").write_text("call Bob\n")
    (tmp_path / "secret.md").write_text("the launch code\n")
    ctx = ToolContext(settings=settings)
    ok, text, instead = read(ctx, "docs/guide.md")
    assert (ok, instead) == (False, "read_file") and "'docs/guide.md'" in text and "read_file" in text
    ok, text, instead = read(ctx, "notes.txt")  # no .md: knowledge_rel's own refusal, then the same pointer
    assert (ok, instead) == (False, "read_file") and "'notes.txt'" in text
    ok, text, instead = read(ToolContext(settings=settings), "docs/missing.md")
    assert (ok, instead) == (False, "") and "does not exist" in text
    ok, text, instead = read(ToolContext(settings=settings), str(tmp_path / "secret.md"))  # outside the roots
    assert (ok, instead) == (False, "") and "launch code" not in text
    (settings.workspace / "knowledge" / "docs").mkdir(parents=True, exist_ok=True)
    (settings.workspace / "knowledge" / "docs" / "guide.md").write_text("# In the vault\n")
    ok, text, instead = read(ToolContext(settings=settings), "docs/guide.md")  # a doc of that path wins
    assert ok and "In the vault" in text and instead == ""


def test_the_step_after_it_reads_the_file_with_read_file(home):
    model = ToolTemplateModel([body("knowledge_read", {"path": "docs/guide.md"}),
                               body("read_file", {"path": "docs/guide.md"}), "It says: start with make run."],
                              [0.9, 0.1])
    settings = load_settings(home, tools={"enabled": ["read_file", "knowledge_read"], "listing": "full"},
                             memory={"enabled": False}, observer={"enabled": False}, vault={"enabled": True})
    init_workspace(settings.workspace)
    (settings.workspace / "docs").mkdir()
    (settings.workspace / "docs" / "guide.md").write_text(GUIDE)
    agent = Agent(settings, model, clock=fixed_clock)
    attach_features(agent)
    events = list(agent.turn("What is in docs/guide.md?"))
    results = [(r.name, r.ok, r.instead) for r in events if isinstance(r, ToolResult)]
    assert results == [("knowledge_read", False, "read_file"), ("read_file", True, "")]
    retry = model.calls[1]
    assert retry["prefill"] == f"{OPEN}\n" and "read_file" in retry["grammar"] and "knowledge_read" not in retry["grammar"]
    assert "make run" in next(r.text for r in events if isinstance(r, ToolResult) and r.ok)


def test_a_folder_read_as_a_file_points_to_list_dir_and_an_edit_of_one_to_no_look(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "trips").mkdir()
    ok, text, instead = read(ToolContext(settings=settings), "trips", ReadFile())
    assert (ok, instead) == (False, "list_dir") and "is a directory" in text
    ok, text, instead = read(ToolContext(settings=settings), "trips", EditFile(), old="a", new="b")
    assert (ok, instead) == (False, "")


def folder_turn(home, model, **tools):
    """The turn "what is in trips?" where trips/ holds oslo.md: its events."""
    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir"], **tools},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "trips").mkdir()
    (settings.workspace / "trips" / "oslo.md").write_text("# Oslo\n")
    agent = Agent(settings, model, clock=fixed_clock)
    attach_features(agent)
    return list(agent.turn("what is in trips?"))


def test_the_step_after_a_folder_read_lists_it(home):
    model = ToolTemplateModel([body("read_file", {"path": "trips"}), body("list_dir", {"path": "trips"}),
                               "oslo.md is in it."], [0.9, 0.1])
    events = folder_turn(home, model, listing="full")
    results = [(r.name, r.ok, r.instead) for r in events if isinstance(r, ToolResult)]
    assert results == [("read_file", False, "list_dir"), ("list_dir", True, "")]
    assert "list_dir" in model.calls[1]["grammar"] and "read_file" not in model.calls[1]["grammar"]


def test_on_the_names_path_the_step_after_a_pointing_error_calls_that_tool_undecided(home):
    """A model without a tool template (names + schema on demand, SmolLM2's path): after read_file's
    error on a folder the next step is a list_dir call with no decision in between."""
    from nanobot.backends.scripted import ScriptedModel

    events = folder_turn(home, ScriptedModel(["Tool: read_file", '{"path": "trips"}', '{"path": "trips"}',
                                              "Answer:", "oslo.md."]))
    results = [(r.name, r.ok) for r in events if isinstance(r, ToolResult)]
    assert results == [("read_file", False), ("list_dir", True)]
    assert "oslo.md" in next(r.text for r in events if isinstance(r, ToolResult) and r.ok)
