"""Chats: named, long-lived conversations made of many sessions, kept in ``$NANOBOT_HOME/chats/<id>/``.

``chat.json`` says which sessions belong to the chat, who spoke (group chats have more than one
speaker), when it was last active and last consolidated. It is nanobot's own file, rewritten under a
lock (two chat windows on one chat both register their sessions). The messages themselves stay in the
session transcripts (``nanobot/core/transcript.py``), where a user message carries its ``speaker``.

>>> check_chat_id("team-42")
'team-42'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from nanobot.base.atomic import atomic_write
from nanobot.base.errors import NanobotError
from nanobot.base.filelock import file_lock
from nanobot.base.regular import read_regular

DEFAULT_CHAT = "local"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class ChatError(NanobotError):
    """A chat id or speaker name is unusable, or a chat does not exist."""


class Chat(BaseModel):
    id: str
    sessions: list[str] = Field(default_factory=list)  # session ids, oldest first
    speakers: list[str] = Field(default_factory=list)  # "--as" names, first seen first
    last_active: datetime | None = None
    last_consolidated: datetime | None = None

    @property
    def group(self) -> bool:
        return len(self.speakers) > 1


def check_chat_id(chat_id: str) -> str:
    if not _ID.match(chat_id or ""):
        raise ChatError(f"chat id {chat_id!r} is not usable; use 1-64 letters, digits, '.', '_' or '-' "
                        "(starting with a letter or digit)")
    return chat_id


def check_speaker(name: str) -> str:
    name = " ".join((name or "").split())
    if not name or len(name) > 40 or not name.isprintable():
        raise ChatError(f"speaker name {name!r} is not usable; use 1-40 printable characters")
    return name


def chats_dir(home: Path) -> Path:
    return home / "chats"


def chat_dir(home: Path, chat_id: str) -> Path:
    return chats_dir(home) / check_chat_id(chat_id)


def context_path(home: Path, chat_id: str) -> Path:
    return chat_dir(home, chat_id) / "CONTEXT.md"


def load_chat(home: Path, chat_id: str) -> Chat | None:
    path = chat_dir(home, chat_id) / "chat.json"
    try:
        return Chat.model_validate_json(read_regular(path))
    except FileNotFoundError:
        return None
    except (OSError, ValidationError, ValueError) as e:
        raise ChatError(f"{path} is damaged ({type(e).__name__}); fix or delete it "
                        "(the sessions themselves are intact in sessions/)") from None


def update_chat(home: Path, chat_id: str, fn: Callable[[Chat], None]) -> Chat:
    """Read-modify-write ``chat.json`` under its lock; creates the chat."""
    folder = chat_dir(home, chat_id)
    with file_lock(folder / ".chat.json.lock"):
        chat = load_chat(home, chat_id) or Chat(id=chat_id)
        fn(chat)
        atomic_write(folder / "chat.json", chat.model_dump_json(indent=1, exclude_none=True) + "\n")
    return chat


def register_session(home: Path, chat_id: str, session_id: str, now: datetime,
                     speaker: str | None = None) -> Chat:
    def add(chat: Chat) -> None:
        if session_id not in chat.sessions:
            chat.sessions.append(session_id)
        if speaker and speaker not in chat.speakers:
            chat.speakers.append(speaker)
        chat.last_active = now
    return update_chat(home, chat_id, add)


def list_chats(home: Path) -> list[Chat]:
    """Every chat, most recently active first."""
    root = chats_dir(home)
    found = [c for d in sorted(root.iterdir()) if (d / "chat.json").is_file() and _ID.match(d.name)
             if (c := load_chat(home, d.name))] if root.is_dir() else []
    return sorted(found, key=lambda c: c.last_active.timestamp() if c.last_active else 0, reverse=True)


def pending(chat: Chat) -> bool:
    """Active since its last consolidation (what ``--all`` and the nightly job consolidate)."""
    return chat.last_active is not None and (chat.last_consolidated is None
                                             or chat.last_active > chat.last_consolidated)
