"""The coding bench's repositories and steps (bench/coding_bench.py): what a step asks, and what must
be on disk after it.

A ``Repo`` is a small project (files, the ``tools.exec_allow`` its chat gets, the command the scorer
runs its tests with); its ``Step`` messages are piped into one ``nanobot chat`` in order. Each step
names what it checks: definitions that must be there (``defines``), names that must be gone
(``absent``, a rename's old name), a test of the given name in a test file (``tested``), code that must
run (``expr``: Python with ``python3 -c``, a JavaScript repository's with ``node -e``), the tests
passing (``tests_pass``), a test run asked for (``run``: the test command must run in the step), files
the user said to leave alone (``leave``) and names the step may remove (``removes``). Every step also
checks that the code still parses and that no definition disappeared the step did not ask to remove.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Step:
    say: str  # the message, as a user types it
    kind: str  # add_function | add_test | run_tests | fix | rename
    defines: dict[str, list[str]] = field(default_factory=dict)
    absent: dict[str, list[str]] = field(default_factory=dict)
    tested: dict[str, str] = field(default_factory=dict)  # test file -> the name a test there must use
    expr: str = ""
    tests_pass: bool = False
    run: bool = False
    leave: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)


@dataclass
class Repo:
    name: str
    lang: str  # python | js | shell
    files: dict[str, str]
    allow: list[str]
    test: str  # the scorer's own test command
    steps: list[Step]


PY_ALLOW = ["python3 -m pytest", "git status", "git diff"]  # issue 79's allow list
