"""What docs/architecture.md claims about the code, checked against the source: the CLI's imports of
feature packages and the attribute probes on a model are exactly the lists the page gives, no table cell
on the page is a wall of text, and a docstring that announces "N rules" lists N."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.test_imports import LAYERS, module_graph

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "nanobot"
PAGE = ROOT / "docs" / "architecture.md"
FEATURE_PACKAGES = set(LAYERS[4])


def _claim(name: str) -> dict[str, set[str]]:
    """A marked list on the page: ``- `file`: `a`, `b` (why)`` lines -> {file: {a, b}}."""
    block = re.search(rf"<!-- claim:{name} -->\n(.*?)<!-- /claim:{name} -->", PAGE.read_text(), re.S)
    assert block, f"docs/architecture.md has no claim:{name} list"
    out: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        m = re.match(r"- `([^`]+)`: (.*)", line)
        if m:
            head = m.group(2).split(" (")[0]
            out[m.group(1)] = set(re.findall(r"`([^`]+)`", head))
    return out


def cli_feature_imports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        if not mod.startswith("nanobot.cli."):
            continue
        for dep in deps:
            parts = dep.split(".")
            if len(parts) > 2 and parts[1] in FEATURE_PACKAGES:
                found.setdefault(f"cli/{mod.split('.')[2]}.py", set()).add("/".join(parts[1:]) + ".py")
    return found


def test_the_cli_imports_of_feature_packages_are_the_listed_ones():
    assert cli_feature_imports(module_graph()) == _claim("cli-feature-imports")


def test_the_cli_import_check_sees_a_new_one():
    graph = {"nanobot.cli.chat": {"nanobot.memory.service", "nanobot.base.atomic"}}
    assert cli_feature_imports(graph) == {"cli/chat.py": {"memory/service.py"}}


def model_probes(pkg: Path = PKG) -> dict[str, set[str]]:
    """``hasattr(<…model>, A)`` and ``getattr(<…model>, "A", …)`` outside backends/: file -> {A}.
    An attribute name taken from a loop over a tuple of strings counts as each of them; a ``getattr``
    whose name is a variable (a proxy's ``__getattr__``) is delegation, not a probe."""
    found: dict[str, set[str]] = {}
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel.startswith("backends/"):
            continue
        tree = ast.parse(path.read_text())
        loops: dict[str, list[str]] = {}
        for node in ast.walk(tree):
            for gen in getattr(node, "generators", []):
                if isinstance(gen.target, ast.Name) and isinstance(gen.iter, ast.Tuple) and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in gen.iter.elts):
                    loops[gen.target.id] = [e.value for e in gen.iter.elts]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("hasattr", "getattr")
                    and len(node.args) >= 2 and ast.unparse(node.args[0]).lower().endswith("model")):
                continue
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                names = [name.value]
            elif node.func.id == "hasattr" and isinstance(name, ast.Name):
                names = loops.get(name.id, [name.id])
            else:
                continue
            found.setdefault(rel, set()).update(names)
    return found


def test_the_probes_on_a_model_are_the_listed_ones():
    assert model_probes() == _claim("model-probes")


def test_the_probe_finder_sees_a_probe(tmp_path):
    (tmp_path / "x.py").write_text("if hasattr(agent.model, 'warm'):\n    pass\n"
                                   "ok = all(hasattr(model, a) for a in ('p', 'q'))\n"
                                   "def __getattr__(self, name):\n    return getattr(self._model, name)\n")
    assert model_probes(tmp_path) == {"x.py": {"warm", "p", "q"}}


def test_no_table_cell_on_the_page_is_a_wall_of_text():
    long = [f"line {n}: {len(cell)} characters" for n, line in enumerate(PAGE.read_text().splitlines(), 1)
            if line.startswith("|") for cell in line.split("|") if len(cell) > 2500]
    assert long == []


def test_a_docstring_that_announces_n_rules_lists_n():
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    wrong = []
    for path in sorted(PKG.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        m = re.search(r"^(Two|Three|Four|Five|Six) (rules|checks|steps)\b", doc, re.M)
        if m:
            listed = len(re.findall(r"^\d+\. ", doc[m.end():], re.M))
            if listed != words[m.group(1).lower()]:
                wrong.append(f"{path.relative_to(PKG)}: {m.group(0)}, {listed} listed")
    assert wrong == []
