"""A session's outcomes from its tool events: what changed and what ran, without the model.

The transcript holds every tool call (``kind: call``, its arguments) and result (``kind: result``,
the tool's own text). ``outcomes`` turns the ones that changed something or ran something into short
lines in the tools' words: ``edited utils.py: reverse_words replaced whole``, ``created notes.md (120
chars; defines slugify)``, ``... (defines reverse_words; removes count_words)``, ``ran `pytest -q`: exit 1, 1 failed, 2 passed``, ``edit_file failed: ...``.
Reads (read_file, list_dir, search) change nothing and are left out. Each line is a fact of the
session, so the observer writes it without a quote; ``still_failing`` is the last command that
failed, as the open step a person coming back meets first.

>>> ev = [ToolEvent(name="exec", args={"command": "pytest -q"}, ok=True,
...                 result="exit 1\\n..F\\n1 failed, 2 passed in 0.1s")]
>>> outcomes(ev), still_failing(ev)
(['ran `pytest -q`: exit 1, 1 failed, 2 passed'], 'make `pytest -q` pass (exit 1, 1 failed, 2 passed)')
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.base.shorten import shorten
from nanobot.core.transcript import read_transcript

READS = {"read_file", "list_dir", "search", "web_fetch", "web_search", "memory_search", "recall"}
_DEFS = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.M)
_COUNTS = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed)\b")
_EXIT = re.compile(r"^exit (-?\d+)")
LINE_CHARS = 120


class ToolEvent(BaseModel):
    name: str
    args: dict = Field(default_factory=dict)
    ok: bool = True
    result: str = ""
    back: int = 0  # how many user messages came after the one whose turn ran it (0: the last one's)
    effects: list[str] | None = None  # the call's declared effects (``tools.effects``); None in older transcripts


def read_events(path: Path) -> list[ToolEvent]:
    """The tool events of transcript ``path``: each result with the arguments of its call."""
    records, _ = read_transcript(path) if path.exists() else ([], [])
    events: list[ToolEvent] = []
    args: dict = {}
    turn = 0
    for r in records:
        turn += r.role == "user"
        if r.role != "tool":
            continue
        if r.meta.get("kind") == "call":
            args = _args(r.content)
        elif r.meta.get("kind") == "result":
            effects = r.meta.get("effects")
            events.append(ToolEvent(name=str(r.meta.get("name", "")), args=args,
                                    ok=bool(r.meta.get("ok", True)), result=r.content, back=turn,
                                    effects=[str(x) for x in effects] if isinstance(effects, list) else None))
            args = {}
    return [e.model_copy(update={"back": turn - e.back}) for e in events]


def outcomes(events: list[ToolEvent]) -> list[str]:
    """One line per event that changed or ran something, first first, repeats once."""
    out: list[str] = []
    for e in events:
        line = outcome(e)
        if line and line not in out:
            out.append(line)
    return out


KEEPS = {"changes", "runs", "remembers"}  # effects whose outcome a person coming back needs


def quiet(e: ToolEvent) -> bool:
    """The call only looked, searched or told the user something ("message delivered"): its declared
    effects say so; an older transcript without them is read by the tool's name (``READS``)."""
    return e.name in READS if e.effects is None else not set(e.effects) & KEEPS


def outcome(e: ToolEvent) -> str:
    first = e.result.strip().split("\n", 1)[0]
    if not e.ok:  # "edit_file refused: ..." names its tool already; "...; the file's text is:" leads on
        first = first.rsplit("; ", 1)[0] if first.endswith(":") else first
        said = first if first.startswith(f"{e.name} ") else f"{e.name} failed: {first}"
        return "" if quiet(e) else shorten(said, LINE_CHARS)
    if e.name == "exec" or "runs" in (e.effects or ()):
        return _ran(e)
    if quiet(e) or not first:
        return ""
    body, old = str(e.args.get("content", e.args.get("new", ""))), str(e.args.get("old", ""))
    added = [d for d in _DEFS.findall(body) if d not in _DEFS.findall(old) and d not in first]
    gone = [d for d in _DEFS.findall(old) if d not in _DEFS.findall(body) and d not in first]
    said = [*([f"defines {', '.join(added[:3])}"] if added else []),
            *([f"removes {', '.join(gone[:3])}"] if gone else [])]
    return shorten(first + (f" ({'; '.join(said)})" if said else ""), LINE_CHARS)


def _ran(e: ToolEvent, failing: bool = False) -> str:
    code = _EXIT.match(e.result.strip())
    cmd = str(e.args.get("command", "")).strip()
    counts = dict((w, n) for n, w in _COUNTS.findall(e.result[-2000:]))  # the summary line's last
    result = f"exit {code.group(1) if code else '?'}" + "".join(f", {n} {w}" for w, n in counts.items())
    shown = f"`{shorten(cmd, 60, ellipsis='')}`" if cmd else "the last command"
    return f"make {shown} pass ({result})" if failing else f"ran {shown}: {result}"


def latest(lines: list[str], chars: int, most: int = 3) -> str:
    """The newest of ``lines`` (at most ``most``, back to the first that does not fit ``chars``)
    whole, joined oldest first: what a session ended with, never its last outcome cut to make room
    for an earlier one (the newest is shortened alone if it cannot fit).

    >>> latest(["edited a.py at line 2", "ran `pytest -q`: exit 0, 1 passed"], 60)
    'edited a.py at line 2; ran `pytest -q`: exit 0, 1 passed'
    >>> latest(["x" * 40, "ran `pytest -q`: exit 0, 1 passed"], 60)
    'ran `pytest -q`: exit 0, 1 passed'
    """
    kept: list[str] = []
    for line in reversed(lines):
        if len(kept) == most or (kept and len("; ".join([line, *kept])) > chars):
            break
        kept.insert(0, line)
    return shorten("; ".join(kept), chars)


def still_failing(events: list[ToolEvent]) -> str:
    """The last command's outcome when it failed (a non-zero exit), else ""."""
    runs = [e for e in events if e.name == "exec" and e.ok]
    if not runs:
        return ""
    code = _EXIT.match(runs[-1].result.strip())
    return _ran(runs[-1], failing=True) if code and code.group(1) != "0" else ""


def _args(raw: str) -> dict:
    body = raw.strip().removeprefix("<tool_call>").split("</tool_call>", 1)[0].strip()
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    if isinstance(data, dict) and isinstance(data.get("arguments"), dict):
        return data["arguments"]
    return data if isinstance(data, dict) else {}
