"""What the user asked for in so many words, done by nanobot first instead of asking a small model to
pick it: a call spelled out (a run, a read, an edit with both texts quoted, a file to create); a look
that is the whole message, its result shown as the reply; and a test run, whose real counts the reply
states.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.core.asks import FILE_NAME
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
from nanobot.tools.testcounts import Counts, counts, failing

# A call the user spelled out, or a run the user asked for: nanobot makes it first, instead of
# asking a small model to pick it, through the path of a call the model wrote as text
# (``written.run_written``: validated, the call policy and the exec permission applied); the model
# answers from its result.
#
# - ``explicit``: "run python3 calc.py", "read calc.py", "In todo.md replace 'a' with 'b'"
#   (``spelled_edit``), "create a file hello.txt containing: ...": the tool and its whole arguments, in
#   the message's words. Only what the user typed counts: a command is a word naming a program on this
#   machine (``shutil.which``) or a path to one, so "run a marathon" is no call. These patterns are
#   English; ``loop.runasked`` is how a run is asked for in any language.
# - ``loop.runasked``: an allowed command line the message types, in any language ("Draai head -n 4
#   hives.csv: ..."), or a program file it names where the model judges that the message asks for it to
#   be run (``judge``'s "run" classifier).

_RUN = re.compile(r"(?:^|[\s.?!,;:])(?:please\s+|now\s+|can you\s+|could you\s+)?(?:run|execute)\s+"
                  r"(?:the\s+command\s+)?(`[^`\n]+`|[^\s`][^\n]*)", re.I)
_WRITE = re.compile(r"\b(?:create|write|make)\s+(?:a\s+|the\s+)?(?:new\s+)?file\s+(?:called\s+|named\s+)?"
                    r"[`'\"]?([\w./-]+\.\w+)[`'\"]?\s+(?:containing|with\s+(?:the\s+)?(?:content|text))\s*:?\s*(.+)$",
                    re.I | re.S)


# "read calc.py", "show me todo.md", "alice: read greet.py please": the whole message asks to see one file
_READ = re.compile(r"^(?:[\w.-]+:\s+)?(?:please\s+|now\s+|can you\s+|could you\s+)?(?:read|show(?:\s+me)?|open|display)\s+"
                   rf"(?:the\s+)?(?:file\s+)?[`'\"]?((?:~?/|\./)?{FILE_NAME})[`'\"]?"
                   r"(?:\s+please)?\s*[.!?]?\s*$", re.I)
_PROSE = re.compile(r"\.\s|\?|!|,\s+(?:and|then)\b|\s+(?:and|then)\s+(?:tell|show|explain|let|say|report|give|"
                    r"fix|see|check|summari[sz]e|paste|print me)\b", re.I)


def _command(text: str) -> str:
    """The command line as typed: backticks dropped, the prose after it ("... and tell me what
    fails", the next sentence) and a sentence's end trimmed."""
    text = text.strip()
    if text.startswith("`"):
        return text.strip("`").strip()
    if m := _PROSE.search(text):
        text = text[:m.start()]
    return text.rstrip(" .!?").strip()


def _is_program(word: str) -> bool:
    return word.startswith(("./", "../")) or shutil.which(word) is not None


def explicit(user_text: str, offered: list[str]) -> tuple[str, dict] | None:
    """(tool, arguments) of the call ``user_text`` spells out, when that tool is offered; else None.

    >>> explicit("run python3 calc.py", ["exec"])
    ('exec', {'command': 'python3 calc.py'})
    >>> explicit("How many lines does notes.txt have? Run wc -l notes.txt", ["exec"])
    ('exec', {'command': 'wc -l notes.txt'})
    >>> explicit("Please run pytest and tell me what fails", ["exec"])
    ('exec', {'command': 'pytest'})
    >>> explicit("Create a file hello.txt containing: Hello world", ["write_file"])
    ('write_file', {'path': 'hello.txt', 'content': 'Hello world'})
    >>> explicit("alice: read greet.py please", ["read_file"]), explicit("show me todo.md", ["read_file"])
    (('read_file', {'path': 'greet.py'}), ('read_file', {'path': 'todo.md'}))
    >>> explicit("run a marathon with me", ["exec"]), explicit("run date", ["read_file"])
    (None, None)
    >>> explicit("read calc.py and explain sub", ["read_file"]), explicit("show me how to open a.txt", ["read_file"])
    (None, None)
    """
    if "exec" in offered:
        for m in _RUN.finditer(user_text):
            command = _command(m.group(1))
            if command and _is_program(command.split()[0]):
                return "exec", {"command": command}
    if "read_file" in offered and (m := _READ.search(user_text.strip())):
        return "read_file", {"path": m.group(1)}
    if "write_file" in offered and (m := _WRITE.search(user_text.strip())):
        return "write_file", {"path": m.group(1), "content": m.group(2).strip()}
    if "edit_file" in offered and (args := spelled_edit(user_text)):  # spelled_edit
        return "edit_file", args
    return None


# An edit the user spelled out: a file, the text to replace and its replacement, both quoted.
#
# "In todo.md replace 'buy milk' with 'buy oat milk'", "replace `DEBUG = False` with `DEBUG = True` in
# settings.py", "in notes.txt, change "5pm" to "6pm"": the message holds a whole ``edit_file`` call,
# which a small model may send elsewhere (todo.md read as the task board). ``explicit``
# makes such a call first, as it does "read X" and "run X"; the edit
# still goes through the call policy and the tool (the old text must be in the file).

_FILE = rf"[`'\"]?(?P<path>(?:~?/|\./)?{FILE_NAME})[`'\"]?"
_SWAP = (r"(?:replace|change|substitute)\s+(?P<q>['\"`])(?P<old>.+?)(?P=q)\s+(?:with|to|by)\s+"
         r"(?P<r>['\"`])(?P<new>.*?)(?P=r)")
_EDIT_LEAD = r"^(?:[\w.-]+:\s+)?(?:please\s+)?"  # a team chat's "alice: "
_END = r"(?:\s+please)?\s*[.!]?\s*$"
_FORMS = (re.compile(rf"{_EDIT_LEAD}in\s+(?:the\s+file\s+)?{_FILE},?\s+(?:please\s+)?{_SWAP}{_END}", re.I | re.S),
          re.compile(rf"{_EDIT_LEAD}{_SWAP}\s+in\s+(?:the\s+file\s+)?{_FILE}{_END}", re.I | re.S))


def spelled_edit(user_text: str) -> dict | None:
    """edit_file's arguments when the whole message spells out one replacement in one file; else None.

    >>> spelled_edit("In todo.md replace 'buy milk' with 'buy oat milk'")
    {'path': 'todo.md', 'old': 'buy milk', 'new': 'buy oat milk'}
    >>> spelled_edit('bob: please change "5pm" to "6pm" in notes.txt.')
    {'path': 'notes.txt', 'old': '5pm', 'new': '6pm'}
    >>> spelled_edit("replace milk with oat milk in todo.md"), spelled_edit("In todo.md, what should replace 'a'?")
    (None, None)
    """
    for form in _FORMS:
        if m := form.match(user_text.strip()):
            return {"path": m.group("path"), "old": m.group("old"), "new": m.group("new")}
    return None


# A look the user spelled out and nothing else: its result is the reply, shown by nanobot.
#
# "show me todo.md", "read calc.py", "run date", "now run python3 calc.py": the whole message asks to
# see one file or one command's output, and ``explicit`` has already made that call. A
# terminal answers such a line with the output itself; so does nanobot, instead of asking the model to
# retell it: a small model's retelling adds mistakes (an earlier turn's answer, a vague summary of a
# listing) and costs a model reply for nothing the output does not say. A message with more in it ("run
# pytest and tell me what fails", "How many lines does notes.txt have? Run wc -l notes.txt", "Summarize
# notes.txt") is still answered by the model.
#
# The reply names what was shown (the path and its line range, or the command and its exit status) on
# one line, then the output verbatim; the CLI prints it as text (``printable``: no terminal markup or
# control codes). A look that failed is reported as the tool's error.

_LEAD = re.compile(r"^(?:[\w.-]+:\s+)?(?:please\s+|now\s+|ok(?:ay)?,?\s+|can you\s+|could you\s+)*"
                   r"(?:run|execute)\s+(?:the\s+command\s+)?", re.I)
_READ_HEAD = re.compile(r"\A(\S+) (lines \d+-\d+ of \d+)\n?")
_EXIT_HEAD = re.compile(r"\Aexit (-?\d+)\n?")
_MORE = re.compile(r"\n\[more: read_file start=(\d+)\]\Z")  # read_file's pointer to the next lines, for the model


def only_look(user_text: str, call: tuple[str, dict]) -> bool:
    """Whether ``user_text`` is nothing but the spelled-out look ``call`` (``explicit``'s answer).

    >>> only_look("run date", ("exec", {"command": "date"}))
    True
    >>> only_look("alice: read greet.py please", ("read_file", {"path": "greet.py"}))
    True
    >>> only_look("How many lines? Run wc -l notes.txt", ("exec", {"command": "wc -l notes.txt"}))
    False
    """
    name, args = call
    if name == "read_file":
        return True  # explicit's read form is the whole message already
    if name != "exec":
        return False
    rest = _LEAD.sub("", user_text.strip(), count=1).strip().rstrip(" .!?").strip()
    rest = re.sub(r"\s+please$", "", rest, flags=re.I).strip("`").strip()
    return rest == args.get("command", "").strip()


def shown_reply(name: str, args: dict, ok: bool, text: str) -> str:
    """The reply for a look the user spelled out: a one-line caption, then the output as it came.

    >>> print(shown_reply("read_file", {"path": "todo.md"}, True, "todo.md lines 1-2 of 2\\n# Todo\\n- milk"))
    todo.md (lines 1-2 of 2):
    # Todo
    - milk
    >>> print(shown_reply("exec", {"command": "date"}, True, "exit 0\\nWed Nov 25"))
    `date` (exit 0):
    Wed Nov 25
    """
    if not ok:
        return f"{name} failed: {text.strip()}"
    if name == "read_file":
        if m := _READ_HEAD.match(text):
            path, body = m.group(1), text[m.end():].rstrip()
            body = _MORE.sub(lambda n: f"\n[more from line {n[1]}: ask to read {path} from line {n[1]}]", body)
            return f"{path} ({m.group(2)}):\n{body}"
        return text.strip()  # "x.txt: empty file"
    m = _EXIT_HEAD.match(text)
    code, body = (m.group(1), text[m.end():].rstrip()) if m else ("?", text.rstrip())
    return f"`{args.get('command', '')}` (exit {code}):\n{body or '(no output)'}"


def look_result(seen: list, name: str) -> tuple[bool, str] | None:
    """(ok, text) of the last ``name`` result among a turn's events; None when it did not run."""
    for ev in reversed(seen):
        if getattr(ev, "kind", "") == "tool_result" and ev.name == name:
            return ev.ok, ev.text
    return None


_CAPTION = re.compile(r"^\s*(?:`[^`\n]+` \(exit -?\d+\)|\S+ \(lines \d+-\d+ of \d+\)):\s*$", re.M)


def imitates(reply: str) -> bool:
    """Whether a model's reply holds the caption nanobot puts over a look it shows: copied from the
    history over output of its own, it would pass invented output off as a tool's.

    >>> imitates("`python3 calc.py` (exit 0):\\n42"), imitates("Run `ls` (exit code 0 means success).")
    (True, False)
    """
    return bool(_CAPTION.search(reply))


def uncaptioned(reply: str) -> str:
    """A shown reply as the model's history keeps it: the output without nanobot's caption. The output
    stays, so a follow-up ("What time should I call Bob?" after "show me notes.txt") is answered from
    it; the caption goes, so the model does not learn to write it over contents of its own.

    >>> uncaptioned("notes.txt (lines 1-1 of 1):\\nCall Bob at 5pm."), uncaptioned("read_file failed: no such file")
    ('Call Bob at 5pm.', 'read_file failed: no such file')
    """
    first, _, rest = reply.partition("\n")
    return rest if _CAPTION.fullmatch(first) else reply


def direct(user_text: str, call: tuple[str, dict], seen: list) -> str:
    """The reply nanobot shows for a spelled-out look that is the whole message; "" otherwise."""
    if not only_look(user_text, call) or (result := look_result(seen, call[0])) is None:
        return ""
    ran = next((e.arguments for e in reversed(seen) if getattr(e, "kind", "") == "tool_call" and e.name == call[0]),
               call[1])  # as it ran (``tools.cmdtail``: the sentence's rest cut off)
    return shown_reply(call[0], ran, *result)


# A test run in a turn: "run the tests" runs the test command ``tools.exec_allow`` holds, and the reply
# says the run's real counts.
#
# - ``asked``: a message whose run form (``explicit``'s "run X") names the tests -- the roots' test
#   files by the name they share (``test`` of ``test_calc.py``, ``tests`` of ``tests/``; a runner's
#   convention, a fact of the files), a test file by its name, or the allowed runner itself -- makes the
#   call of the allowed test command (the one for the test files' language where there are several),
#   with the test files it names. ``checkedturn`` runs it as a call the user spelled out; where the
#   message is that ask alone, the run's output is the reply (``shown``), as for a look (``shown_reply``). A
#   message that also asks for a change (``callpolicy.change_asked``) is the model's: the change first.
# - ``fixed``: an ``exec`` call the model wrote as text, or proposed, is made the allowed command it
#   means (``tools.testcommand.repaired``: ``args`` joined, ``git test`` made the test command).
# - ``counted``: after a test command ran, a reply that does not state the run's counts ends with them
#   (``tools.testcounts``), so a retelling cannot leave invented figures standing alone.
# - ``tested``: after a turn whose change to a code file succeeded, where the roots hold test files of that
#   code's language and the user asked for a fix -- the model's repair classifier sure (``loop.judge``), or
#   its change judgement sure on a message naming a test the test files define ("make test_shout pass") --
#   the allowed test command for that language runs once, after the change, and ``counted`` ends the reply
#   with its counts: a tool run, no model reply more. Where no test command for that language is allowed,
#   one line says the tests were not run and gives the ``exec_allow`` line that allows one; where the turn's
#   seconds are spent (``loop.budget``), one line says they were not run. Facts first (a change made, tests
#   there), the judgements only then; a test run after the change in the turn already is the one. A
#   change to a test file itself ("add a test for X") is followed by the same run, fix asked or not: the
#   reply says whether the new test passes.

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
    if not (m := _RUN.search(typed)):
        return None
    phrase = _command(m.group(1))
    return phrase, not typed[:m.start()].strip() and m.group(1).strip().rstrip(" .!?").strip() == phrase


def asked(typed: str, agent: Agent) -> tuple[str, dict] | None:
    """The allowed test command's ``exec`` call where the message asks to run the tests: in the English
    run form ("run the tests"), or in any words the model's run classifier is sure ask for a run
    ("Führ die Tests aus", "Lance les tests"), when the message names a test file, a runner or a word the
    test files' names share ("tests", "Tests", "testes"), or, for the classifier's sure run, names nothing
    in the roots at all ("Ejecuta las pruebas": the allowed test command is then the one thing to run);
    else None. A change asked with it ("add a test ... and run the tests") comes first: the model's,
    unless the run classifier is surer of the run than the change classifier of a change."""
    from nanobot.loop.callpolicy import change_asked
    from nanobot.loop.judge import asks
    from nanobot.tools.named import named, roots_of

    if "exec" not in agent.tool_names() or not (tests := test_commands(_allow(agent))):
        return None
    ask = _ask(typed)
    files = _tests(agent)
    words = set(re.findall(r"[\w.-]+", (ask[0] if ask else typed).lower()))
    shared = set.intersection(*(set(re.split(r"[\W_]+", f.lower())) for f in files)) if files else set()
    runners = {w for t in tests for w in t.split() if not w.startswith("-")}
    named_files = [f for f in files if f.lower() in words or Path(f).name.lower() in words]
    if not (named_files or words & runners or any(w.startswith(s) for w in words for s in shared if len(s) >= 4)
            or (ask is None and files and not named(typed, roots_of(agent.settings)))):
        return None
    if ask is None and asks(agent, "run", typed) is not True:  # no English run form: the model's sure judgement
        return None
    if not (ask and ask[1]) and not (ask is None and _run_surer(agent)) and change_asked(typed, agent):
        return None  # the change first
    langs = " ".join(_LANGS.get(Path(f).suffix, "") for f in named_files or files)
    pick = likeliest(f"{ask[0] if ask else typed} {langs}", tests)
    python = all(f.endswith(".py") for f in named_files) and re.search(r"pytest|unittest", pick)
    return "exec", {"command": " ".join([pick, *named_files]) if python else pick}


def _run_surer(agent: Agent) -> bool:
    """Whether the model's run classifier is surer of a run than its change classifier of a change."""
    from nanobot.loop.judge import judge_of

    judge = judge_of(agent)
    run_p, change_p = judge.probability(agent, "run"), judge.probability(agent, "change")
    return run_p is not None and change_p is not None and run_p > change_p


def shown(typed: str, call: tuple[str, dict], seen: list[Event]) -> str:
    """The reply for a test run the whole message asked for: the run's output (``shown_reply``)."""
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
            last = (command, ev.text, found) if found else last
        elif isinstance(ev, TurnDone) and last and not _agrees(ev.reply, last[2]):
            names = failing(last[1]) if last[2].failed or last[2].errors else []
            line = f"Test run `{last[0]}` ({last[1].partition(chr(10))[0]}): {last[2].line()}." + (
                f" Failing: {'; '.join(names)}." if names else "")
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
    if not files or "exec" not in agent.tool_names() or not (test_file(changed) or fix_asked(typed, agent, files)):
        return  # a test written or a fix asked: the tests run once after it
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
