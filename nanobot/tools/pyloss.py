"""What an edit of a Python file loses, read from the code (``ast``) rather than from its lines.

An edit keeps the code when every name it defined is still defined (``def``, ``async def`` and
``class`` at any depth, a test function among them; a name a module or class body assigns), every
name it imported is still imported, and every block (``if``, ``for``, ``while``, ``with``, ``try``,
``match``; a statement at the top level) is still there in its function, class or module. A line
extended (``from m import a, b`` -> ``from m import a, b, c``), a body changed, a new test added lose
nothing. What disappears is named by its own line (``def slugify(s):``, ``if x > 0:``) or, for one name
of an import, as its own import (``from m import b``), and ``editloss`` keeps only what the user did
not ask about. A block in a definition the request names by its whole name may go: the body was asked
to change. ``pieces`` is None where either text does not parse: ``editloss`` reads lines then.

>>> before = "from m import a, b\\n\\ndef test_a():\\n    assert a()\\n"
>>> gone(before, before.replace("a, b", "a, b, c") + "\\ndef test_c():\\n    assert c()\\n", set())
[]
>>> gone(before, "from m import a\\n\\ndef test_c():\\n    assert c()\\n", set())
['from m import b', 'def test_a():']
>>> gone("def f(x):\\n    if x:\\n        return 1\\n", "def f(x):\\n    return 1\\n", {"f"})
[]
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match,
           *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))

Piece = tuple[str, str, str, str]  # (kind, key, the line it is shown by, the definition it is in: "C.m")


def _imports(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    if isinstance(node, ast.Import):
        return [(a.asname or a.name, f"import {a.name}" + (f" as {a.asname}" if a.asname else "")) for a in node.names]
    where = "." * node.level + (node.module or "")
    return [(f"{where}:{a.asname or a.name}", f"from {where} import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            for a in node.names]


def _assigned(node: ast.stmt) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _walk(body: list, scope: str, in_def: bool, lines: list[str], out: list[Piece]) -> None:
    for node in body:
        first = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
        if isinstance(node, _DEFS):
            out.append(("def", node.name, first, scope))
            _walk(node.body, f"{scope}.{node.name}".lstrip("."), not isinstance(node, ast.ClassDef), lines, out)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.extend(("import", key, shown, scope) for key, shown in _imports(node))
        elif not in_def:
            out.extend(("name", f"{scope}:{n}", first, scope) for n in _assigned(node))
        if isinstance(node, _BLOCKS):
            out.append(("block", f"{scope}/{type(node).__name__}", first, scope))
        elif not scope and isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            out.append(("block", "/Expr", first, scope))  # a top-level call (``main()``), not a docstring
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for sub in getattr(node, field, None) or []:
                inner = sub.body if isinstance(sub, (ast.ExceptHandler, ast.match_case)) else [sub]
                _walk(inner, scope, in_def, lines, out)


def pieces(text: str) -> list[Piece] | None:
    """The definitions, imported names, names a module or class assigns, and blocks of ``text``, in
    file order; None when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: list[Piece] = []
    _walk(tree.body, "", False, text.splitlines(), out)
    return out


def gone(before: str, after: str, named: set[str]) -> list[str] | None:
    """What of ``before`` ``after`` no longer holds, shown as lines, in file order (blocks of a
    definition in ``named`` left out); None when either does not parse."""
    old, new = pieces(before), pieces(after)
    if old is None or new is None:
        return None
    left = Counter((k, key) for k, key, _, _ in new)
    scopes = {""} | {f"{scope}.{key}".lstrip(".") for k, key, _, scope in new if k == "def"}
    out = []
    for kind, key, shown, scope in old:
        if left[(kind, key)] > 0:
            left[(kind, key)] -= 1
        elif kind != "block" or (scope in scopes and not set(scope.split(".")) & named):
            out.append(shown)  # a block goes with its definition, or with a body the request names
    return list(dict.fromkeys(out))
