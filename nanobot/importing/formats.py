"""Conversation histories from other assistants -> ``ImportedSession`` values (no writing here).

Three formats, told apart by the file's first non-blank character and extension:

- JSON: an OpenAI-style message list ``[{"role", "content"}, ...]`` (one session), one conversation
  ``{"messages": [...], "date"?}``, or a list of conversations.
- JSONL: one conversation ``{"messages": [...], "date"?}`` per line (OpenAI's fine-tuning format),
  or one message ``{"role", "content"}`` per line (one session).
- Text (the simple format; any other extension)::

      ## 2026-03-01 10:00
      user: We found a flat in Porto.
      assistant: Congratulations! How many rooms?
      Ana (user): Two, and a balcony.

  A ``## DATE`` line starts a session (ISO date, optional time); ``ROLE:`` or ``NAME (ROLE):`` starts
  a message (role user or assistant); other lines continue the message; ``#`` lines outside a
  message are comments.

Messages may carry ``timestamp`` / ``ts`` / ``created_at`` (ISO 8601 or Unix seconds) and ``name``
(kept as the speaker); ``content`` may be a string or OpenAI's list of ``{"type": "text"}`` parts.
``system`` and ``tool`` messages are skipped. A message without a time takes its session's date
(or the previous message's), a session without one the file's modification time. Any problem is
one ``ImportFormatError`` naming the file and line (JSON: the conversation and message numbers).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from nanobot.base.errors import NanobotError

ROLES = ("user", "assistant")
SKIPPED = ("system", "developer", "tool", "function")
_SESSION = re.compile(r"^##\s+(\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?)\s*$")
_MESSAGE = re.compile(r"^(?:(?P<name>[^():\n]{1,60}?)\s*\((?P<r1>\w+)\)|(?P<r2>\w+))\s*:\s?(?P<text>.*)$")


class ImportFormatError(NanobotError):
    """The file cannot be imported as it is (one line: file, line, what, the fix)."""


class ImportedMessage(BaseModel):
    role: str  # user | assistant
    content: str
    ts: datetime
    speaker: str = ""
    ref: str = ""  # the source's own id for the message (benchmarks map hits back with it)


class ImportedSession(BaseModel):
    started: datetime
    messages: list[ImportedMessage]
    title: str = ""


def parse_time(value: Any, where: str) -> datetime:
    """ISO 8601 or Unix seconds -> an aware datetime (naive ones are local time)."""
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value)).astimezone()
        return datetime.fromisoformat(str(value).strip().replace("Z", "+00:00")).astimezone()
    except (ValueError, OverflowError, OSError):
        raise ImportFormatError(f"{where}: time {str(value)[:40]!r} is not ISO 8601 (2026-03-01T10:00) "
                                "or Unix seconds; fix it or drop the field") from None


def parse_text(text: str, name: str, fallback: datetime) -> list[ImportedSession]:
    sessions: list[ImportedSession] = []
    for i, line in enumerate(text.splitlines(), start=1):
        where = f"{name}:{i}"
        if m := _SESSION.match(line):
            sessions.append(ImportedSession(started=parse_time(m.group(1), where), messages=[]))
            continue
        m = _MESSAGE.match(line)
        role = (m.group("r1") or m.group("r2")).lower() if m else ""
        if m and (role in ROLES or role in SKIPPED):
            if not sessions:
                sessions.append(ImportedSession(started=fallback, messages=[]))
            s = sessions[-1]
            if role in SKIPPED:
                continue
            ts = s.started + timedelta(seconds=len(s.messages))  # keeps their order
            s.messages.append(ImportedMessage(role=role, content=m.group("text"), ts=ts,
                                              speaker=(m.group("name") or "").strip()))
        elif sessions and sessions[-1].messages:  # a message goes on (blank and # lines too)
            sessions[-1].messages[-1].content += "\n" + line
        elif line.startswith("#") or not line.strip():
            continue
        else:
            raise ImportFormatError(f"{where}: expected '## YYYY-MM-DD' or 'user: ...' / 'assistant: ...', "
                                    f"got {line[:40]!r}")
    for s in sessions:
        for msg in s.messages:
            msg.content = msg.content.strip()
        s.messages = [msg for msg in s.messages if msg.content]
    return sessions
