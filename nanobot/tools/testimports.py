"""The import a Python test file written by the model forgot: added from the module that defines the name.

A small model writing a test often calls the function it tests without importing it ("def
test_spread(): assert spread([85, 90]) == 5" in a new test_notes.py), so the test fails on a NameError
for a reason that has nothing to do with the code. The fact to go on is Python's own: a name the file
loads and binds nowhere (no import, definition, assignment, parameter or builtin), that exactly one
module of the file's root defines at its top level (the file's own folder first, then the root's top).
``from <module> import <name>`` is then added: to that module's one-line import where the file has one,
else after the file's last top-level import (or its docstring). A file that does not parse, a name two
modules define, or one that no module defines is left as the model wrote it. The write's result says
what was added.

>>> root = Path(__import__("tempfile").mkdtemp())
>>> _ = (root / "notes.py").write_text("def spread(g):\\n    return max(g) - min(g)\\n")
>>> imported("def test_spread():\\n    assert spread([1, 4]) == 3\\n", root / "test_notes.py", root)
('from notes import spread\\n\\n\\ndef test_spread():\\n    assert spread([1, 4]) == 3\\n', ['spread'])
>>> imported("from notes import mean\\n\\n\\ndef test_s():\\n    assert spread([1]) == 0\\n", root / "t.py", root)[0][:31]
'from notes import mean, spread\\n'
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.tools.namedcode import MAX_BYTES

MOST_MODULES = 200  # .py files read when looking for the one that defines a name


def _free(tree: ast.Module) -> list[str]:
    """Names the module loads and binds nowhere, in the order first loaded."""
    bound = set(dir(builtins)) | {"__file__", "__name__"}
    loaded: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded.__setitem__(node.id, None) if isinstance(node.ctx, ast.Load) else bound.add(node.id))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return [n for n in loaded if n not in bound]


def _defines(path: Path) -> set[str]:
    try:
        tree = ast.parse(read_regular(path, MAX_BYTES).decode("utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):  # a FIFO or a link elsewhere: no module
        return set()
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return names | {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def _home(name: str, path: Path, root: Path, read: dict[Path, set[str]]) -> str | None:
    """The dotted module (from ``root``) that alone defines ``name``: the file's folder first, then the
    root's top; ``read`` holds each module's definitions once per write."""
    for folder in dict.fromkeys((path.parent, root)):
        mods = [m for m in sorted(folder.glob("*.py"))[:MOST_MODULES] if m != path]
        found = [m for m in mods if name in (read[m] if m in read else read.setdefault(m, _defines(m)))]
        if len(found) == 1:
            rel = found[0].relative_to(root).with_suffix("")
            return ".".join(rel.parts) if folder == root or (path.parent / "__init__.py").exists() else rel.name
        if found:
            return None
    return None


def imported(text: str, path: Path, root: Path) -> tuple[str, list[str]] | None:
    """``text`` (the new text of the Python file ``path`` under ``root``) with the imports it forgot, and
    the names added; None where nothing is to add."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    read: dict[Path, set[str]] = {}
    homes = {n: m for n in _free(tree) if (m := _home(n, path, root, read))}
    if not homes:
        return None
    lines = text.splitlines(keepends=True)
    for module in dict.fromkeys(homes.values()):
        names = [n for n, m in homes.items() if m == module]
        one = re.compile(rf"^from {re.escape(module)} import ([\w, ]+)$")
        at = next((k for k, ln in enumerate(lines) if one.match(ln.rstrip("\n"))), None)
        if at is not None:
            lines[at] = f"{lines[at].rstrip()}, {', '.join(names)}\n"
            continue
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        doc = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(
            getattr(tree.body[0], "value", None), ast.Constant) else None
        after = (top[-1].end_lineno if top else doc.end_lineno if doc else 0) or 0
        line = f"from {module} import {', '.join(names)}\n"
        lines.insert(after, line if after else line + "\n\n")
    return "".join(lines), list(homes)


def completed(text: str, path: Path, roots: list[Path]) -> tuple[str, str]:
    """``text`` for the test file ``path`` with its forgotten imports (``imported``), and the write
    result's note of them ("" where none); any other file is left as it is."""
    from nanobot.tools.testcommand import test_file

    root = next((r for r in roots if r in path.parents), None)
    if root is None or path.suffix != ".py" or not test_file(path.name) or (done := imported(text, path, root)) is None:
        return text, ""
    return done[0], f"; added the import of {', '.join(done[1])} it uses (the module that defines it)"
