"""The package's import graph: no cycles, and no import running back up the layers.

The graph is read from the source (every ``import``/``from`` statement, including the ones inside
functions and under ``TYPE_CHECKING``), so a cycle hidden in a function body still counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "nanobot"


def module_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    mods = {}
    for path in pkg.rglob("*.py"):
        name = ".".join(path.relative_to(pkg.parent).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        here = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    graph[mod].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_cycle_finder_finds_a_planted_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    assert cycles(module_graph()) == []


def test_no_imports_back_up_the_layers():
    """Only the CLI imports the CLI; the Agent is built by the runtime (the composition root), and
    the runtime is imported only by what runs a whole agent: the CLI, housekeeping, the scheduler and
    the benches. Features see the Agent through ``features.Agent`` (a Protocol), never the class."""
    graph = module_graph()
    upward = []
    for mod, deps in graph.items():
        for dep in deps:
            top = {"nanobot.loop.agent": ("nanobot.runtime", "nanobot.cli"),
                   "nanobot.runtime": ("nanobot.cli", "nanobot.housekeeping.housekeep", "nanobot.housekeeping.scheduler",
                                       "nanobot.bench")}
            if dep.startswith("nanobot.cli") and not mod.startswith(("nanobot.cli", "nanobot.__main__")):
                upward.append(f"{mod} -> {dep}")
            for target, allowed in top.items():
                if dep == target and not mod.startswith(allowed):
                    upward.append(f"{mod} -> {dep}")
    assert upward == []


def unit_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between units: a subpackage of nanobot (``nanobot.observer``) or a module at the
    package root (``nanobot.housekeeping.housekeep``); imports inside one unit are left out."""
    def unit(mod: str) -> str:
        return ".".join(mod.split(".")[:2])

    units: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        units.setdefault(unit(mod), set()).update(unit(d) for d in deps if unit(d) != unit(mod))
    return units


def test_unit_graph_finds_a_back_arrow():
    """A package reaching a root module that reaches back into it is a cycle between units, though
    no module-level cycle (``observer.hooks -> housekeep -> observer.observer``)."""
    graph = {"nanobot.observer.feature": {"nanobot.housekeeping.housekeep"}, "nanobot.housekeeping.housekeep": {"nanobot.observer.observer"},
             "nanobot.observer.observer": set()}
    assert cycles(graph) == []
    assert cycles(unit_graph(graph)) == [["nanobot.housekeeping", "nanobot.observer"]]


def test_no_back_arrows_between_packages():
    """No subpackage and root module import each other, however indirectly: a package is one layer
    (the backends use the model registry, so ``models.py`` does not import a backend; ``housekeep.py``
    runs the observer, so the observer does not import it)."""
    assert cycles(unit_graph(module_graph())) == []


def agent_assignments(pkg: Path = PKG) -> list[str]:
    """``agent.x = …`` (or ``agent.x.y = …``, ``setattr(agent, …)``) outside the Agent itself, the
    composition root, the CLI and the benches: a feature asks through an intent (``nanobot.core.intents``)."""
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel in ("loop/agent.py", "runtime.py") or rel.startswith(("cli/", "bench/")):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and node.args:
                targets = [ast.Attribute(value=node.args[0], attr="?")]
            for t in targets:
                while isinstance(t, (ast.Attribute, ast.Subscript)):
                    t = t.value
                    if isinstance(t, ast.Name) and t.id == "agent":
                        found.append(f"{rel}:{node.lineno}")
    return found


def test_assignment_finder_finds_one():
    src = PKG.parent / "tests" / "_planted_agent_assign"
    assert agent_assignments.__doc__
    tree = "def on_session_start(self, agent):\n    agent.settings.chat.prefill = False\n"
    src.mkdir(exist_ok=True)
    try:
        (src / "feature.py").write_text(tree)
        assert agent_assignments(src) == ["feature.py:2"]
    finally:
        (src / "feature.py").unlink()
        src.rmdir()


def test_no_feature_assigns_to_the_agent():
    assert agent_assignments() == []


def cli_reaches_into_features(pkg: Path = PKG) -> list[str]:
    """The CLI parses, calls one library function and prints: it imports no feature module (the
    ``runtime.FEATURES`` entries; ``build_agent`` wires them) and writes no setting (``settings.x = …``)."""
    from nanobot.runtime import FEATURES

    features = {spec.partition(":")[0] for _, spec in FEATURES}
    graph = module_graph(pkg)
    found = [f"{m} imports {t}" for m in sorted(graph) if m.startswith("nanobot.cli.")
             for t in sorted(graph[m] & features)]
    for path in sorted((pkg / "cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            for t in node.targets if isinstance(node, ast.Assign) else []:
                attribute = isinstance(t, ast.Attribute)
                while isinstance(t, ast.Attribute):
                    t = t.value
                if attribute and isinstance(t, ast.Name) and t.id == "settings":
                    found.append(f"cli/{path.name}:{node.lineno} writes settings")
    return found


def test_the_cli_does_not_reach_into_features():
    assert cli_reaches_into_features() == []


# The layers, lowest first (docs/architecture.md draws the same list): a module imports only from its
# own package, or from a package in its own layer or below.
LAYERS = [
    ("base",),
    ("config", "configfile", "workspace"),
    ("models", "backends", "catalogue"),
    ("core",),
    ("tools", "memory", "observer", "vault", "mcptools", "chats", "coding", "remote", "kvcache", "importing"),
    ("loop",),
    ("runtime",),
    ("cli", "housekeeping", "bench", "__main__"),
]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports that point up the layers, and units no layer names (a new package must be placed)."""
    rank = {u: i for i, units in enumerate(LAYERS) for u in units}
    found = []
    for mod, deps in graph.items():
        if mod == "nanobot":
            continue
        here = mod.split(".")[1]
        if here not in rank:
            found.append(f"{mod}: package '{here}' is in no layer")
            continue
        for dep in deps:
            there = dep.split(".")[1] if dep != "nanobot" else here
            if there != here and rank.get(there, len(LAYERS)) > rank[here]:
                found.append(f"{mod} -> {dep}")
    return sorted(found)


def test_layer_check_finds_an_upward_import():
    assert upward_imports({"nanobot.base.atomic": {"nanobot.loop.agent"}}) == \
        ["nanobot.base.atomic -> nanobot.loop.agent"]
    assert upward_imports({"nanobot.newpkg.x": set()}) == ["nanobot.newpkg.x: package 'newpkg' is in no layer"]
    assert upward_imports({"nanobot.loop.agent": {"nanobot.base.atomic", "nanobot.loop.replycheck"}}) == []


def test_no_import_points_up_the_layers():
    assert upward_imports(module_graph()) == []
