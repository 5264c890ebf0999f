"""The chat as a feature: which chat a session belongs to, who speaks, and the chat's CONTEXT.md in
the prompt.

``select(chat_id, speaker)`` (``nanobot chat --chat ID --as NAME``; default chat ``local``) is called
before the session starts. At session start the transcript is told to record the speaker on every user
message; at the first turn the session is registered with its chat (``store.register_session``), so
a session where nothing was said joins no chat. ``sections`` puts the chat's file into the stable
part of the system prompt as "Current conversation" (order 45: after CONTEXT 40, before the volatile
Time 90) within ``consolidation.budget`` tokens; the text is fixed once per session, so the cached
prefix holds even if the nightly job rewrites the file meanwhile. A file not updated for
``stale_days`` is injected with a note saying so.
"""

from __future__ import annotations

from datetime import datetime

from nanobot.chats.contextfile import MARKER, ContextFile
from nanobot.chats.store import (
    DEFAULT_CHAT,
    check_chat_id,
    check_speaker,
    context_path,
    register_session,
)
from nanobot.core.features import Feature
from nanobot.core.intents import TranscriptMeta
from nanobot.core.prompt import RawSection
from nanobot.workspace import PROMPT_READ_MAX, read_text

ORDER = 45


class ChatContextFeature(Feature):
    name = "chats"

    def __init__(self, settings):
        self.settings = settings
        self.chat_id = DEFAULT_CHAT
        self.speaker = ""
        self._registered: set[str] = set()
        self._text: dict[str, str] = {}  # session id -> the section text (fixed per session)

    def select(self, chat_id: str = DEFAULT_CHAT, speaker: str | None = None) -> None:
        self.chat_id = check_chat_id(chat_id)
        self.speaker = check_speaker(speaker) if speaker else ""

    def on_session_start(self, agent) -> list[TranscriptMeta]:
        return [TranscriptMeta(user_meta={"speaker": self.speaker} if self.speaker else {})]

    def on_turn_start(self, agent) -> None:
        sid = agent.transcript.id
        if sid not in self._registered:
            register_session(self.settings.home, self.chat_id, sid, agent.clock(), self.speaker or None)
            self._registered.add(sid)

    def sections(self, agent) -> list[RawSection]:
        if not self.settings.consolidation.enabled:
            return []
        sid = agent.transcript.id if agent.transcript else ""
        if sid not in self._text:
            self._text[sid] = section_text(read_text(context_path(self.settings.home, self.chat_id), PROMPT_READ_MAX),
                                           agent.started, self.settings.consolidation.stale_days)
        return [RawSection(name="chat", text=self._text[sid], budget=self.settings.consolidation.budget,
                           header="## Current conversation", order=ORDER)]


def section_text(text: str, now: datetime, stale_days: int) -> str:
    """The file as the prompt shows it: no marker, title or footer; a note when it is stale; "" when
    it says nothing.

    >>> section_text("## Pending\\n- Send it [2026-11-01]\\n---\\n*Last updated: 2026-11-01 02:00*\\n",
    ...              datetime(2026, 11, 20), 7)
    'Note: older than 7 days (last updated 2026-11-01).\\n### Pending\\n- Send it [2026-11-01]'
    """
    doc = ContextFile.parse(text)
    body = [line.replace("## ", "### ", 1) if line.startswith("## ") else line
            for line in doc.model_copy(update={"updated": None}).render(group=True).splitlines()[2:]
            if line.strip() and line.strip() != MARKER]
    if not any(not line.startswith("### ") for line in body):
        return ""
    headed = [line for i, line in enumerate(body)  # empty sections say nothing: leave them out
              if not line.startswith("### ") or (i + 1 < len(body) and not body[i + 1].startswith("### "))]
    if doc.updated is not None and (now.replace(tzinfo=None) - doc.updated).days >= stale_days:
        headed.insert(0, f"Note: older than {stale_days} days (last updated {doc.updated:%Y-%m-%d}).")
    return "\n".join(headed)


def make_feature(agent) -> ChatContextFeature:
    return ChatContextFeature(agent.settings)
