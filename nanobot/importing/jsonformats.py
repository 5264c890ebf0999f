"""The JSON and JSONL import formats (OpenAI-style message lists); see ``formats``.

A whole JSON object or a JSONL file is read here at once; a JSON list (an export) is streamed item by
item (``jsonstream``) and each item comes to ``conversation`` or ``message``.

>>> from datetime import datetime, timezone
>>> t0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
>>> [s.messages[0].content for s in parse_jsonl('{"messages": [{"role": "user", "content": "hi"}]}', "f", t0)]
['hi']
>>> parse_json('[{"role": "robot", "content": "x"}]', "f.json", t0)
Traceback (most recent call last):
...
nanobot.importing.formats.ImportFormatError: f.json: message 1: role 'robot' is not user, assistant, system or tool; fix the role
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from nanobot.importing.formats import (
    ROLES,
    SKIPPED,
    ImportedMessage,
    ImportedSession,
    ImportFormatError,
    parse_time,
)

_TIME_KEYS = ("timestamp", "ts", "created_at", "create_time", "date", "time")


def parse_json(text: str, name: str, fallback: datetime) -> list[ImportedSession]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ImportFormatError(f"{name}:{e.lineno}: not valid JSON ({e.msg}); fix the syntax") from None
    except RecursionError:
        raise ImportFormatError(f"{name}: nested too deep to be a conversation; check the file") from None
    if isinstance(data, dict):
        return [conversation(data, name, fallback)]
    if not isinstance(data, list):
        raise ImportFormatError(f"{name}: expected a list of messages or conversations; see `nanobot import --help`")
    if data and all(isinstance(d, dict) and "messages" in d for d in data):
        return [conversation(d, f"{name}: conversation {i}", fallback) for i, d in enumerate(data, 1)]
    return [session(data, name, fallback)]


def parse_jsonl(text: str, name: str, fallback: datetime) -> list[ImportedSession]:
    items: list[tuple[int, Any]] = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append((i, json.loads(line)))
        except json.JSONDecodeError as e:
            raise ImportFormatError(f"{name}:{i}: not valid JSON ({e.msg}); fix or remove the line") from None
        except RecursionError:
            raise ImportFormatError(f"{name}:{i}: nested too deep to be a message; fix or remove the line") from None
        if not isinstance(items[-1][1], dict):
            raise ImportFormatError(f"{name}:{i}: expected an object, {{\"messages\": [...]}} or "
                                    "{\"role\": ..., \"content\": ...}")
    if items and all("messages" in d for _, d in items):
        return [conversation(d, f"{name}:{i}", fallback) for i, d in items]
    out = ImportedSession(started=fallback, messages=[])
    for i, d in items:
        if "messages" in d:
            raise ImportFormatError(f"{name}:{i}: a conversation among single messages; use one kind per file")
        msg = message(d, f"{name}:{i}", next_ts(out, fallback))
        if msg is not None:
            out.messages.append(msg)
    if out.messages:
        out.started = out.messages[0].ts
    return [out]


def conversation(d: dict, where: str, fallback: datetime) -> ImportedSession:
    msgs = d.get("messages")
    if not isinstance(msgs, list):
        raise ImportFormatError(f"{where}: 'messages' must be a list of {{\"role\", \"content\"}}")
    start = next((parse_time(d[k], where) for k in _TIME_KEYS if d.get(k) is not None), fallback)
    s = session(msgs, where, start)
    s.title = str(d.get("title") or "")[:200]
    return s


def session(msgs: list, where: str, start: datetime) -> ImportedSession:
    out = ImportedSession(started=start, messages=[])
    for i, d in enumerate(msgs, start=1):
        msg = message(d, f"{where}: message {i}", next_ts(out, start))
        if msg is not None:
            out.messages.append(msg)
    if out.messages and start is not out.messages[0].ts:
        out.started = min(start, out.messages[0].ts)
    return out


def message(d: Any, where: str, after: datetime) -> ImportedMessage | None:
    """One message, or None for a skipped role (system, tool) or an empty one."""
    if not isinstance(d, dict) or "role" not in d:
        raise ImportFormatError(f"{where}: expected {{\"role\": ..., \"content\": ...}}")
    role = str(d["role"]).lower()
    if role in SKIPPED:
        return None
    if role not in ROLES:
        raise ImportFormatError(f"{where}: role {str(d['role'])[:20]!r} is not user, assistant, system or tool; "
                                "fix the role")
    content = d.get("content")
    if isinstance(content, list):  # OpenAI content parts: keep the text ones
        content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ImportFormatError(f"{where}: 'content' must be text or a list of text parts")
    ts = next((parse_time(d[k], where) for k in _TIME_KEYS if d.get(k) is not None), None)
    if not content.strip():
        return None
    return ImportedMessage(role=role, content=content.strip(), ts=ts or after,
                           speaker=str(d.get("name") or "")[:60], ref=str(d.get("id") or ""))


def next_ts(s: ImportedSession, start: datetime) -> datetime:
    """A message without a time: one second after the previous one (keeps their order)."""
    return s.messages[-1].ts + timedelta(seconds=1) if s.messages else start
