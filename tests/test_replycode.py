"""A change written as code in the reply is made as the edit it describes (``nanobot.loop.written``):
only where a change was asked, of definitions the one named Python file already has."""

from __future__ import annotations

import ast

import pytest

from nanobot.core.events import ToolCall, ToolResult
from tests.qwen import SKIP_REASON, qwen_agent, qwen_path
from tests.test_doing_what_was_asked import make_agent, run

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\nprint(add(40, 2))\n"
FIXED = "def sub(a, b):\n    return a - b\n\nprint(sub(40, 2))"
QWEN = qwen_path()


def test_a_fix_the_reply_writes_as_code_is_made_in_the_named_file(home):
    agent = make_agent(home, ["Answer:", FIXED, "Answer:", "Fixed: sub now returns a - b."])
    (agent.workspace / "calc.py").write_text(CALC)
    events, done = run(agent, "In calc.py, fix sub: it should return a - b")
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["edit_file"] and calls[0].arguments["old"] == "def sub(a, b):\n    return a + b"
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [True]
    text = (agent.workspace / "calc.py").read_text()
    assert "def sub(a, b):\n    return a - b" in text and "def add(a, b):\n    return a + b" in text
    assert "print(sub(40, 2))" not in text  # statements around the definition are not taken
    assert done.reply.endswith("Fixed: sub now returns a - b.")


def test_a_new_function_the_message_names_and_the_reply_writes_is_added_at_the_end(home):
    agent = make_agent(home, ["Answer:", "python\n```\ndef mul(a, b):\n    return a * b\n```", "Answer:", "Added."],
                       enabled=["read_file", "edit_file", "append_file"])
    (agent.workspace / "calc.py").write_text(CALC)
    events, done = run(agent, "Add a function mul(a, b) returning a * b to calc.py")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["append_file"]
    text = (agent.workspace / "calc.py").read_text()
    assert text.startswith(CALC) and text.endswith("def mul(a, b):\n    return a * b\n")
    ast.parse(text)


@pytest.mark.parametrize("ask, reply", [
    ("What does sub in calc.py do?", "def sub(a, b):\n    return a + b"),  # the file's own code, shown
    ("What would sub in calc.py look like if it subtracted?", FIXED),  # no change asked
    ("In calc.py, add a function that multiplies", "def mul(a, b):\n    return a * b"),  # a name nobody gave
    ("In calc.py, rename sub to subtract", "def subtract(a, b):\n    return a + b"),  # a change of sub, no copy
])
def test_code_in_a_reply_changes_nothing_unless_it_is_an_asked_change_of_a_definition_the_file_has(home, ask, reply):
    agent = make_agent(home, ["Answer:", reply, "Answer:", "ok"])
    (agent.workspace / "calc.py").write_text(CALC)
    events, _ = run(agent, ask)
    assert not [e for e in events if isinstance(e, ToolCall) and e.name == "edit_file"]
    assert (agent.workspace / "calc.py").read_text() == CALC


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_the_assistants_fix_leaves_a_file_that_parses_with_every_definition_it_had(home):
    """The 1.5B asked to fix a function, whichever way it answers (a call, code in its reply, words):
    calc.py still parses, defines what it defined, and add is untouched."""
    agent = qwen_agent(home)
    (agent.workspace / "calc.py").write_text(CALC)
    list(agent.turn("In calc.py, fix sub: it should return a - b"))
    tree = ast.parse((agent.workspace / "calc.py").read_text())
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} == {"add", "sub"}
    assert "def add(a, b):\n    return a + b" in (agent.workspace / "calc.py").read_text()
