"""The nightly consolidation job of ``nanobot daemon`` (``[consolidation] at = "02:00"``, local time).

Due when the last run was before the most recent scheduled time, so a night the daemon was not
running is made up at its next start. A run consolidates every chat active since its last
consolidation; the model is loaded only when there is one. The time of the run is kept in
``$NANOBOT_HOME/chats/nightly.json``. ``chat_status`` is what ``nanobot status`` shows per chat: its
last consolidation and whether the next run (tonight's, or a missed one made up) will read it.

>>> last_slot(datetime(2026, 11, 22, 1, 0), "02:00")
datetime.datetime(2026, 11, 21, 2, 0)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from nanobot.backends.base import ChatModel
from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.chats.store import chats_dir, list_chats, pending
from nanobot.config import Settings


def last_slot(now: datetime, at: str) -> datetime:
    """The most recent scheduled time at or before ``now``."""
    hh, mm = map(int, at.split(":"))
    slot = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    return slot if slot <= now else slot - timedelta(days=1)


def _state(settings: Settings) -> Path:
    return chats_dir(settings.home) / "nightly.json"


def last_run(settings: Settings) -> datetime | None:
    try:
        return datetime.fromisoformat(json.loads(read_regular(_state(settings)))["last"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def due(settings: Settings, now: datetime) -> bool:
    if not settings.consolidation.enabled:
        return False
    last = last_run(settings)
    return last is None or last < last_slot(now, settings.consolidation.at)


def run(settings: Settings, now: datetime, load_model: Callable[[], ChatModel]) -> str:
    """Consolidate the pending chats; one line per chat (a chat that fails is reported, the rest run).
    ``load_model`` is called only when a chat has something to read."""
    from nanobot.chats.consolidate import consolidate, pending_chats

    lines: list[str] = []
    chats = pending_chats(settings)
    if chats:
        model = load_model()
        for chat_id in chats:
            try:
                lines.append(consolidate(settings, chat_id, model, clock=lambda: now).summary())
            except Exception as e:  # one chat's failure must not stop the others
                lines.append(f"{chat_id}: failed: {type(e).__name__}: {e}")
    atomic_write(_state(settings), json.dumps({"last": now.isoformat()}) + "\n")
    return "\n".join(lines)


class ChatStatus(BaseModel):
    chat: str
    last_consolidated: datetime | None = None
    pending: bool = False  # active since its last consolidation: tonight's job reads it
    job_at: str = ""  # [consolidation] at; "" when nightly consolidation is off
    overdue: bool = False  # a scheduled run was missed: the daemon runs it at its next start

    def line(self) -> str:
        """``team: last consolidated 2026-11-20 02:00; tonight's job (02:00): pending``."""
        last = f"{self.last_consolidated:%Y-%m-%d %H:%M}" if self.last_consolidated else "never"
        if not self.job_at:
            return f"{self.chat}: last consolidated {last}; nightly consolidation is off"
        when = f"{self.job_at}, missed: runs when the daemon starts" if self.overdue else self.job_at
        return f"{self.chat}: last consolidated {last}; tonight's job ({when}): " + (
            "pending" if self.pending else "nothing new")


def chat_status(settings: Settings, now: datetime) -> list[ChatStatus]:
    """Every chat (most recently active first) with its last consolidation and tonight's plan for it."""
    on = settings.consolidation.enabled
    at, overdue = (settings.consolidation.at, due(settings, now)) if on else ("", False)
    return [ChatStatus(chat=c.id, last_consolidated=c.last_consolidated, pending=on and pending(c), job_at=at,
                       overdue=overdue) for c in list_chats(settings.home)]
