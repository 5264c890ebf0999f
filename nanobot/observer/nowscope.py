"""CONTEXT.md's Now (Focus, Task, Blocked) per chat and per coding session, not workspace-wide.

CONTEXT.md keeps one Now, the latest any session wrote (the user reads and edits it). Which chat or
coding session wrote it is recorded in ``sessions/now-scopes.json``: ``sessions`` maps a session id
to its scope (``chat:ID`` or ``coding:ROOT``, registered at the session's first turn), ``now`` maps a
scope to the Now it last wrote (``stamp``, after every observation). The prompt's Context shows the
file's Now only when it is this scope's own or nobody's (written by the user); another scope's Now is
replaced by this scope's last one, or left out (``scoped``). So another chat's task never enters
this one, and this chat's last message never becomes every chat's Task.

>>> from nanobot.observer.contextmd import ContextDoc
>>> doc = ContextDoc.parse("# Context\\n\\n## Now\\n- Focus: greet.py\\n- Task: git log\\n")
>>> scoped(doc, {"now": {"chat:team": ["greet.py", "git log", ""]}}, "chat:local").now.task
''
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.observer.contextmd import ContextDoc, Now

FILE = "now-scopes.json"


def scope_of(agent: Any) -> str:
    """``coding:ROOT`` in a coding session, else ``chat:ID`` (``local`` unless --chat)."""
    for f in getattr(agent, "features", []):
        if getattr(f, "name", "") == "coding":
            return f"coding:{f.session.meta.root}"
    chat = next((f for f in getattr(agent, "features", []) if getattr(f, "name", "") == "chats"), None)
    return f"chat:{getattr(chat, 'chat_id', 'local')}"


def load(sessions_dir: Path) -> dict:
    try:
        data = json.loads(read_regular(sessions_dir / FILE))  # a FIFO: OSError at once, no hang
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # derived data: a missing or damaged file only means "nobody's"


def register(sessions_dir: Path, session_id: str, scope: str) -> None:
    data = load(sessions_dir)
    if data.get("sessions", {}).get(session_id) != scope:
        data.setdefault("sessions", {})[session_id] = scope
        _save(sessions_dir, data)


def stamp(sessions_dir: Path, session_id: str, now: Now) -> None:
    """Record ``now`` as what the scope of ``session_id`` last wrote (unknown session: nothing)."""
    data = load(sessions_dir)
    scope = data.get("sessions", {}).get(session_id)
    if scope:
        data.setdefault("now", {})[scope] = [now.focus, now.task, now.blocked]
        _save(sessions_dir, data)


def scoped(doc: ContextDoc, data: dict, scope: str) -> ContextDoc:
    """``doc`` with the Now this scope may see (see the module docstring)."""
    shown = [doc.now.focus, doc.now.task, doc.now.blocked]
    records: dict = data.get("now", {})
    if not any(shown) or records.get(scope) == shown or shown not in records.values():
        return doc
    own = records.get(scope) or ["", "", ""]
    out = doc.model_copy(deep=True)
    out.now = Now(focus=own[0], task=own[1], blocked=own[2], extra=doc.now.extra)
    return out


def _save(sessions_dir: Path, data: dict) -> None:
    sessions_dir.mkdir(parents=True, exist_ok=True)
    sessions = data.get("sessions", {})
    if len(sessions) > 2000:  # the oldest registrations go (ids sort by time)
        data["sessions"] = dict(sorted(sessions.items())[-1000:])
    atomic_write(sessions_dir / FILE, json.dumps(data))
