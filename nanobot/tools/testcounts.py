"""A test run's counts, read from the runner's own summary: what a reply about the run reports.

A small model retelling a run invents figures ("all 5 tests passed" over "1 failed, 3 passed"). The
runners print fixed summaries, read here whatever language the request was in: pytest's last line
(``1 failed, 3 passed in 0.12s``), unittest's ``Ran 4 tests`` with ``OK`` or ``FAILED (failures=1)``,
jest's ``Tests: 1 failed, 3 passed, 4 total``, mocha's ``3 passing`` / ``1 failing``, cargo's
``test result: ok. 3 passed; 0 failed``, go's ``--- PASS:`` / ``--- FAIL:`` lines and TAP's ``ok 1`` /
``not ok 2`` (bats) under a ``1..N`` plan, ``node --test``'s ``# pass 3`` totals. None where no summary is there (a run that
did not start). ``note`` says the counts on a line of their own, which an ``exec`` result puts second
(``tools.notests``): a long run's result is cut from its end for the model, and the summary is last.

>>> counts("....F\\n1 failed, 4 passed in 0.31s").line()
'4 passed, 1 failed'
>>> counts("Ran 4 tests in 0.001s\\n\\nFAILED (failures=1, errors=1)").line()
'2 passed, 1 failed, 1 error'
>>> counts("1..2\\nok 1 adds\\nnot ok 2 subtracts\\n").line(), counts("command not found") is None
('1 passed, 1 failed', True)
>>> note(counts("1 failed, 4 passed in 0.31s")), counts("exit 1\\n(tests: 4 passed, 1 failed)\\n== FAIL").failed
('(tests: 4 passed, 1 failed)', 1)

``failing`` names the tests that failed, as the runners' own lines name them (pytest's ``FAILED``
summary lines, unittest's ``FAIL:``/``ERROR:`` headers, TAP's ``not ok``, go's ``--- FAIL:``), so
a report of a failed run says which test and why, not only how many:

>>> failing("FAILED test_convert.py::test_km_to_miles - assert 25.9 == 10.0\\n1 failed, 1 passed in 0.03s")
['test_convert.py::test_km_to_miles (assert 25.9 == 10.0)']
>>> failing("ok - to_upper\\nnot ok - file_ext: got 'tar.gz', want 'gz'\\n"), failing("3 passed in 0.1s")
(["file_ext: got 'tar.gz', want 'gz'"], [])
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from nanobot.base.safe_text import one_line

_NOTE = re.compile(r"^\(tests: ((?:\d+ \w+(?:, )?)+)\)$", re.M)
_PYTEST = re.compile(r"^[= ]*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
                     r"(?:, )?)+) in [\d.]+s\b", re.M)
_UNITTEST = re.compile(r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*\n?(OK|FAILED)(?: \(([^)]*)\))?", re.M)
_JEST = re.compile(r"^Tests:\s+(.*?)(\d+) total", re.M)
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.M)
_WORDS = {"passed": "passed", "passing": "passed", "pass": "passed", "failed": "failed", "failing": "failed",
          "fail": "failed", "error": "errors", "errors": "errors", "skipped": "skipped", "pending": "skipped"}


class Counts(BaseModel):
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0

    def line(self) -> str:
        """The counts as the runners word them, those that are not 0 ("0 passed" for an empty run)."""
        parts = [f"{self.passed} passed", f"{self.failed} failed", f"{self.errors} error" + "s" * (self.errors != 1),
                 f"{self.skipped} skipped"]
        shown = [p for p, n in zip(parts, (self.passed, self.failed, self.errors, self.skipped)) if n]
        return ", ".join(shown) or "0 passed"


def _named(pairs: list[tuple[str, str]]) -> Counts:
    got: dict[str, int] = {}
    for n, word in pairs:
        if key := _WORDS.get(word.lower()):
            got[key] = got.get(key, 0) + int(n)
    return Counts(**got)


def counts(output: str) -> Counts | None:
    """The counts of the last summary in ``output`` (see the module docstring); None for none."""
    if m := _NOTE.search(output):
        return _named(re.findall(r"(\d+) (\w+)", m.group(1)))
    if found := _PYTEST.findall(output):
        return _named(re.findall(r"(\d+) (\w+)", found[-1]))
    if m := _UNITTEST.search(output):
        detail = dict(re.findall(r"(\w+)=(\d+)", m.group(3) or ""))
        failed, errors, skipped = (int(detail.get(k, 0)) for k in ("failures", "errors", "skipped"))
        return Counts(passed=int(m.group(1)) - failed - errors - skipped, failed=failed, errors=errors, skipped=skipped)
    if m := _JEST.search(output):
        return _named(re.findall(r"(\d+) (\w+)", m.group(1)))
    if found := _CARGO.findall(output):
        return Counts(passed=sum(int(a) for a, _, _ in found), failed=sum(int(b) for _, b, _ in found),
                      skipped=sum(int(c) for _, _, c in found))
    if pairs := re.findall(r"^\s*(\d+) (passing|failing|pending)\b", output, re.M):  # mocha
        return _named(pairs)
    if pairs := re.findall(r"^(?:#|\u2139) (pass|fail|skipped) (\d+)$", output, re.M):  # node --test's totals
        return _named([(n, w) for w, n in pairs])
    go = re.findall(r"^\s*--- (PASS|FAIL|SKIP):", output, re.M)
    tap = re.findall(r"^(not ok|ok)\b", output, re.M) if re.search(r"^1\.\.\d+$", output, re.M) else []
    if go or tap:
        marks = [{"PASS": "pass", "FAIL": "fail", "SKIP": "skipped"}[g] for g in go] or [
            "fail" if t == "not ok" else "pass" for t in tap]
        return _named([("1", m) for m in marks])
    return None


def note(found: Counts) -> str:
    """The counts on a line of their own, as an ``exec`` result states them second."""
    return f"(tests: {found.line()})"


_FAILING = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.+))?$|^(?:FAIL|ERROR): (\w+ \([\w.]+\))"
                      r"|^\s*not ok(?: \d+)?(?: -)? (.+)$|^\s*--- FAIL: (\S+)", re.M)
MOST_FAILING = 3  # failing tests named in a report, each cut to NAME_CHARS
NAME_CHARS = 120


def failing(output: str) -> list[str]:
    """The failing tests ``output`` names (see the module docstring), at most ``MOST_FAILING``, each on one line."""
    found: list[str] = []
    for m in _FAILING.finditer(output):
        test, why, other = m.group(1), m.group(2), m.group(3) or m.group(4) or m.group(5)
        name = f"{test} ({why})" if test and why else test or other
        if name and (name := one_line(name)[:NAME_CHARS]) not in found:
            found.append(name)
    return found[:MOST_FAILING]
