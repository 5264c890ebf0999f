"""Where nobody can be asked (piped chat, daemon, sub-agent), exec's command is generated under a grammar
that starts it with a ``tools.exec_allow`` entry, so the call runs instead of being refused; where the
user can be asked, any command line is admitted (and asked about)."""

from __future__ import annotations

import json

import pytest

from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.tools.base import ToolContext
from nanobot.tools.feature import attach_tools
from nanobot.tools.runner import ToolRunner
from nanobot.tools.shell import Exec
from nanobot.tools.templatecalls import TemplateCalls
from nanobot.workspace import init_workspace
from tests.qwen import SKIP_REASON, qwen_path
from tests.test_callgrammar import accepts

QWEN = qwen_path()

ALLOW = ["python3", "git log", "ls"]


def test_exec_offers_the_allowed_commands_only_where_nobody_can_be_asked(home):
    settings = load_settings(home, tools={"exec_allow": ALLOW})
    free = Exec().offered(ToolContext(settings=settings, confirm=lambda q: True))
    held = Exec().offered(ToolContext(settings=settings))
    assert free == Exec.parameters() and "x-starts" not in json.dumps(free)
    starts = held["properties"]["command"]["x-starts"]  # and git's reads (tools.git_reads)
    assert starts[:3] == ALLOW and "git status" in starts and starts.count("git log") == 1
    assert not any(s.split()[:2] in (["git", "commit"], ["git", "push"], ["git", "add"]) for s in starts)
    only = load_settings(home, tools={"exec_allow": ALLOW, "git_reads": False})
    assert Exec().offered(ToolContext(settings=only))["properties"]["command"]["x-starts"] == ALLOW
    assert "x-starts" not in json.dumps(Exec.parameters())  # held is a copy: the class's schema is untouched
    nothing = load_settings(home, tools={"exec_allow": []})
    assert Exec().offered(ToolContext(settings=nothing)) == Exec.parameters()


@pytest.mark.parametrize("command, held", [
    ("python3 pricing.py", True), ("python3 -c \"print(1)\"", True), ("git log --oneline", True), ("ls", True),
    ("python pricing.py", False), ("pytest -q", False), ("lsblk", False), ("ls; rm -rf x", False),
    ("ls > out.txt", False), ("git status", True), ("git commit -am x", False), ("python3 x.py && rm y", False),
])
def test_the_template_call_grammar_holds_the_command_to_allowed_ones(model, home, command, held):
    """Checked by llama.cpp's own grammar engine, on the template path's call grammar."""
    settings = load_settings(home, tools={"exec_allow": ALLOW})
    calls = TemplateCalls(ToolRunner(settings, tools={"exec": Exec()}))
    text = json.dumps({"name": "exec", "arguments": {"command": command}}) + "\n</tool_call>"
    assert accepts(model, calls.grammar("exec", ToolContext(settings=settings)), text) is held
    assert accepts(model, calls.grammar("exec", ToolContext(settings=settings, confirm=lambda q: True)), text)  # the user is asked about the rest


def test_a_piped_session_runs_the_command_the_model_writes_for_a_refused_one(model, home):
    """The real SmolLM2 writes exec's arguments for "run python hello.py" in a session that cannot ask,
    with only python3 allowed: the command it writes runs (no "not in tools.exec_allow" refusal)."""
    settings = load_settings(home, tools={"exec_allow": ["python3"], "enabled": ["exec", "read_file"]},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "hello.py").write_text("print('hello from hello.py')\n")
    agent = Agent(settings, model)
    attach_tools(agent)
    agent.start_session()
    assert agent.confirm is None
    runner = agent.tool_runner
    msgs = agent.messages_for("run python hello.py")
    raw, args, error = runner.arguments(agent, msgs, runner.tools["exec"])
    assert args is not None, (raw, error)
    assert args.command.split()[0] == "python3", raw
    ok, text, _ = runner.execute(agent, runner.tools["exec"], args)
    assert "not in tools.exec_allow" not in text


def _git_question(home, model, git_reads: bool):
    """exec's arguments for "is the working tree clean?" in a git repository, from a session that
    cannot ask, whose exec_allow names only the test command (the issue's slugify setup)."""
    import subprocess

    settings = load_settings(home, tools={"exec_allow": ["python3 -m pytest"], "enabled": ["exec", "read_file"],
                                          "git_reads": git_reads},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    subprocess.run(["git", "init", "-q", str(settings.workspace)], check=True)
    (settings.workspace / "utils.py").write_text("def slugify(s):\n    return s.lower().replace(' ', '-')\n")
    agent = Agent(settings, model)
    attach_tools(agent)
    agent.start_session()
    runner = agent.tool_runner
    raw, args, error = runner.arguments(agent, agent.messages_for("is the working tree clean?"), runner.tools["exec"])
    assert args is not None, (raw, error)
    return args, runner.execute(agent, runner.tools["exec"], args)


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_the_1_5b_asks_git_about_the_working_tree_where_only_the_tests_are_allowed(home):
    """The 1.5B writes exec's command for a git question under the grammar of allowed starts: with
    git's reads among them it writes git, which runs in the real repository; with only the test
    command allowed (git_reads off) it could write nothing but the tests."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    qwen = LlamaBackend(resolve_model(load_settings(home), str(QWEN)))
    args, (ok, text, _) = _git_question(home, qwen, git_reads=True)
    assert args.command.split()[:2] == ["git", "status"], args.command
    assert ok and "utils.py" in text  # git's own output: the untracked file
    args, _ = _git_question(home / "off", qwen, git_reads=False)
    assert args.command.startswith("python3 -m pytest"), args.command
