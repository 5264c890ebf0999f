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
- ``tested``: after a turn whose change to a code file succeeded, where the roots hold test files of that
  code's language and the user asked for a fix -- the model's repair classifier sure (``loop.judge``), or
  its change judgement sure on a message naming a test the test files define ("make test_shout pass") --
  the allowed test command for that language runs once, after the change, and ``counted`` ends the reply
  with its counts: a tool run, no model reply more. Where no test command for that language is allowed,
  one line says the tests were not run and gives the ``exec_allow`` line that allows one; where the turn's
  seconds are spent (``loop.budget``), one line says they were not run. Facts first (a change made, tests
  there), the judgements only then; a test run after the change in the turn already is the one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.core.events import Event, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.core.features import Agent
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
# the command a language's tests commonly run with, for the line that says how to allow one
_PROPOSED = {".py": "python3 -m pytest", ".js": "npm test", ".ts": "npm test", ".go": "go test ./...",
             ".rs": "cargo test", ".sh": "make test", ".bats": "bats .", ".rb": "bundle exec rspec"}
_STATED = re.compile(r"(\d+)\s+(?:\w+\s+){0,2}?(passed|failed|passing|failing|errors?|skipped)\b", re.I)


def _allow(agent: Agent) -> list[str]:
    from nanobot.tools.gitexec import unasked

    return unasked(agent.settings.tools)


def fixed(call: tuple[str, dict] | None, agent: Agent) -> tuple[str, dict] | None:
    """``call`` with an ``exec`` command made the allowed one it means (see the module docstring)."""
    if call is None or call[0] != "exec" or not (args := repaired(call[1], _allow(agent))):
        return call
    return "exec", {k: v for k, v in call[1].items() if k not in ("args", "argv", "cmd")} | args


def _tests(agent: Agent) -> list[str]:
    from nanobot.tools.named import entries, roots_of

    return [rel for rel, kind in entries(roots_of(agent.settings)).items() if kind == "file" and test_file(rel)]


def _ask(typed: str) -> tuple[str, bool] | None:
    """The object of the message's run form and whether the form is the whole message."""
    from nanobot.loop.explicit import _RUN, _command

    if not (m := _RUN.search(typed)):
        return None
    phrase = _command(m.group(1))
    return phrase, not typed[:m.start()].strip() and m.group(1).strip().rstrip(" .!?").strip() == phrase


def asked(typed: str, agent: Agent) -> tuple[str, dict] | None:
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


def _language(path: str) -> set[str]:
    """The runners of ``path``'s language (``_LANGS``): two files whose runners meet are one language."""
    return set(_LANGS.get(Path(path).suffix.lower(), "").split())


def _changed_code(agent: Agent, call: ToolCall, result: ToolResult) -> str:
    """The code file a call that succeeded changed (its ``path`` target); "" for none."""
    from nanobot.tools.effects import Effect, effects_of, targets

    tool = agent.tool_runner.tools.get(call.name) if agent.tool_runner is not None else None
    if tool is None or not result.ok or Effect.CHANGES not in effects_of(tool, call.arguments):
        return ""
    path = next((text for what, text in targets(tool, call.arguments) if what == "path"), "")
    return path if _language(path) else ""


def _names_a_test(typed: str, files: list[Path]) -> bool:
    """Whether the message names one of the test files, or a function one of them defines."""
    words = set(re.findall(r"[\w.-]+", typed))
    if any(f.name in words for f in files):
        return True
    names = "|".join(re.escape(w) for w in words if re.fullmatch(r"[A-Za-z_]\w{3,}", w))
    for f in files[:200] if names else []:
        try:
            text = read_regular(f, 200_000).decode("utf-8", "replace")
        except (OSError, ValueError):
            continue
        if re.search(rf"\b(?:def|func|fn|function)\s+(?:{names})\s*\(", text):
            return True
    return False


def fix_asked(typed: str, agent: Agent, files: list[Path]) -> bool:
    """Whether the user asked for a fix: the repair classifier's sure yes, or the change judgement's
    on a message naming a test of ``files``; False where the model cannot say (a server backend)."""
    from nanobot.loop.judge import asks

    return asks(agent, "repair", typed) is True or (_names_a_test(typed, files) and asks(agent, "change", typed) is True)


def _run(agent: Agent, command: str) -> Generator[Event, None, tuple[bool, str]]:
    """``exec`` of ``command`` as nanobot's own call: validated, run, in the transcript; returns (ok, result)."""
    from nanobot.tools.validate import validate

    runner, raw = agent.tool_runner, json.dumps({"command": command})
    valid, error = validate(runner.tools["exec"], raw)
    if valid is None:
        yield ToolResult(name="exec", ok=False, text=error)
        return False, error
    runner._record(agent, "call", "exec", raw)
    ok, text = yield from runner.run_valid(agent, "exec", valid)
    runner._record(agent, "result", "exec", text, ok=ok)
    agent.provenance.looked.append(text)  # the run's output is no word of the user's
    return ok, text


def _after(agent: Agent, typed: str, changed: str) -> Iterator[Event]:
    """The test run after the change to ``changed`` (its events), or the one line saying why none ran."""
    from nanobot.tools.named import roots_of

    rels = [f for f in _tests(agent) if _language(f) & _language(changed)]
    files = [root / f for f in rels for root in roots_of(agent.settings) if (root / f).is_file()]
    if not files or "exec" not in agent.tool_names() or not fix_asked(typed, agent, files):
        return
    mine = [t for t in test_commands(_allow(agent)) if _language(changed) & {w.rsplit("/", 1)[-1] for w in t.split()}]
    if not mine:
        allow = [*agent.settings.tools.exec_allow, _PROPOSED[Path(changed).suffix.lower()]]
        line = ("Tests not run: no test command is allowed; to run them after a fix, put this under [tools] "
                f"in {agent.settings.config_path}: exec_allow = {json.dumps(allow)}")
    elif agent.budget.elapsed >= agent.budget.seconds:
        line = f"Tests not run: this turn's budget of {agent.budget.seconds:g} s is spent (`{mine[0]}` runs them)."
    else:
        pick = likeliest(f"{changed} {' '.join(_language(changed))}", mine)
        ok, text = yield from _run(agent, pick)
        if ok and counts(text):
            return  # ``counted`` ends the reply with the counts
        line = f"Test run `{pick}` after the change: {(text.splitlines() or [''])[0]}."
    yield TextDelta(text=line)


def tested(agent: Agent, typed: str, events: Iterator[Event]) -> Iterator[Event]:
    """The turn's events, with the test run after a fix (``_after``) before its end; see the module docstring."""
    changed, call = "", None
    for ev in events:
        if isinstance(ev, ToolCall):
            call = ev
        elif isinstance(ev, ToolResult) and call is not None and call.name == ev.name:
            if ev.name == "exec" and is_runner(command_of(call.arguments)):
                changed = ""  # the tests ran after the change already
            changed = _changed_code(agent, call, ev) or changed
        elif isinstance(ev, TurnDone) and changed and not ev.shown:
            line = ""
            for extra in _after(agent, typed, changed):
                if isinstance(extra, TextDelta):
                    line = extra.text
                    extra = TextDelta(text=f"\n\n{line}" if ev.reply.strip() else line)
                yield extra
            ev = ev.model_copy(update={"reply": f"{ev.reply}\n\n{line}".strip()}) if line else ev
        yield ev
