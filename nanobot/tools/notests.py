"""A test run that ran no tests, said so in the result.

``python3 -m unittest`` before Python 3.12 exits 0 after "Ran 0 tests in 0.000s / OK" when it finds no
tests (the test files are named otherwise, or lie elsewhere), and a small model reads that as "all tests
passed"; pytest exits 5 with "no tests ran", which reads as some failure. The runners' own fixed output
is read (unittest's "Ran 0 tests" and Python 3.12's "NO TESTS RAN", pytest's "collected 0 items" and
"no tests ran"), not the user's words, so it holds whatever language the request was in; the exec
result then says on its second line that no test ran. A run that did run tests says its counts there
(``tools.testcounts``).

>>> said("exit 0\\n\\n----------------------------------------------------------------------\\nRan 0 tests in 0.000s\\n\\nOK")
'exit 0\\n(no tests ran: the command found no tests to run)\\n\\n----------------------------------------------------------------------\\nRan 0 tests in 0.000s\\n\\nOK'
>>> said("exit 0\\nRan 3 tests in 0.001s\\n\\nOK")
'exit 0\\n(tests: 3 passed)\\nRan 3 tests in 0.001s\\n\\nOK'
>>> said("exit 0\\nhello") == "exit 0\\nhello"
True
"""

from __future__ import annotations

import re

from nanobot.tools.testcounts import counts, note

NOTE = "(no tests ran: the command found no tests to run)"
_NONE = re.compile(r"^Ran 0 tests in |^NO TESTS RAN|^collected 0 items|^(?:=+ )?no tests ran in ", re.M)


def said(shown: str) -> str:
    """``shown`` (a run's "exit N" line and its output) with ``NOTE`` after the first line where the
    output shows a test runner that found no tests, or the run's counts where it shows a runner's
    summary (``tools.testcounts``: a result cut for the model keeps its head)."""
    head, sep, rest = shown.partition("\n")
    if _NONE.search(rest):
        return f"{head}\n{NOTE}{sep}{rest}"
    if (found := counts(rest)) is not None:
        return f"{head}\n{note(found)}{sep}{rest}"
    return shown
