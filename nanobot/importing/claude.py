"""Claude's data export (``conversations.json``) -> sessions.

A conversation is ``{uuid, name, created_at, chat_messages}``; a message is ``{uuid, sender: human |
assistant, text, content, created_at}``. ``text`` holds what was said; where it is empty, the text
items of ``content`` (``{"type": "text", "text"}``; tool use and attachments are skipped) stand in.
``name`` is the session's title. A message without a time is one second after the one before it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from nanobot.importing.formats import (
    ImportedMessage,
    ImportedSession,
    ImportFormatError,
    parse_time,
)
from nanobot.importing.jsonformats import next_ts

FORMAT = "Claude export"
SENDERS = {"human": "user", "assistant": "assistant"}


def is_claude(item: Any) -> bool:
    return isinstance(item, dict) and "chat_messages" in item


def claude_session(d: dict, where: str, fallback: datetime) -> ImportedSession:
    msgs = d.get("chat_messages")
    if not isinstance(msgs, list):
        raise ImportFormatError(f"{where}: a {FORMAT}'s 'chat_messages' must be a list of messages")
    start = parse_time(d["created_at"], where) if d.get("created_at") is not None else fallback
    out = ImportedSession(started=start, messages=[], title=str(d.get("name") or "")[:200])
    for i, m in enumerate(msgs, start=1):
        at = f"{where}: message {i}"
        if not isinstance(m, dict) or "sender" not in m:
            raise ImportFormatError(f"{at}: a {FORMAT}'s message needs 'sender' (human or assistant)")
        role = SENDERS.get(str(m["sender"]))
        if role is None:
            raise ImportFormatError(f"{at}: sender {str(m['sender'])[:20]!r} is not human or assistant")
        text = _text(m)
        if not text:
            continue
        ts = parse_time(m["created_at"], at) if m.get("created_at") is not None else next_ts(out, start)
        out.messages.append(ImportedMessage(role=role, content=text, ts=ts, ref=str(m.get("uuid") or "")))
    if out.messages:
        out.started = min(start, out.messages[0].ts)
    return out


def _text(m: dict) -> str:
    text = m.get("text")
    if isinstance(text, str) and text.strip():
        return text.strip()
    content = m.get("content")
    if not isinstance(content, list):
        return ""
    parts = [c.get("text") for c in content if isinstance(c, dict) and c.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str)).strip()
