"""Labelled sessions for CONTEXT.md (tests/data/context_sessions/{dev,heldout}.json): scripted chats
whose tool calls run for real, each labelled with what a careful reader would note.

A session has files to start from (written into the workspace, committed to a real git repository
when ``git`` is set), turns (the user's words, the tools called, the reply) and labelled ``items``
(decisions, outcomes, next steps, facts), each a list of key terms. ``replay`` puts a session into an
agent as a chat would have: transcript records for the user, every tool call and its real result
(``execute``: the file really changes, the tests really run), and the reply. ``found`` is the bench's
lenient matcher: an item counts when all its key terms (case-insensitive) occur in one line.
Shared by tests and bench/context_bench.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from nanobot.backends.base import Message
from nanobot.base.atomic import atomic_write
from nanobot.base.regular import regular_text

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "context_sessions"


class Call(BaseModel):
    tool: str
    args: dict


class Turn(BaseModel):
    user: str
    speaker: str = ""  # a group chat's speaker: the message is written "Name: text"
    calls: list[Call] = Field(default_factory=list)
    reply: str


class Item(BaseModel):
    kind: Literal["decision", "outcome", "next", "fact", "blocker"]
    keys: list[str]  # every key term must occur (case-insensitive) in one line


class Session(BaseModel):
    id: str
    kind: str  # coding | planning | personal | group
    lang: str = "en"
    files: dict[str, str] = Field(default_factory=dict)
    git: bool = False
    turns: list[Turn]
    items: list[Item]
    last: list[list[str]]  # "where were we?": the reply must hold all terms of one of these


def load(split: str) -> list[Session]:
    return [Session.model_validate(x) for x in json.loads(regular_text(DATA / f"{split}.json"))]


def prepare(session: Session, workspace: Path) -> None:
    """The session's starting files in ``workspace`` (a git repository with them committed if asked)."""
    for name, text in session.files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(workspace / name, text)
    if session.git:
        env = os.environ | {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                            "GIT_COMMITTER_EMAIL": "t@t"}
        for cmd in (["init", "-q"], ["add", *session.files], ["commit", "-qm", "start"]):
            subprocess.run(["git", *cmd], cwd=workspace, check=True, env=env, capture_output=True)


def replay(agent, session: Session) -> None:
    """Chat ``session`` into ``agent``: user turns, real tool runs recorded as the runner records
    them, replies; ``python`` on the PATH is this interpreter (its pytest runs the tests)."""
    from nanobot.runtime import tool_classes
    from nanobot.tools.base import ToolContext
    from nanobot.tools.runner import execute

    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    tools = tool_classes()
    agent.start_session()
    for turn in session.turns:
        text = f"{turn.speaker}: {turn.user}" if turn.speaker else turn.user
        agent.transcript.append("user", text, **({"speaker": turn.speaker} if turn.speaker else {}))
        for call in turn.calls:
            tool = tools[call.tool]()
            agent.transcript.append("tool", json.dumps(call.args), kind="call", name=call.tool)
            try:
                ok, result, _ = execute(tool, tool.Args.model_validate(call.args),
                                        ToolContext(settings=agent.settings))
            except Exception as e:  # noqa: BLE001 - a refused call is an event like any other
                ok, result = False, str(e)
            agent.transcript.append("tool", result, kind="result", name=call.tool, ok=ok)
        agent.transcript.append("assistant", turn.reply)
        agent.history += [Message(role="user", content=text), Message(role="assistant", content=turn.reply)]


def found(keys: list[str], lines: list[str]) -> bool:
    """The lenient matcher: all ``keys`` in one of ``lines`` (case-insensitive)."""
    return any(all(k.lower() in ln.lower() for k in keys) for ln in lines)
