"""exec against a real git repository: allow-list, asking, refusing, timeout, output."""

from __future__ import annotations

import subprocess

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.shell import Exec, allowed


@pytest.fixture
def repo_ctx(home):
    def make(**tools):
        settings = load_settings(home, tools=tools)
        repo = settings.workspace / "proj"
        repo.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "hello.py").write_text("print('hi')\n")
        return ToolContext(settings=settings)
    return make


def test_allow_listed_git_status_runs_in_the_repo(repo_ctx):
    ctx = repo_ctx(exec_allow=["git status"])
    out = Exec().run(Exec.Args(command="git status --short", cwd="proj"), ctx)
    assert out.startswith("exit 0") and "?? hello.py" in out


def test_not_interactive_and_not_allowed_is_refused(repo_ctx):
    ctx = repo_ctx(exec_allow=["git status"])
    with pytest.raises(ToolError, match="not in tools.exec_allow"):
        Exec().run(Exec.Args(command="touch made.txt", cwd="proj"), ctx)
    with pytest.raises(ToolError, match="not in tools.exec_allow"):
        Exec().run(Exec.Args(command="git status; touch made.txt", cwd="proj"), ctx)
    assert not (ctx.workspace / "proj" / "made.txt").exists()


def test_read_only_git_runs_without_exec_allow_and_git_that_changes_does_not(repo_ctx):
    """A piped chat whose exec_allow names only the test command can still answer "is the working
    tree clean?": read-only git inside the roots runs unasked (``tools.git_reads``), held to
    gitexec's rules; git that changes the repository is refused; with git_reads off only exec_allow
    runs. Where the command grammar starts commands with allowed ones, git's reads are among them, so
    a git question is not forced into the test command."""
    ctx = repo_ctx(exec_allow=["python3 -m pytest"])
    proj = ctx.workspace / "proj"
    out = Exec().run(Exec.Args(command="git status --short", cwd="proj"), ctx)
    assert out.startswith("exit 0") and "?? hello.py" in out
    with pytest.raises(ToolError, match="not in tools.exec_allow"):
        Exec().run(Exec.Args(command="git add hello.py", cwd="proj"), ctx)
    with pytest.raises(ToolError, match="must be read-only"):
        Exec().run(Exec.Args(command="git diff --output=../leak.txt", cwd="proj"), ctx)
    assert subprocess.run(["git", "status", "--short"], cwd=proj, capture_output=True, text=True).stdout == "?? hello.py\n"
    assert not (ctx.workspace / "leak.txt").exists()
    starts = Exec().offered(ctx)["properties"]["command"]["x-starts"]
    assert starts[0] == "python3 -m pytest" and "git status" in starts and "git log" in starts
    assert not any(s.startswith(("git add", "git commit", "git push")) for s in starts)

    tools = ctx.settings.tools.model_copy(update={"git_reads": False})
    off = ToolContext(settings=ctx.settings.model_copy(update={"tools": tools}))
    with pytest.raises(ToolError, match="not in tools.exec_allow"):
        Exec().run(Exec.Args(command="git status --short", cwd="proj"), off)
    assert Exec().offered(off)["properties"]["command"]["x-starts"] == ["python3 -m pytest"]


def test_interactive_asks_and_respects_the_answer(repo_ctx):
    asked: list[str] = []
    ctx = repo_ctx()
    ctx.confirm = lambda q: asked.append(q) or False
    with pytest.raises(ToolError, match="declined"):
        Exec().run(Exec.Args(command="touch made.txt", cwd="proj"), ctx)
    assert not (ctx.workspace / "proj" / "made.txt").exists()
    ctx.confirm = lambda q: asked.append(q) or True
    out = Exec().run(Exec.Args(command="git add hello.py && git status --short", cwd="proj"), ctx)
    assert "A  hello.py" in out
    assert len(asked) == 2 and "touch made.txt" in asked[0]


def test_timeout_and_exit_code(repo_ctx):
    ctx = repo_ctx(exec_allow=["sleep", "ls"], exec_timeout=0.5)
    with pytest.raises(ToolError, match="timed out after 0.5s"):
        Exec().run(Exec.Args(command="sleep 5"), ctx)
    assert Exec().run(Exec.Args(command="ls no-such-file"), ctx).startswith("exit 2")


def test_cwd_is_confined(repo_ctx):
    ctx = repo_ctx(exec_allow=["ls"])
    with pytest.raises(ToolError, match="outside"):
        Exec().run(Exec.Args(command="ls", cwd="/"), ctx)


def test_allow_list_matching():
    assert allowed("ls -la", ["ls"])
    assert not allowed("lsof", ["ls"])
    assert not allowed("ls && rm -rf x", ["ls"])
    assert not allowed("git push", ["git status"])


def test_interactive_chat_sets_the_confirm_seam_and_piped_does_not(home, monkeypatch):
    from nanobot.backends.scripted import ScriptedModel
    from nanobot.cli.chat import ChatUI
    from nanobot.loop.agent import Agent

    settings = load_settings(home)
    piped = Agent(settings, ScriptedModel([]))
    ChatUI(piped, interactive=False, verbose=False)
    assert piped.confirm is None
    agent = Agent(settings, ScriptedModel([]), interactive=True)
    ChatUI(agent, interactive=True, verbose=False)
    answers = iter(["y", "", "no"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert [agent.confirm("Run `ls`?") for _ in range(3)] == [True, False, False]


def test_a_command_that_fails_on_a_path_that_is_not_there_is_an_error_naming_the_close_names(repo_ctx):
    """A failed run whose script is not there is a tool error (so the next step calls again) that names
    the entries near it, the one with the same words first, and spells the command with it (the 1.5B
    called "python3 tests/shape_tests.py" again under the names alone); a script that is there and
    fails is its output, as is a run that succeeds."""
    ctx = repo_ctx(exec_allow=["python3"])
    (ctx.settings.workspace / "proj" / "boom.py").write_text("raise SystemExit(3)\n")
    with pytest.raises(ToolError) as err:
        Exec().run(Exec.Args(command="python3 hello_script.py", cwd="proj"), ctx)
    assert str(err.value).startswith("'hello_script.py' does not exist") and "'hello.py'" in str(err.value)
    assert "exit 2" in str(err.value)  # the run's own output is kept
    assert Exec().run(Exec.Args(command="python3 boom.py", cwd="proj"), ctx).startswith("exit 3")
    assert Exec().run(Exec.Args(command="python3 hello.py", cwd="proj"), ctx) == "exit 0\nhi"
    with pytest.raises(ToolError) as err:  # a folder that is not there either: the names where the run was
        Exec().run(Exec.Args(command="python3 tests/hello_tests.py", cwd="proj"), ctx)
    assert "did you mean 'hello.py'?" in str(err.value)
    (ctx.settings.workspace / "proj" / "test_hello.py").write_text("print('ok')\n")
    with pytest.raises(ToolError) as err:  # the same words in another order come first
        Exec().run(Exec.Args(command="python3 tests/hello_tests.py", cwd="proj"), ctx)
    assert "did you mean 'test_hello.py' or 'hello.py'? Call it as `python3 test_hello.py` for the first." in str(err.value)


def test_a_test_run_that_found_no_tests_says_so(repo_ctx):
    """unittest (Python < 3.12) exits 0 after "Ran 0 tests ... OK" when no file matches test*.py, which
    the 1.5B reported as a pass; pytest exits 5. The real runners, in a real folder: the result says
    that no test ran, and a run that found tests says nothing of the kind."""
    import sys

    from nanobot.tools.notests import NOTE

    ctx = repo_ctx(exec_allow=[sys.executable])
    proj = ctx.workspace / "proj"
    (proj / "checks_calc.py").write_text("import unittest\n\nclass T(unittest.TestCase):\n"
                                         "    def test_one(self):\n        self.assertEqual(1 + 1, 2)\n")
    found_none = Exec().run(Exec.Args(command=f"{sys.executable} -m unittest", cwd="proj"), ctx)
    assert found_none.splitlines()[1] == NOTE, found_none
    empty = proj / "empty"
    empty.mkdir()
    pytest_empty = Exec().run(Exec.Args(command=f"{sys.executable} -m pytest -q -p no:randomly -p no:cacheprovider "
                                               "-p no:xdist --rootdir . empty", cwd="proj"), ctx)
    assert pytest_empty.startswith("exit 5") and pytest_empty.splitlines()[1] == NOTE, pytest_empty
    ran = Exec().run(Exec.Args(command=f"{sys.executable} -m unittest checks_calc", cwd="proj"), ctx)
    assert ran.startswith("exit 0") and "Ran 1 test" in ran and NOTE not in ran
