"""nanobot/'s comments and docstrings say what the code does and why: no commit hashes, no "round N"
and no "taken back" (what was measured and when belongs in commit messages, CHANGELOG.md and the
benchmark pages). Only comments and docstrings are read: a string the code uses (a git object id) is
data."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "nanobot"
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
HISTORY = re.compile(r"\b[Rr]ound \d+\b|\btaken back\b")


def prose(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring in ``source``."""
    out = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
           if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((node.body[0].lineno, doc))
    return out


def history(pkg: Path = PKG) -> list[str]:
    found = []
    for path in sorted(pkg.rglob("*.py")):
        for line, text in prose(path.read_text()):
            for m in [*HASH.finditer(text), *HISTORY.finditer(text)]:
                found.append(f"{path.relative_to(pkg.parent)}:{line}: {m.group(0)!r}")
    return found


def test_the_finder_sees_a_hash_and_a_round_but_not_data(tmp_path):
    (tmp_path / "m.py").write_text('"""Fixed in round 6."""\nTREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"\n'
                                   "x = 1  # bench runs at 7b9656f; 1234567 items, a decade\n")
    assert history(tmp_path) == [f"{tmp_path.name}/m.py:3: '7b9656f'", f"{tmp_path.name}/m.py:1: 'round 6'"]


def test_comments_and_docstrings_hold_no_history():
    assert history() == []
