"""The call policy: checks on a validated, file-changing tool call before it runs.

Three rules, about what the user did and did not ask for:

1. **Retrieved, not asked.** The call's target path, the text it replaces or the command it runs
   occurs in retrieved text (a memory block, the system prompt's Context) while the user never
   mentioned it in this conversation and no tool showed it: it came from elsewhere (an observation
   of another chat, an old CONTEXT.md task).
2. **Nobody asked for a change.** The user's last two messages do not ask for a change to a file
   (a change word -- write, edit, fix, create, ... -- and a file: a path, "file", "folder"), and the
   user did not type the command itself: "What is 2+2?" never edits a file, "Write a haiku" writes
   none. A coding session is a request for changes.
3. **Not the file the user named.** The user's last two messages name files and the call writes or
   edits another one ("create hello.txt" neither edits todo.md nor writes your_file.txt). memory_add
   is such a call too when the user's message asks to change a file it names and not to remember
   anything ("Add a function mul(a, b) ... to calc.py" is no memory). Its refusal stays in the
   model's context: it names the file and the tools that change it.

Besides the file tools and exec, the tools that change state the user keeps go through rule 2 (with
their own request words) and rule 1 (their text must not come from retrieved text alone):
task_board's add/update/remove (the user's to-do list: a change word -- add, mark, done, remove -- about
a task, todo or the board, or about no file: "add milk"),
scratchpad's write/clear (they discard this session's notes; append, the tool's purpose, runs), cron's
add/remove (a job that runs later: the request schedules, reminds or says "every ...") and
every MCP tool the server does not mark read-only (``readOnlyHint``: a change in another system: a
change word in the request, or a word of the tool's own name: "ship the parcel" for ``demo.ship``). skill_manager only lists and loads skills: nothing to guard.

An interactive chat asks the user (``agent.confirm``); otherwise the call is refused with a message
to the model naming the reason and what to do instead. ``guard(tool)`` wraps a tool so its ``run``
checks first; the Agent wraps every tool it offers (``Agent.tool_runner``).
"""

from __future__ import annotations

import re
from typing import Any

from nanobot.base.errors import ToolError
from nanobot.core.provenance import FROM_RETRIEVED, NOT_ASKED, Provenance, unasked

CHANGING = {"write_file", "edit_file", "knowledge_apply", "exec", "task_board", "scratchpad", "cron", "memory_add"}
CHANGING_ACTIONS = {"task_board": {"add", "update", "remove"}, "scratchpad": {"write", "clear"},
                    "cron": {"add", "remove"}}
_CHANGE_WORDS = re.compile(
    r"\b(write|writes|create|make|save|edit|change|modify|fix|add|append|insert|update|replace|rename|"
    r"delete|remove|put|implement|refactor|correct|generate|rewrite|overwrite|commit|apply|set|"
    r"touch|move|copy|install|yes|ok|okay|go ahead|do it|please do|sure)\b", re.I)
_TASK_CHANGE = re.compile(r"\b(add|create|put|new|update|change|mark|move|set|finish|finished|complete|completed|done|"
                          r"remove|delete|drop|clear|track|yes|ok|okay|go ahead|do it|please do|sure)\b", re.I)
_TASK_WORDS = re.compile(r"\b(tasks?|to-?dos?|board|backlog)\b(?!\.\w)", re.I)  # todo.md is a file, not the board
_PAD_WORDS = re.compile(r"\b(scratch ?pad|notes?)\b", re.I)
_CRON_WORDS = re.compile(r"\b(schedule[sd]?|remind(?:er)?s?|every|daily|hourly|weekly|cron|jobs?|at \d)", re.I)
_REMEMBER = re.compile(r"\b(?:remember|memori[sz]e|memory|note|notes)\b", re.I)
_NAMED = re.compile(r"(?<![\w/.])(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b")
_FILE_WORDS = re.compile(r"\b(?:file|files|folder|directory|script|module|readme|config)\b|[\w-]+\.[A-Za-z][\w]{0,5}\b|/", re.I)
_WRITES = re.compile(r">|\btee\b|\brm\b|\bmv\b|\bcp\b|\bsed\s+-i|\btouch\b|\bmkdir\b|\bgit\s+(commit|checkout|reset|"
                     r"restore|rm|mv|apply|am|merge|rebase|push|clean|stash)\b|\bchmod\b|\bpip\s+install\b")


def targets(name: str, args: Any) -> list[tuple[str, str]]:
    """(what, text) pairs of a call that must not come from retrieved text alone."""
    if name in ("write_file", "edit_file", "knowledge_apply"):
        out = [("path", args.path)]
        if name == "edit_file":
            out.append(("text to replace", args.old))
        return out
    if name == "exec" and _WRITES.search(args.command):
        return [("command", args.command)]
    if changes(name, args) and name not in ("write_file", "edit_file", "knowledge_apply", "exec", "memory_add"):
        return [("text", t) for t in _texts(args) if len(t.strip()) >= 8]
    return []


def changes(name: str, args: Any, read_only: bool = False) -> bool:
    """Whether a call of ``name`` with ``args`` changes something the user keeps (see the docstring);
    ``read_only``: an MCP tool its server marks read-only."""
    if name in CHANGING_ACTIONS:
        return getattr(args, "action", "") in CHANGING_ACTIONS[name]
    if name == "exec":
        return bool(_WRITES.search(args.command))
    return name in CHANGING or ("." in name and not read_only)  # SERVER.TOOL: an MCP tool


def _texts(args: Any) -> list[str]:
    """The string values of a call's arguments (a task's title, an MCP tool's fields)."""
    data = args.model_dump() if hasattr(args, "model_dump") else args
    if isinstance(data, dict):
        return [t for v in data.values() for t in _texts(v)]
    if isinstance(data, list):
        return [t for v in data for t in _texts(v)]
    return [data] if isinstance(data, str) else []


def asked_for(name: str, said: list[str], coding: bool = False) -> bool:
    """Whether the user's last two messages ask for the kind of change ``name`` makes."""
    recent = said[-2:]
    if name == "task_board":
        return any(_TASK_CHANGE.search(t) for t in recent) and (  # "add milk" is a task; "create a file" is not
            any(_TASK_WORDS.search(t) for t in recent) or not any(_FILE_WORDS.search(t) for t in recent))
    if name == "scratchpad":
        return any(_CHANGE_WORDS.search(t) for t in recent) and any(_PAD_WORDS.search(t) for t in recent)
    if name == "cron":
        return any(_CRON_WORDS.search(t) for t in recent)
    if "." in name:  # an MCP tool: the request is for another system, in its own words (the tool's)
        own = [w for w in re.split(r"[^A-Za-z0-9]+", name.split(".", 1)[1]) if len(w) >= 3]
        said = re.compile(r"\b(?:" + "|".join(map(re.escape, own)) + r")", re.I) if own else None
        return any(_CHANGE_WORDS.search(t) or (said and said.search(t)) for t in recent)
    return asked_for_change(said, coding)


def asked_for_change(said: list[str], coding: bool = False) -> bool:
    """Whether the user's last two messages ask for a change to a file (or this is a coding session).

    >>> asked_for_change(["Write a haiku about autumn."]), asked_for_change(["read calc.py", "now fix sub"])
    (False, True)
    """
    recent = said[-2:]
    return coding or (any(_CHANGE_WORDS.search(t) for t in recent) and any(_FILE_WORDS.search(t) for t in recent))


def refusal(name: str, args: Any, prov: Provenance, coding: bool = False, read_only: bool = False) -> str:
    """Why this call must be confirmed by the user first; "" when it may run."""
    if not changes(name, args, read_only):
        return ""
    for what, text in targets(name, args):
        if prov.only_retrieved(text):
            short = " ".join(text.split())[:80]
            return f"{name} refused: the {what} '{short}' {FROM_RETRIEVED}; ask the user before changing it"
    if name == "memory_add":  # only a file change asked for, and memory is not that file (rule 3)
        last = prov.said[-1] if prov.said else ""
        files = [m.group(0) for m in _NAMED.finditer(last)]
        if files and _CHANGE_WORDS.search(last) and not _REMEMBER.search(last):
            return (f"memory_add refused: the user asked to change {files[0]}, not to remember something; "
                    f"change {files[0]} with edit_file (or write_file for a new file)")
        return ""
    named = [m.group(0) for t in prov.said[-2:] for m in _NAMED.finditer(t)]
    path = getattr(args, "path", "") if name in ("write_file", "edit_file") else ""
    if path and named and not coding and not prov.mentioned_by_user(path):
        return (f"{name} refused: the user named {', '.join(dict.fromkeys(named))}, not '{path}'; "
                "change only the file the user asked about, or ask first")
    typed = name == "exec" and prov.mentioned_by_user(args.command)  # the user gave the command
    if not typed and not asked_for(name, prov.said, coding):
        return f"{name} refused: {NOT_ASKED}; answer the user instead, or ask whether to make the change"
    return ""


class Guarded:
    """A tool whose ``run`` applies the policy first; everything else is the tool's own."""

    def __init__(self, tool: Any):
        self._tool = tool

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._tool, attr)

    def run(self, args: Any, ctx: Any) -> str:
        agent = ctx.agent
        prov = getattr(agent, "provenance", None)
        if prov is not None:
            why = refusal(self._tool.name, args, prov, coding=_coding(agent), read_only=_read_only(self._tool))
            if why:
                ask = ctx.confirm
                if ask is None or not ask(f"{why.split(': ', 1)[1].split(';')[0]}. Allow {self._tool.name} anyway?"):
                    if unasked(why):  # the turn's retrieved block leaves its context (Provenance.unlured)
                        prov.lured = len(prov.said)
                    raise ToolError(why)
        return self._tool.run(args, ctx)


def guard(tool: Any) -> Any:
    name = getattr(tool, "name", "")
    if isinstance(tool, Guarded) or (name not in CHANGING and not ("." in name and not _read_only(tool))):
        return tool
    return Guarded(tool)


def _read_only(tool: Any) -> bool:
    return bool(getattr(tool, "read_only", False))


def _coding(agent: Any) -> bool:
    return any(getattr(f, "name", "") == "coding" for f in getattr(agent, "features", []))
