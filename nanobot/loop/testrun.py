"""A test run in a turn: "run the tests" runs the test command ``tools.exec_allow`` holds, and the reply
says the run's real counts.

- ``asked``: a message whose run form (``loop.explicit``'s "run X") names the tests -- the roots' test
  files by the name they share (``test`` of ``test_calc.py``, ``tests`` of ``tests/``; a runner's
  convention, a fact of the files), a test file by its name, or the allowed runner itself -- makes the
  call of the allowed test command (the one for the test files' language where there are several),
  with the test files it names. ``checkedturn`` runs it as a call the user spelled out; where the
  message is that ask alone, the run's output is the reply (``shown``), as for ``loop.shown``. A
  message that also asks for a change (``callpolicy.change_asked``) is the model's: the change first.
- ``fixed``: an ``exec`` call the model wrote as text, or proposed, is made the allowed command it
  means (``tools.testcommand.repaired``: ``args`` joined, ``git test`` made the test command).
- ``counted``: after a test command ran, a reply that does not state the run's counts ends with them
  (``tools.testcounts``), so a retelling cannot leave invented figures standing alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nanobot.core.events import Event, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.tools.testcommand import (
    command_of,
    is_runner,
    likeliest,
    repaired,
    test_commands,
    test_file,
)
from nanobot.tools.testcounts import Counts, counts

_LANGS = {".py": "python python3 pytest unittest tox nox", ".js": "npm node jest vitest mocha yarn pnpm bun",
          ".ts": "npm node jest vitest deno yarn pnpm bun", ".go": "go", ".rs": "cargo", ".bats": "bats make",
          ".sh": "bats make", ".rb": "rspec bundle rake"}  # the runners of a test file's language
_STATED = re.compile(r"(\d+)\s+(?:\w+\s+){0,2}?(passed|failed|passing|failing|errors?|skipped)\b", re.I)


def _allow(agent: Any) -> list[str]:
    from nanobot.tools.gitexec import unasked

    return unasked(agent.settings.tools)


def fixed(call: tuple[str, dict] | None, agent: Any) -> tuple[str, dict] | None:
    """``call`` with an ``exec`` command made the allowed one it means (see the module docstring)."""
    if call is None or call[0] != "exec" or not (args := repaired(call[1], _allow(agent))):
        return call
    return "exec", {k: v for k, v in call[1].items() if k not in ("args", "argv", "cmd")} | args


def _tests(agent: Any) -> list[str]:
    from nanobot.tools.named import entries, roots_of

    return [rel for rel, kind in entries(roots_of(agent.settings)).items() if kind == "file" and test_file(rel)]


def _ask(typed: str) -> tuple[str, bool] | None:
    """The object of the message's run form and whether the form is the whole message."""
    from nanobot.loop.explicit import _RUN, _command

    if not (m := _RUN.search(typed)):
        return None
    phrase = _command(m.group(1))
    return phrase, not typed[:m.start()].strip() and m.group(1).strip().rstrip(" .!?").strip() == phrase


def asked(typed: str, agent: Any) -> tuple[str, dict] | None:
    """The allowed test command's ``exec`` call where the message asks to run the tests; else None."""
    from nanobot.loop.callpolicy import change_asked

    if "exec" not in agent.tool_names() or not (tests := test_commands(_allow(agent))) or not (ask := _ask(typed)):
        return None
    if not ask[1] and change_asked(typed, agent):  # "add a test ... and run the tests": the change comes first
        return None
    files = _tests(agent)
    words = set(re.findall(r"[\w.-]+", ask[0].lower()))
    shared = set.intersection(*(set(re.split(r"[\W_]+", f.lower())) for f in files)) if files else set()
    runners = {w for t in tests for w in t.split() if not w.startswith("-")}
    named_files = [f for f in files if f.lower() in words or Path(f).name.lower() in words]
    if not (named_files or words & runners or any(w.startswith(s) for w in words for s in shared if len(s) >= 4)):
        return None
    langs = " ".join(_LANGS.get(Path(f).suffix, "") for f in named_files or files)
    pick = likeliest(f"{ask[0]} {langs}", tests)
    python = all(f.endswith(".py") for f in named_files) and re.search(r"pytest|unittest", pick)
    return "exec", {"command": " ".join([pick, *named_files]) if python else pick}


def shown(typed: str, call: tuple[str, dict], seen: list[Event]) -> str:
    """The reply for a test run the whole message asked for: the run's output (``loop.shown``)."""
    from nanobot.loop.shown import look_result, shown_reply

    if call[0] != "exec" or not (ask := _ask(typed)) or not ask[1] or (result := look_result(seen, "exec")) is None:
        return ""
    return shown_reply("exec", call[1], *result)


def _agrees(reply: str, real: Counts) -> bool:
    said: dict[str, int] = {}
    for n, word in _STATED.findall(reply):
        key = {"passing": "passed", "failing": "failed", "error": "errors"}.get(word.lower(), word.lower())
        said[key] = int(n)
    wanted = {k: v for k, v in real.model_dump().items() if v}
    return bool(said) and all(said.get(k) == v for k, v in wanted.items()) and all(
        real.model_dump().get(k) == v for k, v in said.items())


def counted(events: Iterator[Event]) -> Iterator[Event]:
    """The turn's events, its reply ending with the counts of the last test run when it does not state them."""
    command, last = "", None
    for ev in events:
        if isinstance(ev, ToolCall) and ev.name == "exec":
            command = command_of(ev.arguments)
        elif isinstance(ev, ToolResult) and ev.name == "exec":
            found = counts(ev.text) if ev.ok and is_runner(command) else None
            last = (command, ev.text.partition("\n")[0], found) if found else last
        elif isinstance(ev, TurnDone) and last and not _agrees(ev.reply, last[2]):
            line = f"Test run `{last[0]}` ({last[1]}): {last[2].line()}."
            yield TextDelta(text=f"\n\n{line}" if ev.reply.strip() else line)
            ev = ev.model_copy(update={"reply": f"{ev.reply}\n\n{line}".strip()})
        yield ev
