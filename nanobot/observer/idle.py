"""Observing off the user's path: the session as ``observe_live`` reads it, and a model wrapper
that stops the draft when the user sends before it said anything useful.

``SessionView`` is what ``observe_live`` reads of an ``Agent`` (settings, model, system prompt,
history, turns, clock, transcript id), frozen: the 80% observation runs on the prefill thread from a
snapshot taken when the reply ended, and ``nanobot housekeep`` rebuilds it from a job file.
``Cancellable`` wraps the model for the 80% observation: once the user sends, the draft stops at the
next token if its summary is not complete yet (``Cancelled``: nothing is written, the observer
retries at the next idle moment); with the summary written it finishes, and the prefill's
``finishing`` makes the next turn say what it waits for. At session end (``abandoned``) it always
stops: the session's own observation covers it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from nanobot.backends.base import Message

FINISHING = "finishing observation…"
USEFUL = '"focus"'  # the draft's summary is complete once the next key has begun


class Cancelled(BaseException):
    """The user sent before the draft said anything useful (a BaseException, so the observer's
    fallback does not take it for a model failure and write an extractive draft instead)."""


class SessionView:
    """A frozen session for ``observe_live``."""

    def __init__(self, settings, model, system: str, history: list[Message], started: datetime,
                 ended: datetime, session_id: str, sessions_dir):
        self.settings, self.model, self.history = settings, model, list(history)
        self.started, self._ended, self._system = started, ended, system
        self.workspace = settings.workspace
        self.transcript = SimpleNamespace(id=session_id, path=sessions_dir / f"{session_id}.jsonl")

    @classmethod
    def of(cls, agent, model=None) -> SessionView:
        return cls(agent.settings, model or agent.model, agent.system_prompt().text, agent.history,
                   agent.started, agent.clock(), agent.transcript.id, agent.settings.sessions_dir)

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.history if m.role == "user")

    def clock(self) -> datetime:
        return self._ended

    def system_prompt(self) -> SimpleNamespace:
        return SimpleNamespace(text=self._system)


class Cancellable:
    """``model`` whose ``stream`` honours the prefill's cancel (see the module docstring)."""

    def __init__(self, model, ctl):
        self._model, self._ctl = model, ctl
        self.text = ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def stream(self, messages: list[Message], **kw: Any) -> Iterator[str]:
        pieces = self._model.stream(messages, **kw)
        try:
            for piece in pieces:
                self.text += piece
                if self._ctl.cancelled() and (USEFUL not in self.text or self._ctl.abandoned):
                    raise Cancelled
                if USEFUL in self.text:
                    self._ctl.finishing = FINISHING  # from here on a cancel waits for the rest
                yield piece
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()
