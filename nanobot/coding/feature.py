"""``CodingFeature``: a coding session inside the Agent (on only when ``coding.session`` names one,
which ``nanobot session`` sets; plain ``nanobot chat`` never loads it).

- ``sections``: the current change's description, the parent's (hand-off), the diff within
  ``coding.context`` tokens (``coding/section.py``), built once per session and after checkpoints.
- ``tools``: ``new_change``, ``describe_change``, ``query_ancestor``.
- session start: the current change's transcript records come back as history (``session resume``);
  the prefill is switched off, the idle time between turns goes to the description rewrite.
- turn start: the status line, ``[change <id> (git) · 2 files changed, 5 insertions(+)]``, before
  the reply (and the rewrite's failure, once).
- turn end: the exchange goes to the session's transcript; the description is rewritten in the
  background (``coding/rewriter.py``); ``release_model`` waits for it before the model is used again.
- context pressure: an automatic checkpoint (new change, description as hand-off, fresh context)
  instead of dropping old turns.
"""

from __future__ import annotations

from nanobot.backends.base import Message
from nanobot.coding.rewriter import Rewriter
from nanobot.coding.section import session_context
from nanobot.coding.session import CodingSession
from nanobot.coding.tools import DescribeChange, NewChange, QueryAncestor
from nanobot.coding.vcs import CodingError
from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.core.intents import FreshContext, PrefillOff
from nanobot.core.prompt import RawSection

ORDER = 50  # after CONTEXT (40), before the volatile Time (90)


class CodingFeature(Feature):
    name = "coding"

    def __init__(self, session: CodingSession):
        self.session = session
        self.rewriter = Rewriter(session, session.settings.coding.describe_tokens)
        self._restored = False
        self._text: str | None = None
        self._query = ""

    # -- prompt and tools ------------------------------------------------------------------------
    def sections(self, agent) -> list[RawSection]:
        if self._text is None:
            self._text = session_context(self.session, self.session.settings.coding.context,
                                         agent.model.count_tokens)
        return [RawSection(name="coding", header="## Coding session", text=self._text,
                           budget=self.session.settings.coding.context, order=ORDER)]

    def tools(self, settings) -> list:
        return [NewChange(self), DescribeChange(self), QueryAncestor(self)]

    # -- lifecycle -------------------------------------------------------------------------------
    def on_session_start(self, agent):
        out: list = [PrefillOff()]  # the model's idle time is the rewrite's
        self._text = None
        if self._restored:
            return out
        self._restored = True
        recs = self.session.records()
        out.append(FreshContext(history=[Message(role=r.role, content=r.content) for r in recs]))
        if recs:
            out.append(Notice(text=f"resumed: {len(recs) // 2} exchange(s) of change {self.session.current[:12]} restored"))
        return out

    def turn_block(self, agent, query: str) -> str:
        self._query = query  # the user's words as typed (the history holds them with memory)
        return ""

    def on_turn_start(self, agent):
        out = [Notice(text=self.status())]  # the chat's status line: change id + VCS status
        err = self.rewriter.take_error()
        if err:
            out.append(Notice(level="warning", text=f"coding: the description rewrite failed ({err}); "
                                                    "the last good description is kept"))
        return out

    def status(self) -> str:
        """``[change I3f2a9c01b7de (git) · 2 files changed, 5 insertions(+)]``; never fails a turn."""
        try:
            return f"[{self.session.status_line()}]"
        except Exception as e:  # a VCS hiccup must not cost the user their turn
            return f"[change {self.session.current[:12]} ({self.session.meta.backend}) · status unavailable: {e}]"

    def on_turn_end(self, agent, done):
        self.session.append("user", self._query)
        self.session.append("assistant", done.reply)
        if self.session.settings.coding.describe:
            self.rewriter.start(agent.model, agent.system_prompt().text, agent.history, said=self._query)
        return None

    def release_model(self, agent) -> None:
        self.rewriter.wait()

    def on_context_pressure(self, agent, used: int):
        self.rewriter.wait()
        pct = round(100 * used / agent.model.n_ctx)
        try:
            new = self.checkpoint(agent, None, "pressure")
        except CodingError as e:  # a broken working copy is never committed: old turns are trimmed instead
            return [Notice(level="warning", text=f"context at {pct}% of n_ctx: no checkpoint ({e})")]
        return [FreshContext(history=[]),
                Notice(text=f"context at {pct}% of n_ctx: checkpoint, new change {new[:12]}; its parent's "
                            "description is the hand-off and the context starts fresh")]

    def on_session_end(self, agent, reason: str):
        self.rewriter.wait()
        self.session.save(status="ended")
        return None

    # -- shared by the tools -----------------------------------------------------------------------
    def checkpoint(self, agent, description: str | None, reason: str) -> str:
        new = self.session.checkpoint(description, reason)
        self._text = None
        if agent is not None:
            agent.refresh_prompt()
        return new


def catalogue(settings) -> tuple[dict, dict, list[str]]:
    """The coding session's tools (``runtime.every_tool``): listed, never offered outside the
    session's Agent (they act on its ``CodingFeature``; ``nanobot session`` offers them)."""
    return {t.name: t for t in (NewChange(None), DescribeChange(None), QueryAncestor(None))}, {}, []


def make_feature(agent) -> CodingFeature:
    session = CodingSession.open(agent.settings, agent.settings.coding.session)
    session.require_resumable()
    return CodingFeature(session)
