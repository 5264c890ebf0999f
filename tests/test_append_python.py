"""append_file on a Python file (``tools.append``): a new definition is set two blank lines below the
code, and a definition the file has already is refused with the file unchanged (a small model appends
the same function a second time after its first call)."""

from __future__ import annotations

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.append import AppendFile
from nanobot.tools.base import ToolContext
from nanobot.workspace import init_workspace

STATS = "def total(values):\n    return sum(values)\n"
LARGEST = "def largest(values):\n    return max(values)"


def _ctx(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "stats.py").write_text(STATS)
    return ToolContext(settings=settings)


def _append(ctx, text, path="stats.py"):
    return AppendFile().run(AppendFile.Args(path=path, text=text), ctx)


def test_a_new_definition_is_set_two_blank_lines_below(home):
    ctx = _ctx(home)
    assert "appended 2 lines" in _append(ctx, LARGEST)
    assert (ctx.workspace / "stats.py").read_text() == STATS + "\n\n" + LARGEST + "\n"


def test_the_same_definition_again_is_refused_and_the_file_kept(home):
    ctx = _ctx(home)
    _append(ctx, LARGEST)
    once = (ctx.workspace / "stats.py").read_text()
    with pytest.raises(ToolError, match="largest is defined in stats.py already; nothing was added"):
        _append(ctx, LARGEST)
    assert (ctx.workspace / "stats.py").read_text() == once


def test_other_files_and_other_lines_are_appended_as_given(home):
    ctx = _ctx(home)
    _append(ctx, "x = 1")
    assert (ctx.workspace / "stats.py").read_text() == STATS + "x = 1\n"
    (ctx.workspace / "notes.txt").write_text("def a\n")
    _append(ctx, "def a", "notes.txt")
    assert (ctx.workspace / "notes.txt").read_text() == "def a\ndef a\n"
