"""The Agent contract (``nanobot.core.features.Agent``) is what tools/ and loop/ read of the Agent: the
real Agent has every member it names (its judge, budget and tool runner too), tools/ reads those members
instead of probing the agent with ``getattr``, and a parameter named ``agent`` is typed with it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Protocol

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core import features
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools

PKG = Path(__file__).resolve().parent.parent / "nanobot"
# typed once the edits running on them land (issue 73); nothing else in loop/ and tools/ may add one
UNTYPED: set[str] = set()


def declared(protocol: type) -> set[str]:
    """The members a Protocol names: its annotated fields, methods and properties."""
    own = {n for n in vars(protocol) if not n.startswith("_")}
    return own | set(inspect.get_annotations(protocol))


def missing(obj: object, protocol: type) -> list[str]:
    return sorted(n for n in declared(protocol) if not hasattr(obj, n))


def test_the_real_agent_has_every_member_of_the_contract(home):
    agent = Agent(load_settings(), ScriptedModel(["hi"]))
    attach_tools(agent)
    agent.start_session()
    assert missing(agent, features.Agent) == []
    assert missing(agent.judge, features.Judgements) == []
    assert missing(agent.budget, features.Budget) == []
    assert agent.tool_runner is not None and missing(agent.tool_runner, features.Runner) == []


def test_the_member_finder_sees_a_missing_one():
    class View(Protocol):
        judge: int

        def look(self) -> str: ...

    assert missing(object(), View) == ["judge", "look"]


def agent_probes(pkg: Path = PKG) -> list[str]:
    """``getattr(agent, …)``, ``getattr(ctx.agent, …)`` (and a ``getattr`` of what one returned) in tools/."""
    found = []
    for path in sorted((pkg / "tools").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and node.args:
                target = ast.unparse(node.args[0])
                if target in ("agent", "ctx.agent") or target.startswith("getattr(") and "agent" in target:
                    found.append(f"{path.relative_to(pkg).as_posix()}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_tools_read_the_agent_through_the_contract_not_getattr():
    assert agent_probes() == []


def untyped_agents(pkg: Path = PKG) -> list[str]:
    """Parameters and fields named ``agent`` annotated ``Any`` in loop/ and tools/."""
    found = []
    for path in sorted([*(pkg / "loop").rglob("*.py"), *(pkg / "tools").rglob("*.py")]):
        rel = path.relative_to(pkg).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.arg) and node.arg == "agent" or \
                    isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "agent":
                if node.annotation is not None and ast.unparse(node.annotation) == "Any" and rel not in UNTYPED:
                    found.append(f"{rel}:{node.lineno}")
    return found


def test_an_agent_parameter_is_typed_with_the_contract():
    assert untyped_agents() == []


def test_the_finders_see_a_probe_and_an_untyped_agent(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "loop").mkdir()
    (tmp_path / "tools" / "x.py").write_text("def f(agent: Any, ctx):\n    return getattr(ctx.agent, 'judge', None)\n")
    assert agent_probes(tmp_path) == ["tools/x.py:2: getattr(ctx.agent, 'judge', None)"]
    assert untyped_agents(tmp_path) == ["tools/x.py:1"]
