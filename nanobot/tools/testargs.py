"""A Python test that takes a parameter pytest cannot fill is refused (``write_file``, ``edit_file``).

pytest fills a test function's parameters from fixtures: its own (``tmp_path``, ``capsys``, ...), the
ones a test file or a ``conftest.py`` beside or above it defines (``@pytest.fixture``), and the names a
``@pytest.mark.parametrize`` gives. Asked "write a test for spread", a small model may write
``def test_spread(grades):`` as if it were the function under test: pytest then stops at "fixture
'grades' not found" and nothing is tested. A text for a test file (``test_*.py``, ``*_test.py``) whose
tests take a parameter none of those fill is refused with what a test looks like. Facts only: the
runner's convention and the files' own definitions. A parameter a test of the file, or of another test
file in its folder, already takes (a plugin's fixture, ``mocker``) is one the project fills.

>>> unfilled("test_notes.py", "def test_spread(grades):\\n    assert spread(grades) == 10\\n", set())
['test_spread(grades)']
>>> unfilled("test_notes.py", "import pytest\\n\\n@pytest.mark.parametrize('g', [[1]])\\ndef test_a(g, tmp_path):\\n    pass\\n", set())
[]
"""

from __future__ import annotations

import ast
from pathlib import Path, PurePath

from nanobot.base.errors import ToolError
from nanobot.base.regular import read_regular
from nanobot.tools.testless import _NAMED

# the fixtures pytest itself gives (its documentation's list)
BUILTIN = frozenset({"cache", "capsys", "capsysbinary", "capfd", "capfdbinary", "caplog", "doctest_namespace",
                     "monkeypatch", "pytestconfig", "record_property", "record_testsuite_property",
                     "record_xml_attribute", "recwarn", "request", "tmp_path", "tmp_path_factory", "tmpdir",
                     "tmpdir_factory", "subtests", "testdir", "pytester"})
MAX_BYTES = 200_000  # a neighbouring test file or conftest.py read at most


def _tests(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The test functions pytest collects: top-level ``test*`` and ``test*`` methods of ``Test*`` classes."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.name.startswith("test")]
    return found


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """The parameters a caller must fill: no ``self``, none with a default, no ``*args``."""
    args = [*fn.args.posonlyargs, *fn.args.args]
    args = args[1:] if method and args and args[0].arg in ("self", "cls") else args
    plain = args[:len(args) - len(fn.args.defaults)]
    return [a.arg for a in plain] + [a.arg for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is None]


def _given(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the function's ``parametrize`` decorators give."""
    names: set[str] = set()
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "parametrize" \
                and dec.args and isinstance(dec.args[0], ast.Constant) and isinstance(dec.args[0].value, str):
            names |= {n.strip() for n in dec.args[0].value.split(",")}
        elif isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "parametrize" \
                and dec.args and isinstance(dec.args[0], (ast.List, ast.Tuple)):
            names |= {e.value for e in dec.args[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names


def defined(text: str, taken: bool = True) -> set[str]:
    """The fixtures ``text`` defines (``@pytest.fixture``, ``@fixture(name=...)``) and, with ``taken``, the
    parameters its tests take (a project's own or a plugin's fixtures); empty where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if (isinstance(target, ast.Attribute) and target.attr == "fixture"
                    or isinstance(target, ast.Name) and target.id == "fixture"):
                names.add(node.name)
                names |= {k.value.value for k in getattr(dec, "keywords", []) if k.arg == "name"
                          and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)}
    for cls in [None, *(n for n in tree.body if isinstance(n, ast.ClassDef))] if taken else ():
        body = tree.body if cls is None else cls.body
        for fn in body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test"):
                names |= set(_params(fn, cls is not None))
    return names


def unfilled(path: str, text: str, known: set[str]) -> list[str]:
    """``name(params)`` for each test of ``text`` (the test file ``path``) taking a parameter that pytest,
    ``known`` (the fixtures the project gives) and its ``parametrize`` leave unfilled."""
    if not _NAMED.fullmatch(PurePath(path).name):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    known = known | BUILTIN | defined(text, taken=False)
    out = []
    for fn in _tests(tree):
        method = fn.col_offset > 0
        if missing := [p for p in _params(fn, method) if p not in known and p not in _given(fn)]:
            out.append(f"{fn.name}({', '.join(missing)})")
    return out


def project_fixtures(path: Path, root: Path | None, old: str | None) -> set[str]:
    """What the project fills: the parameters the file's tests took before (``old``), and the fixtures and
    parameters of the ``conftest.py`` files from its folder up to ``root`` and of the other test files
    beside it."""
    names = defined(old or "")
    folders = [path.parent, *(p for p in path.parent.parents if root is not None and (p == root or root in p.parents))]
    for folder in folders:
        try:
            neighbours = [f for f in folder.iterdir() if f.name == "conftest.py"
                          or folder == path.parent and f != path and _NAMED.fullmatch(f.name)]
        except OSError:
            continue
        for f in neighbours[:50]:
            try:
                if f.is_file() and f.stat().st_size <= MAX_BYTES:
                    names |= defined(read_regular(f).decode("utf-8", errors="replace"))
            except OSError:
                continue
    return names


def refuse_unfilled(tool: str, raw: str, path: Path, root: Path | None, old: str | None, text: str) -> None:
    """``tool``'s refusal of a test that takes a parameter nothing fills (see the module docstring)."""
    if not _NAMED.fullmatch(path.name) or not (bad := unfilled(raw, text, project_fixtures(path, root, old))):
        return
    raise ToolError(f"{tool}: in {raw}, {', '.join(bad)} takes a parameter that pytest cannot fill (no fixture "
                    "of that name), so the test would not run; the file was not changed. Write the test with no "
                    "parameters: put the values it checks inside it (def test_x():\n    assert f(1) == 2)")
