"""What a tool call does to the world, declared on the tool: the call policy
(``nanobot.loop.callpolicy``) and the reply checks (``nanobot.loop.replycheck``) read these
declarations, never a list of tool names, so a tool nobody listed is guarded by default.

- ``LOOKS``: shows a local file, a folder or what is on disk (read_file, list_dir).
- ``RUNS``: runs a command (exec): its output is a look; a command that writes also ``CHANGES``.
- ``CHANGES``: changes something the user keeps (a file, a task, a scheduled job, another system).
- ``REMEMBERS``: adds to nanobot's memory (memory_add, a scratchpad append).
- ``SEARCHES``: finds text that is not a local file or a command's output (memory, web, task list).

A tool declares ``effects`` (or ``effects_for(args)`` when its action decides) and ``target_args``
(argument name -> what it is: "path", "command", "text to replace"). A tool that declares nothing is
taken to change (``UNDECLARED``): it is guarded until it says otherwise.

>>> class Stamp: name = "stamp"   # a new tool that declares nothing
>>> changes(Stamp(), None), looks(Stamp(), None)
(True, False)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Effect(StrEnum):
    LOOKS = "looks"
    RUNS = "runs"
    CHANGES = "changes"
    REMEMBERS = "remembers"
    SEARCHES = "searches"


UNDECLARED = frozenset({Effect.CHANGES})
LOOKING = frozenset({Effect.LOOKS, Effect.RUNS})  # what a tool a question about this computer calls declares


def effects_of(tool: Any, args: Any = None) -> frozenset[Effect]:
    """The effects of calling ``tool`` with ``args`` (a pydantic model, a dict or None)."""
    fn = getattr(tool, "effects_for", None)
    if callable(fn):
        return frozenset(fn(args))
    return declared(tool)


ANY_LOOK = "(a looking tool)"  # a reply check's retry tool (``CheckResult.tool``): the one the runner picks


def declared(tool: Any) -> frozenset[Effect]:
    """The tool's own declaration, whatever the call; a tool with none that says it is read-only (an
    MCP tool's ``readOnlyHint``) searches, any other is ``UNDECLARED``."""
    if hasattr(tool, "effects"):
        return frozenset(tool.effects)
    return frozenset({Effect.SEARCHES}) if getattr(tool, "read_only", False) else UNDECLARED


def arg(args: Any, key: str, default: Any = "") -> Any:
    """An argument's value from a pydantic model or a dict."""
    if isinstance(args, dict):
        return args.get(key, default)
    return getattr(args, key, default)


def changes(tool: Any, args: Any) -> bool:
    """Whether the call changes something the user keeps (memory included)."""
    return bool(effects_of(tool, args) & {Effect.CHANGES, Effect.REMEMBERS})


def looks(tool: Any, args: Any) -> bool:
    """Whether the call shows a local file, folder or command output."""
    return bool(effects_of(tool, args) & {Effect.LOOKS, Effect.RUNS})


def targets(tool: Any, args: Any) -> list[tuple[str, str]]:
    """(what, text) pairs a changing call acts on: its declared target arguments, else every string
    argument of 8 characters or more (a task's title, an MCP tool's fields)."""
    declared = getattr(tool, "target_args", None)
    if declared:
        return [(what, str(arg(args, key))) for key, what in declared.items() if arg(args, key)]
    return [("text", t) for t in texts(args) if len(t.strip()) >= 8]


def texts(args: Any) -> list[str]:
    """The string values of a call's arguments."""
    data = args.model_dump() if hasattr(args, "model_dump") else args
    if isinstance(data, dict):
        return [t for v in data.values() for t in texts(v)]
    if isinstance(data, list):
        return [t for v in data for t in texts(v)]
    return [data] if isinstance(data, str) else []
