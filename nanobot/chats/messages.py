"""A chat's messages: the user and assistant records of its sessions' transcripts, in time order,
each with its speaker (a user message's ``speaker``, set by ``nanobot chat --as NAME``).

>>> m = ChatMessage(ts=datetime(2026, 11, 20, 9, 0), role="user", speaker="alice", text="Ship it  today")
>>> m.line()
'alice: Ship it today'
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from nanobot.core.transcript import read_transcript

USER, ASSISTANT = "User", "Assistant"


class ChatMessage(BaseModel):
    ts: datetime
    role: str  # "user" | "assistant"
    speaker: str = ""  # the --as name of a user message ("" = the default user)
    text: str
    session: str = ""

    @property
    def who(self) -> str:
        return self.speaker or (USER if self.role == "user" else ASSISTANT)

    def line(self, clip: int = 0) -> str:
        """One line as the suggester reads it (whitespace folded; ``clip`` characters at most)."""
        text = " ".join(self.text.split())
        if clip and len(text) > clip:
            text = text[: clip - 1].rstrip() + "…"
        return f"{self.who}: {text}"


def chat_messages(sessions_dir: Path, session_ids: list[str], since: datetime | None,
                  until: datetime | None = None) -> tuple[list[ChatMessage], list[str]]:
    """Messages of the given sessions with ``since < ts <= until``, oldest first, plus warnings for
    unreadable transcript lines (a missing transcript is skipped: it was deleted by hand)."""
    out: list[ChatMessage] = []
    warnings: list[str] = []
    for sid in session_ids:
        path = sessions_dir / f"{sid}.jsonl"
        if not path.exists():
            continue
        records, warn = read_transcript(path)
        warnings += warn
        for r in records:
            if r.role not in ("user", "assistant") or not r.content.strip():
                continue
            if (since is not None and r.ts <= since) or (until is not None and r.ts > until):
                continue
            speaker = r.meta.get("speaker", "") if r.role == "user" else ""
            out.append(ChatMessage(ts=r.ts, role=r.role, speaker=str(speaker), text=r.content, session=sid))
    out.sort(key=lambda m: m.ts)
    return out, warnings
