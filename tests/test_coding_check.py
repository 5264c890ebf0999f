"""Code changes that still work: an edit that breaks a Python file is refused with the file, line and
error (so the model can retry); a checkpoint never commits a working copy whose Python does not parse
or whose configured tests fail, unless asked to (``session continue --allow-broken``); the living
description has no item in both Done and Left to do, and nothing in a script the user never wrote in.
Real git repositories in temporary folders; a scripted model for the loop."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from nanobot.backends.base import Message
from nanobot.backends.scripted import ScriptedModel
from nanobot.base.errors import ToolError
from nanobot.coding.describe import Description, DescriptionDraft, parse
from nanobot.coding.feature import CodingFeature
from nanobot.coding.session import CodingSession
from nanobot.coding.vcs import CodingError
from nanobot.config import load_settings
from nanobot.core.events import Notice, ToolResult
from nanobot.runtime import build_agent
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from tests.codingrepo import Repo, isolate
from tests.test_coding_session import Coder, settings_for

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

GOOD = "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    return parser\n"
OLD = "    return parser\n"
BROKEN_NEW = "parser.add_argument('--name')\n    return parser\n"  # column 0 inside main: IndentationError


@pytest.fixture
def git_repo(tmp_path, monkeypatch, home) -> Repo:
    isolate(monkeypatch, tmp_path)
    r = Repo.make("git", tmp_path / "repo")
    r.write("greet.py", GOOD)
    r.commit("greet")
    return r


def test_an_edit_that_breaks_python_is_refused_and_the_file_kept(git_repo):
    ctx = ToolContext(settings=load_settings(tools={"roots": [str(git_repo.path)]}))
    path = str(git_repo.path / "greet.py")
    with pytest.raises(ToolError) as e:
        EditFile().run(EditFile.Args(path=path, old=OLD, new=BROKEN_NEW), ctx)
    msg = str(e.value)
    assert "greet.py line 7: IndentationError" in msg and "the file was not changed" in msg and "\n" not in msg
    assert (git_repo.path / "greet.py").read_text() == GOOD
    with pytest.raises(ToolError, match="SyntaxError"):
        WriteFile().run(WriteFile.Args(path=path, content="def f(:\n"), ctx)
    fixed = "    parser.add_argument('--name')\n    return parser\n"
    assert EditFile().run(EditFile.Args(path=path, old=OLD, new=fixed), ctx).startswith("edited")
    # a file someone left broken may still be edited (the edit did not break it)
    (git_repo.path / "wip.py").write_text("def f(:\n")
    EditFile().run(EditFile.Args(path=str(git_repo.path / "wip.py"), old="def f(:", new="def g(:"), ctx)
    # not Python: never checked
    WriteFile().run(WriteFile.Args(path=str(git_repo.path / "notes.md"), content="def f(:\n"), ctx)


def test_the_error_goes_back_to_the_model_and_its_retry_lands(git_repo):
    settings = load_settings(tools={"roots": [str(git_repo.path)]}, memory={"enabled": False},
                             observer={"enabled": False}, kv_cache={"enabled": False})
    path = str(git_repo.path / "greet.py")
    broken = json.dumps({"path": path, "old": OLD, "new": BROKEN_NEW})
    fixed = json.dumps({"path": path, "old": OLD, "new": "    parser.add_argument('--name')\n" + OLD})
    agent = build_agent(settings, ScriptedModel([broken, fixed]))
    agent.start_session()
    runner = agent.tool_runner
    agent.provenance.said.append("add a --name option to greet.py")  # what a turn records (callpolicy)
    msgs = [Message(role="system", content="s"), Message(role="user", content="add a --name option to greet.py")]
    first = list(runner.call(agent, msgs, "edit_file"))
    assert [r.ok for r in first if isinstance(r, ToolResult)] == [False]
    assert "greet.py line 7: IndentationError" in msgs[-1].content  # what the model sees next
    list(runner.call(agent, msgs, "edit_file"))
    assert "add_argument" in (git_repo.path / "greet.py").read_text()
    compile((git_repo.path / "greet.py").read_text(), "greet.py", "exec")


def test_session_continue_refuses_a_broken_file_in_one_line(cli, git_repo, home):
    s = CodingSession.start(load_settings(), git_repo.path, "Add a --name option")
    head = git_repo.run("rev-parse", "HEAD")
    git_repo.write("greet.py", GOOD.replace(OLD, BROKEN_NEW))  # broken outside the tools (an exec, an editor)
    r = cli("session", "continue", "-C", str(git_repo.path), input="")
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "greet.py line 7: IndentationError" in line and "--allow-broken" in line
    assert git_repo.run("rev-parse", "HEAD") == head and git_repo.run("status", "--porcelain").strip()
    assert CodingSession.open(load_settings(), s.root).meta.changes == [s.root]  # no checkpoint recorded
    forced = cli("session", "continue", "-C", str(git_repo.path), "--allow-broken", input="",
                 env={"NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_OBSERVER__ENABLED": "false"})
    assert forced.returncode == 0, forced.stderr
    assert git_repo.run("rev-parse", "HEAD") != head and not git_repo.run("status", "--porcelain").strip()


def test_failing_tests_refuse_the_checkpoint_and_the_new_change_tool(git_repo):
    settings = settings_for(coding={"test_command": "python -c \"import sys; print('1 failed'); sys.exit(1)\""})
    s = CodingSession.start(settings, git_repo.path, "task")
    git_repo.write("greet.py", GOOD + "\nX = 1\n")
    with pytest.raises(CodingError, match=r"tests failed: .* exited 1 \(1 failed\)"):
        s.checkpoint()
    agent = build_agent(settings_for(s.root, coding={"test_command": "exit 1"}), Coder())
    agent.start_session()
    tool = next(t for t in agent.feature(CodingFeature).tools(agent.settings) if t.name == "new_change")
    with pytest.raises(ToolError, match="not committed: tests failed"):
        tool.run(tool.Args(description="next"), ToolContext.for_agent(agent))
    assert s.checkpoint(allow_broken=True)


def test_a_clean_change_with_passing_tests_checkpoints(git_repo):
    s = CodingSession.start(settings_for(coding={"test_command": "python -c 'import greet'"}),
                            git_repo.path, "task")
    git_repo.write("greet.py", GOOD + "\nX = 1\n")
    new = s.checkpoint()
    assert s.meta.changes[-1] == new and "+X = 1" in s.vcs.diff(s.meta.changes[0])


def test_no_item_both_done_and_left_and_none_in_another_script():
    draft = DescriptionDraft(done=["Add the --name option", "修复了缩进"],
                             left=["add the --name option.", "Write tests", "添加测试"],
                             questions=["Default name?"])
    d = Description(task="Add a --name option").with_draft(draft, "please add a --name option to greet.py")
    assert d.done == ["Add the --name option"] and d.left == ["Write tests"] and d.questions == ["Default name?"]
    # a user writing in Chinese keeps Chinese items (and identifiers in Latin letters)
    zh = Description(task="t").with_draft(DescriptionDraft(done=["修复了缩进 greet.py"]), "请修复 greet.py")
    assert zh.done == ["修复了缩进 greet.py"]


def test_the_rewrite_applies_both_rules(git_repo):
    s = CodingSession.start(settings_for(), git_repo.path, "Add a --name option")
    model = Coder(draft=json.dumps({"done": ["added the option"], "decisions": [],
                                    "left": ["Added the option", "write tests 编写测试"], "questions": []}))
    agent = build_agent(settings_for(s.root), model)
    agent.start_session()
    list(agent.turn("add a --name option to greet.py"))
    agent.stop_prefill()
    d = parse(s.description())
    assert d.done == ["added the option"] and d.left == []


def test_context_pressure_does_not_checkpoint_a_broken_file(git_repo):
    s = CodingSession.start(settings_for(), git_repo.path, "task")
    agent = build_agent(settings_for(s.root), Coder(n_ctx=1400))
    agent.start_session()
    list(agent.turn("w " * 500))
    agent.stop_prefill()
    git_repo.write("greet.py", GOOD.replace(OLD, BROKEN_NEW))
    events = list(agent.turn("w " * 500))
    agent.stop_prefill()  # the background description rewrite has finished
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert any("no checkpoint (not committed: greet.py line 7: IndentationError" in t for t in texts), texts
    assert s.meta.changes == [s.root] and "greet.py" in git_repo.run("status", "--porcelain")  # not committed
    assert events[-1].reply  # the turn still answered (old turns trimmed instead)


@pytest.mark.parametrize("name", [b"caf\xe9.py", b"\xff\xfe-tool.py"])
def test_a_broken_file_whose_name_is_not_utf8_is_checked_too(git_repo, name):
    """The name is bytes the file system keeps as they are: the check reads the real file (a name
    decoded lossily named no file, so the broken file was committed)."""
    s = CodingSession.start(settings_for(), git_repo.path, "task")
    head = git_repo.run("rev-parse", "HEAD")
    with open(os.path.join(os.fsencode(git_repo.path), name), "wb") as f:
        f.write(b"def broken(:\n    pass\n")
    with pytest.raises(CodingError, match=r"\.py line 1: SyntaxError") as e:
        s.checkpoint()
    assert "\n" not in str(e.value)
    str(e.value).encode("utf-8")  # printable: no lone surrogates reach the terminal
    assert git_repo.run("rev-parse", "HEAD") == head
