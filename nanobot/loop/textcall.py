"""A tool call the model wrote as text in its reply (``{"name": "exec", "arguments": {...}}``).

A template-tool model sometimes answers a request with its call spelled out in the reply instead
of calling (the step decided to answer, the model still meant to call). Shown as it is, the user
gets JSON and nothing ran; kept in the history, later turns copy it. The reply checks
(``nanobot.loop.replycheck``) catch such a reply; ``Agent._checked`` then runs the call through
``run_written``: the name must be an offered tool, the arguments are validated by the tool's
``Args`` (keys the tool does not have are dropped: the model's extras, like ``cwd``), and the call
runs like any other -- the call policy included -- before the reply is asked for again with the
result in front of the model, in a note on the user's message (a note, not the template's own call
and result messages: after those a small model tends to answer with another call's opening).

A model may also write the call as Python (``edit_file(path="a.py", old="x", new="y")``): keyword
arguments with literal values only, so code that merely mentions a tool's name is no call; or as the
tool's name followed, on the same line, by a JSON object of its arguments (``tools: memory_add,
arguments: {"text": ...}``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator

from nanobot.backends.base import Message
from nanobot.core.events import Event, ToolResult
from nanobot.core.features import Agent
from nanobot.tools.validate import validate

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
    from nanobot.loop.testrun import fixed

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
        ok, text = yield from runner.run_valid(agent, name, valid)
        args = valid.model_dump(mode="json")
    runner._record(agent, "result", name, text, ok=ok)
    last = messages[-1]
    label = "result" if ok else "error"
    note = (f"[tool {name} {json.dumps(args)} {label}]\n{text}\n\n[nanobot: {ran}; answer the "
            "user in plain text from its result above.]")
    return [*messages[:-1], Message(role=last.role, content=f"{last.content}\n\n{note}")]
