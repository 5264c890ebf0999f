"""Test commands: which command lines run a project's tests, and a test run a model wrote wrongly made
into the test command ``tools.exec_allow`` holds.

A command runs tests when it is a test runner by the runners' own conventions (``pytest``, ``python3
-m unittest``, ``npm test``, ``go test``, ``cargo test``, ``make test``, ``node --test``, ``jest``...: a
tool's ``test`` subcommand or a runner's name), facts of the command line, no word of the request. A
call names a test run when its command is one, or names a test file (``test_calc.py``,
``calc_test.go``, ``calc.test.js``, a path under ``tests/``), or spells a ``test`` subcommand a tool does
not have (``git test``). A model may write ``exec`` as text with the command split in an ``args`` field
(``{"command": "python3", "args": ["-m", "pytest"]}``), which validation would drop: the parts are
joined (``command_of``). Where the joined line is not allowed and names a test run, ``repaired`` gives
the allowed test command it most likely names (the one sharing a runner word, else the first), with
the call's options where it names that runner, or else the test files it named.
"""

from __future__ import annotations

import re
import shlex

_RUNNERS = {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "bats", "rspec", "phpunit",
            "ctest", "nosetests", "nose2", "trial", "karma", "tap"}
_PY_MODULES = {"pytest", "unittest", "nose2", "tox", "doctest"}
_SUBCOMMANDS = {"test", "tests"}  # ``npm test``, ``go test``, ``cargo test``, ``make test``, ``dotnet test``
_TEST_FILE = re.compile(r"(?:^|/)(?:tests?/.+|test_[\w.-]+\.py|[\w.-]+_test\.(?:py|go)|[\w.-]+\.(?:test|spec)\."
                        r"[cm]?[jt]sx?|[\w.-]+\.bats|[\w.-]+_spec\.rb)$")


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def is_runner(command: str) -> bool:
    """Whether ``command`` runs tests by a runner's convention (see the module docstring).

    >>> is_runner("python3 -m pytest -q"), is_runner("npm run test"), is_runner("make check"), is_runner("python3 a.py")
    (True, True, True, False)
    """
    words = _words(command)
    if not words:
        return False
    first = words[0].rsplit("/", 1)[-1]
    plain = [w for w in words[1:] if not w.startswith("-")]
    if first in _RUNNERS or "--test" in words[1:3]:  # ``node --test``, ``deno test`` below
        return True
    if re.fullmatch(r"python[\d.]*|py", first):
        return any(a == "-m" and b in _PY_MODULES for a, b in zip(words, words[1:]))
    if first == "make" and plain[:1] == ["check"]:
        return True
    return bool(plain) and (plain[0] in _SUBCOMMANDS or plain[0] == "run" and plain[1:2] in (["test"], ["tests"]))


def test_file(word: str) -> bool:
    """Whether ``word`` is a path named as a test file or lying under a ``tests`` folder."""
    return bool(_TEST_FILE.search(word.strip("'\"")))


def names_tests(command: str) -> bool:
    """Whether a call's command line names a test run: a runner, a test file, or a ``test`` subcommand."""
    words = _words(command)
    return is_runner(command) or any(test_file(w) for w in words[1:]) or words[1:2] in (["test"], ["tests"])


def test_commands(allow: list[str]) -> list[str]:
    """The entries of an allow list that run tests, in its order."""
    return [a.strip() for a in allow if a.strip() and is_runner(a)]


def command_of(args: dict) -> str:
    """The command line a written ``exec`` call means: its ``command`` (or ``cmd``), a list joined, and
    the parts of an ``args`` (or ``argv``) field after it."""
    head, extra = args.get("command", args.get("cmd", "")), args.get("args", args.get("argv", ""))
    parts = [shlex.join(map(str, x)) if isinstance(x, list) else str(x or "") for x in (head, extra)]
    return " ".join(p.strip() for p in parts if p.strip())


def _runner(command: str) -> tuple[str, list[str]]:
    """The runner ``command`` names and the words after it: ``("pytest", ["-x"])`` for ``python3 -m
    pytest -x`` and for ``pytest -x``; ``("npm test", [])`` for ``npm test``; ("", []) for no runner."""
    words = _words(command)
    first = words[0].rsplit("/", 1)[-1] if words else ""
    python = [i for i in range(1, len(words) - 1) if words[i] == "-m" and words[i + 1] in _PY_MODULES]
    if re.fullmatch(r"python[\d.]*|py", first) and python:
        return words[python[0] + 1], words[python[0] + 2:]
    if first in _RUNNERS:
        return first.replace("py.test", "pytest"), words[1:]
    if words[1:2] and words[1] in _SUBCOMMANDS:
        return f"{first} test", words[2:]
    return "", []


def likeliest(command: str, tests: list[str]) -> str:
    """The test command of ``tests`` that ``command`` most likely names: most runner words in common."""
    said = {w.rsplit("/", 1)[-1] for w in _words(command) if not w.startswith("-")}
    return max(tests, key=lambda t: len(said & {w for w in _words(t) if not w.startswith("-")}))


def repaired(args: dict, allow: list[str]) -> dict | None:
    """The ``exec`` arguments a written call means where they differ from what it wrote: its parts joined
    where that makes an allowed command, else the allowed test command it names -- with the call's own
    options and files where it names the same runner, its test files otherwise; None where the call is
    right as it is or names no test run (see the module docstring).

    >>> repaired({"command": "python3", "args": ["-m", "pytest"]}, ["python3 -m pytest", "git status"])
    {'command': 'python3 -m pytest'}
    >>> repaired({"command": "git test"}, ["python3 -m pytest", "git status"])
    {'command': 'python3 -m pytest'}
    >>> repaired({"command": "pytest tests/test_calc.py -q"}, ["git diff", "python3 -m pytest"])
    {'command': 'python3 -m pytest tests/test_calc.py -q'}
    >>> repaired({"command": "python -m unittest test_calc.py"}, ["python3 -m pytest"])
    {'command': 'python3 -m pytest test_calc.py'}
    >>> repaired({"command": "git status"}, ["python3 -m pytest", "git status"]) is None  # allowed as it is
    True
    >>> repaired({"command": "rm -rf build"}, ["python3 -m pytest"]) is None  # no test run
    True
    """
    from nanobot.tools.shell import allowed

    line, rest = command_of(args), {k: args[k] for k in ("cwd",) if isinstance(args.get(k), str)}
    if not line:
        return None
    if allowed(line, allow):
        return None if line == args.get("command") else {"command": line, **rest}
    if not (tests := test_commands(allow)) or not names_tests(line):
        return None
    pick = likeliest(line, tests)
    runner, after = _runner(line)
    if not runner or runner != _runner(pick)[0]:
        after = [w for w in _words(line)[1:] if test_file(w) and not w.startswith("-")]
    return {"command": " ".join([pick, *map(shlex.quote, after)]), **rest}
