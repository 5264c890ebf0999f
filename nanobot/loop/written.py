"""What a reply wrote instead of calling, made as the call it describes: a call spelled out as text
(``written``, ``run_written``), a change written as code or as the file's lines with some added
(``reply_edit``, ``lines_edit``), and a command the reply tells the user to run (``reply_command``).
``nanobot.loop.checkedturn`` runs each like a call the model made, under the call policy.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
from collections.abc import Iterator
from typing import Any

from nanobot.backends.base import Message
from nanobot.core.events import Event, ToolCall, ToolResult
from nanobot.core.features import Agent
from nanobot.core.provenance import call_key
from nanobot.tools.cmdtail import cut_at_rejected
from nanobot.tools.pydefs import _DEFS  # the definitions edit_file replaces whole
from nanobot.tools.validate import validate

# A tool call the model wrote as text in its reply (``{"name": "exec", "arguments": {...}}``).
#
# A template-tool model sometimes answers a request with its call spelled out in the reply instead
# of calling (the step decided to answer, the model still meant to call). Shown as it is, the user
# gets JSON and nothing ran; kept in the history, later turns copy it. The reply checks
# (``nanobot.loop.replycheck``) catch such a reply; ``Agent._checked`` then runs the call through
# ``run_written``: the name must be an offered tool, the arguments are validated by the tool's
# ``Args`` (keys the tool does not have are dropped: the model's extras, like ``cwd``), and the call
# runs like any other -- the call policy included -- before the reply is asked for again with the
# result in front of the model, in a note on the user's message (a note, not the template's own call
# and result messages: after those a small model tends to answer with another call's opening).
#
# A model may also write the call as Python (``edit_file(path="a.py", old="x", new="y")``): keyword
# arguments with literal values only, so code that merely mentions a tool's name is no call; or as the
# tool's name followed, on the same line, by a JSON object of its arguments (``tools: memory_add,
# arguments: {"text": ...}``).

_OPEN = re.compile(r'\{\s*"name"\s*:')


def written(reply: str, names: list[str]) -> tuple[str, dict] | None:
    """(tool, arguments) of the first call of an offered tool written in ``reply``; None for none.

    >>> written('json: {"name": "exec", "arguments": {"command": "date", "cwd": "."}}', ["exec"])
    ('exec', {'command': 'date', 'cwd': '.'})
    >>> written('Sure: read_file(path="notes.txt")', ["read_file"])
    ('read_file', {'path': 'notes.txt'})
    >>> written('tools: memory_add, arguments: {"text": "My cat is Pixel."}', ["memory_add"])
    ('memory_add', {'text': 'My cat is Pixel.'})
    >>> written('use read_file(path) here', ["read_file"]) is None
    True
    >>> written('Use {"name": "rm"} carefully', ["exec"]) is None
    True
    """
    for m in _OPEN.finditer(reply):
        try:
            data, _ = json.JSONDecoder().raw_decode(reply[m.start():])
        except ValueError:
            continue
        args = data.get("arguments", data.get("parameters", {}))
        if data.get("name") in names and isinstance(args, dict):
            return data["name"], args
    return _python_call(reply, names) or _named_object(reply, names)


def _named_object(reply: str, names: list[str]) -> tuple[str, dict] | None:
    """(tool, arguments) of an offered tool's name followed on its line by a JSON object."""
    if not names:
        return None
    for m in re.finditer(rf"(?<![\w.])({'|'.join(map(re.escape, names))})(?![\w.])[^{{\n]{{0,40}}(?=\{{)", reply):
        try:
            data, _ = json.JSONDecoder().raw_decode(reply[m.end():])
        except ValueError:
            continue
        args = data.get("arguments", data) if isinstance(data, dict) else None
        if isinstance(args, dict) and args:
            return m.group(1), args
    return None


def _python_call(reply: str, names: list[str]) -> tuple[str, dict] | None:
    """(tool, arguments) of the first ``NAME(key=literal, ...)`` of an offered tool in ``reply``."""
    if not names:
        return None
    opens = re.compile(rf"(?<![\w.])({'|'.join(map(re.escape, names))})\s*\(")
    for m in opens.finditer(reply):
        for end in (i + 1 for i, ch in enumerate(reply) if ch == ")" and i > m.end() - 1):
            try:
                node = ast.parse(reply[m.start():end], mode="eval").body
            except SyntaxError:
                continue
            if isinstance(node, ast.Call) and not node.args and node.keywords:
                try:
                    return m.group(1), {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
                except (ValueError, TypeError, SyntaxError):
                    pass
            break
    return None


RAN = "the call you wrote ran"


def run_written(agent: Agent, name: str, args: dict, messages: list[Message], ran: str = RAN) -> Iterator[Event]:
    """Validate and run the written call; its outcome is appended to the last message (as the
    names path notes a call), so the retried reply is written from it. Returns the new messages.
    ``ran``: how the note to the model says where the call came from."""
    from nanobot.loop.spelled import fixed

    name, args = fixed((name, args), agent)  # an exec call's parts joined, a test run made the allowed one
    runner = agent.tool_runner
    tool = runner.tools[name]
    props = tool.parameters().get("properties") if hasattr(tool, "parameters") else None
    if isinstance(props, dict) and props and not tool.group:  # built-ins: drop extras
        args = {k: v for k, v in args.items() if k in props}
    valid, error = validate(tool, json.dumps(args))
    if valid is None:
        ok, text = False, error
        yield ToolResult(name=name, ok=False, text=text)
    else:
        args = valid.model_dump(mode="json")
        runner._record(agent, "call", name, json.dumps({"name": name, "arguments": args}), written=True)
        ok, text = yield from runner.run_valid(agent, name, valid)
        if name == "exec" and (cut := cut_at_rejected(args["command"], text)):  # the sentence's rest cut off
            args = {**args, "command": cut}
            ok, text = yield from runner.run_valid(agent, name, valid.model_copy(update={"command": cut}))
        agent.provenance.ran.add(call_key(name, args))
    runner._record(agent, "result", name, text, ok=ok)
    last = messages[-1]
    label = "result" if ok else "error"
    note = (f"[tool {name} {json.dumps(args)} {label}]\n{text}\n\n[nanobot: {ran}; answer the "
            "user in plain text from its result above.]")
    return [*messages[:-1], Message(role=last.role, content=f"{last.content}\n\n{note}")]


# A change written as code in the reply, made as the edit it describes.
#
# Asked "In calc.py, fix sub: it should return a - b", a small model often answers with the fixed
# function as its reply (``def sub(a, b):\n    return a - b``) and no call, or with a call whose
# arguments are worse than its reply. When the user asked for a change, the message names one Python file
# that exists in the roots, nothing changed this turn, and the reply's code holds top-level definitions
# that the file defines under the same names in another form, the reply is that change: each such
# definition is put in place of the file's as one ``edit_file`` call (``old`` the file's whole
# definition, ``new`` the reply's), run like a call the model wrote as text (``run_written``: the
# call policy and the loss guard included), and the reply is asked for again with the result in view.
# A definition the file lacks is added at its end (``append_file``) only when the user's message gives its
# name ("Add a function mul(a, b) ... to calc.py" answered with ``def mul(a, b): ...``) and its body is
# none of the file's (``def subtract`` with sub's body, for "rename sub to subtract", is no addition). Statements
# around definitions are never taken from a reply. These are facts (a named file, its parse tree, the reply's), in any
# language.

_FENCE = re.compile(r"```[\w+-]*\n(.*?)(?:```|$)", re.S)
_DEF_LINE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w", re.M)


def reply_edit(typed: str, reply: str, agent: Agent, seen: list[Event], asked: Any) -> tuple[str, dict] | None:
    """The ``edit_file`` call the reply's code describes, or None; ``asked()`` says whether the user
    asked for a change (called last: it may ask the model)."""
    if (not _DEF_LINE.search(reply) or "edit_file" not in agent.tool_names()
            or any(isinstance(e, ToolResult) and e.ok and e.name != "read_file" for e in seen)):
        return None  # no definition in the reply (most replies: no look at the roots), or a change ran
    from nanobot.tools.named import named, roots_of

    files = [n for n in named(typed, roots_of(agent.settings)) if n.kind == "file" and n.path.endswith(".py")]
    if len(files) != 1:
        return None
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    try:
        text = read_regular(resolve_in_roots(files[0].path, ToolContext.for_agent(agent))).decode("utf-8")
    except (ToolError, OSError, UnicodeDecodeError):
        return None
    change = _changed_defs(text, reply)
    if change is not None and asked():
        return "edit_file", {"path": files[0].path, "old": change[0], "new": change[1]}
    added = _named_new_def(text, reply, typed)
    if change is None and added and "append_file" in agent.tool_names() and asked():
        return "append_file", {"path": files[0].path, "text": added}
    return None


def _named_new_def(text: str, reply: str, typed: str) -> str:
    """The source of a top-level definition in the reply's code that the file lacks and whose name the
    user's message gives as a word ("Add a function mul(a, b) ..."); "" when there is none.

    >>> _named_new_def("def add(a, b):\\n    return a + b\\n", "```\\ndef mul(a, b):\\n    return a * b\\n```", "add mul to calc.py")
    'def mul(a, b):\\n    return a * b'
    """
    mine = _defs(text) or {}
    bodies = {_body(src) for src in mine.values()}
    for code in [*_FENCE.findall(reply), reply]:
        for name, source in (_defs(code) or {}).items():
            if name not in mine and _says(typed, name) and _body(source) not in bodies:
                return source
    return ""


def _body(source: str) -> str:
    """A definition's text after its first line, whitespace folded: a renamed copy has the same."""
    return " ".join(source.split("\n", 1)[-1].split()) if "\n" in source else ""


def _says(typed: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", typed) is not None


def _changed_defs(text: str, reply: str) -> tuple[str, str] | None:
    """(the file's definition, the reply's) for the first top-level definition of the reply's code that
    the file defines in another form; None when there is none.

    >>> calc = "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b\\n"
    >>> _changed_defs(calc, "def sub(a, b):\\n    return a - b\\n\\nprint(sub(40, 2))")
    ('def sub(a, b):\\n    return a + b', 'def sub(a, b):\\n    return a - b')
    >>> _changed_defs(calc, "def add(a, b):\\n    return a + b") is None  # the file's own code, explained
    True
    """
    mine = _defs(text)
    for code in [*_FENCE.findall(reply), reply]:
        for name, source in (_defs(code) or {}).items():
            if name in mine and " ".join(mine[name].split()) != " ".join(source.split()):
                return mine[name], source
    return None


def _defs(code: str) -> dict[str, str] | None:
    """Top-level definitions of ``code`` by name (their source), or None when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    return {n.name: ast.get_source_segment(code, n, padded=False) or "" for n in tree.body if isinstance(n, _DEFS)}


# Lines added in the reply's copy of a file, made as the edit it describes.
#
# Asked to add a line to a file, a small model often answers with the file's text, the line added, and
# no call. When the user asked for a change, the message names one file that exists in the roots (or one
# file was read this turn), nothing changed this turn, and the reply quotes at least ``ANCHORS`` of the
# file's lines word for word with a few lines added among them, the reply is that change: one
# ``edit_file`` call whose ``old`` is the line before the added ones and ``new`` that line and them, or
# ``append_file`` for lines a fenced copy of the file adds at its end. It runs like a call the model wrote
# as text (``run_written``: the call policy and the loss guard included). Only added lines are taken:
# a copy with a line changed ("Wendesday" corrected in a letter) is no edit here: a line a small model
# rewrites this way is more often a wrong rewrite that loses what the line held than the fix asked for.
# Prose around the quote is not taken: only lines between quoted ones, or lines after the end of a fenced
# copy. These are facts (a named file, its lines, the reply's) in any language.

ANCHORS = 2  # the file's non-blank lines the reply must quote word for word
MOST = 6  # the most lines a reply's change may touch: more is a rewrite, not an edit


def lines_edit(typed: str, reply: str, agent: Agent, seen: list[Event], asked: Any) -> tuple[str, dict] | None:
    """The call the reply's changed lines describe, or None; ``asked()`` says whether the user asked
    for a change (called last: it may ask the model)."""
    names = agent.tool_names()
    if "edit_file" not in names or any(isinstance(e, ToolResult) and e.ok and e.name != "read_file" for e in seen):
        return None
    path = _the_file(typed, agent, seen)
    if not path:
        return None
    from nanobot.base.errors import ToolError
    from nanobot.base.regular import read_regular
    from nanobot.tools.base import ToolContext
    from nanobot.tools.paths import resolve_in_roots

    try:
        text = read_regular(resolve_in_roots(path, ToolContext.for_agent(agent))).decode("utf-8")
    except (ToolError, OSError, UnicodeDecodeError, ValueError):
        return None
    change = rewrite(text, reply)
    if change is None or (change[0] == "append_file" and "append_file" not in names) or not asked():
        return None
    if change[0] == "append_file":
        return "append_file", {"path": path, "text": change[2]}
    return "edit_file", {"path": path, "old": change[1], "new": change[2]}


def _the_file(typed: str, agent: Agent, seen: list[Event]) -> str:
    """The one file the message names in the roots, else the one file read this turn; "" otherwise."""
    from nanobot.tools.named import named, roots_of

    files = {n.path for n in named(typed, roots_of(agent.settings)) if n.kind == "file"}
    if not files:
        call: dict = {}
        for e in seen:
            if isinstance(e, ToolCall):
                call = e.arguments if e.name == "read_file" else {}
            elif isinstance(e, ToolResult) and e.ok and e.name == "read_file" and call.get("path"):
                files.add(str(call["path"]))
    return files.pop() if len(files) == 1 else ""


def rewrite(text: str, reply: str) -> tuple[str, str, str] | None:
    """("edit_file", the line before the added ones, it and them) or ("append_file", "", the lines added
    at the end) for the lines the reply's copy of ``text`` adds (see above); None when it quotes too
    little, adds nothing, changes or drops a line, or adds too much.

    >>> log = "2024-05-02 basil out\\n2024-05-19 slugs\\n2024-05-30 rain\\n"
    >>> rewrite(log, "Sure:\\n2024-05-02 basil out\\n2024-05-19 slugs\\n2024-05-25 beans in\\n2024-05-30 rain")
    ('edit_file', '2024-05-19 slugs', '2024-05-19 slugs\\n2024-05-25 beans in')
    >>> rewrite(log, "2024-05-02 basil out\\n2024-05-19 slugs eaten\\n2024-05-30 rain") is None  # a line changed
    True
    """
    fences = _FENCE.findall(reply)
    fenced = len(fences) == 1  # a fenced copy is the file whole: lines after its end are added lines
    mine, theirs = text.splitlines(), (fences[0] if fenced else reply).strip("\n").splitlines()
    ops = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False).get_opcodes()
    equal = [op for op in ops if op[0] == "equal"]
    if sum(1 for _, i1, i2, _, _ in equal for line in mine[i1:i2] if line.strip()) < ANCHORS:
        return None
    first, last = ops.index(equal[0]), ops.index(equal[-1])
    kept = [op for k, op in enumerate(ops) if op[0] != "equal" and (first < k < last or _edge(op, mine, fenced, k > last))]
    kept = [op for op in kept if _words(mine[op[1]:op[2]]) != _words(theirs[op[3]:op[4]])]
    if any(op[0] != "insert" for op in kept):
        return None  # only lines added: a rewritten line can be a wrong rewrite of what it had to keep
    if not kept or sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in kept) > MOST or any(
            op[3] < op[4] and not any(re.search(r"\w", line) for line in theirs[op[3]:op[4]]) for op in kept):
        return None  # none, a rewrite, or lines left out of the quote ("...")
    i1, j1, i2, j2 = kept[0][1], kept[0][3], kept[-1][2], kept[-1][4]
    if i1 == len(mine) and fenced and len(kept) == 1:  # lines only added after the file's last
        return "append_file", "", "\n".join(theirs[j1:j2])
    if len(kept) == 1 and i1 > 0:  # lines added after a quoted line: that line, kept, and them
        i1, j1 = i1 - 1, j1 - 1
    old, new = "\n".join(mine[i1:i2]), "\n".join(theirs[j1:j2])
    return ("edit_file", old, new) if old.strip() and text.count(old) == 1 else None


def _edge(op: tuple, mine: list[str], fenced: bool, after: bool) -> bool:
    """Whether lines the reply adds before the quote's first line or after its last are the reply's
    (in a fenced copy, lines added at the file's end) and not prose around it."""
    return op[0] == "insert" and fenced and after and op[1] == len(mine)


def _words(lines: list[str]) -> list[str]:
    return " ".join(lines).split()


# A command the reply tells the user to run, run by nanobot when the user asked for it to be done.
#
# Asked "now make sure the tests still pass", a small model often answers "you can run the following
# command: ```sh python -m unittest``` ..." and runs nothing, though it can run commands. When nothing
# ran this turn, the model's own look judgement says the message asks for something read or run on
# this computer (``loop.judge``: a sure yes), and the reply's code holds one command line that ``exec``
# runs without asking (``tools.exec_allow``, read-only: ``tools.shell.writes``), that command runs as
# an ``exec`` call (``run_written``: the call policy and the exec permission applied) and the
# reply is asked for again with its output in view. A first word the allow list only has with a
# version is that form ("python" where "python3" is allowed, as the exec grammar offers it); a test run
# the allowed test command (``tools.testcommand``). A how-to
# question ("How do I run the tests?") is judged no look and keeps its answer. Facts of the reply and
# the allow list, and the model's probabilities; no word list.

_COMMAND_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)(```|\Z)", re.S)  # any language: the allow list decides


def proposed(reply: str, allow: list[str]) -> str:
    """The one command line the reply's fenced code holds that ``exec`` runs without asking, "" for none
    (no such block, two commands, one the allow list lacks, one that writes); of a block the reply's
    token limit cut, only its finished lines.

    >>> proposed("Run this:\\n\\n```sh\\npython -m unittest discover\\n```\\nIt runs all tests.", ["python3", "git status"])
    'python3 -m unittest discover'
    >>> proposed("```bash\\n$ git status\\n```", ["git status"]), proposed("```sh\\nrm -rf build\\n```", ["rm"])
    ('git status', '')
    >>> proposed("```sh\\npy calc.py\\n```", ["python3"]), proposed("```sh\\nc a.txt\\n```", ["cat"])  # no version: no form
    ('', '')
    >>> proposed("```sh\\npytest -q\\n```", ["python3 -m pytest"])  # a test run: the allowed test command
    'python3 -m pytest -q'
    >>> proposed("```python\\nprint(2 + 2)\\n```", ["python3"])  # code, not a command the allow list has
    ''
    >>> proposed("```\\ngit status\\ngit log\\n```", ["git status", "git log"])  # two commands: which one?
    ''
    >>> proposed("Run:\\n```sh\\ngit status\\n", ["git status"]), proposed("Run:\\n```sh\\ngit sta", ["git"])  # cut short
    ('git status', '')
    """
    from nanobot.tools.shell import allowed, writes
    from nanobot.tools.testcommand import repaired

    blocks = [body if end or body.endswith("\n") else body.rpartition("\n")[0]  # cut by max_tokens: its
              for body, end in _COMMAND_FENCE.findall(reply)]  # finished lines
    lines = [ln.strip().removeprefix("$ ").strip() for block in blocks for ln in block.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) != 1 or writes(lines[0]):
        return ""
    command = lines[0]
    if allowed(command, allow):
        return command
    first = command.split()[0]  # the same program with a version: "python" is "python3", "p" is nothing
    versions = sorted(e.split()[0] for e in allow if e.strip() and re.fullmatch(rf"{re.escape(first)}[\d.]+", e.split()[0]))
    fixed = f"{versions[0]}{command[len(first):]}" if versions else ""
    if fixed and allowed(fixed, allow):
        return fixed
    return (repaired({"command": command}, allow) or {}).get("command", "")  # a test run: the allowed test command


def reply_command(reply: str, agent: Agent, seen: list[Event]) -> tuple[str, dict] | None:
    """The ``exec`` call of the command the reply proposes (``proposed``), or None: something ran this
    turn already, exec is not offered, or the model does not judge the message an ask to read or run."""
    from nanobot.loop.judge import asks

    if "exec" not in agent.tool_names() or any(isinstance(e, ToolCall) for e in seen):
        return None
    from nanobot.tools.gitexec import unasked

    command = proposed(reply, unasked(agent.settings.tools))
    if not command or asks(agent, "look") is not True:
        return None
    return "exec", {"command": command}
