"""A Python test file written with no test in it is refused (``write_file``).

Asked "write a test for spread in a new file test_notes.py", a small model may write the function
itself there: the file runs, pytest collects nothing from it, and the reply says a test was written.
pytest and unittest collect by a convention, a fact of the runners, not of the request's words: a
file named ``test_*.py`` or ``*_test.py`` holds functions named ``test*`` or classes named ``Test*``
(a ``unittest.TestCase`` subclass's methods are named ``test*`` too). A text for such a file that
parses and defines none of them at its top level is refused with what a test looks like; a text that
does not parse is ``pysyntax``'s, and any other file is not this module's.

>>> holds_no_test("test_notes.py", "def spread(g):\\n    return max(g) - min(g)\\n")
True
>>> holds_no_test("test_notes.py", "from notes import spread\\n\\n\\ndef test_spread():\\n    assert spread([1, 3]) == 2\\n")
False
>>> holds_no_test("notes.py", "def spread(g):\\n    return 0\\n")
False
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath

from nanobot.base.errors import ToolError

_NAMED = re.compile(r"test_[\w.-]*\.py|[\w.-]+_test\.py")


def holds_no_test(path: str, text: str) -> bool:
    """Whether ``text``, for the Python test file ``path``, parses and defines no test."""
    if not _NAMED.fullmatch(PurePath(path).name):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
                   or isinstance(n, ast.ClassDef) and n.name.startswith("Test") for n in tree.body)


def refuse_testless(path: str, text: str) -> None:
    """``write_file``'s refusal of a test file with no test (see the module docstring)."""
    if holds_no_test(path, text):
        raise ToolError(f"write_file: {path} is a test file, and this text holds no test, so the tests would "
                        "find nothing in it; write test functions (def test_...) that import what they test "
                        "and assert what it returns")
