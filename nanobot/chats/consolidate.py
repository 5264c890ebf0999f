"""Consolidation: a chat's new messages -> its CONTEXT.md, in three passes.

A, suggester (the model, ``suggester.py``) -> B, reviewer (code, ``reviewer.py``) -> C, committer
(``committer.py``). Only pass C writes, atomically, and only after it does is the chat's
``last_consolidated`` moved; a crash between passes (fault points ``consolidate-suggested`` and
``consolidate-reviewed``) leaves the previous file intact and the messages to be read again next
time. The messages read are those since the last consolidation, at most ``lookback_days`` back.
``dry_run`` runs A and B and renders C's file, writes nothing, and returns the file and a diff.
The clock is injectable (``clock``), so pruning and dates are testable.

    report = consolidate(settings, "team", model)      # report.text is the new file
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from nanobot.backends.base import ChatModel
from nanobot.base import faults
from nanobot.chats import committer
from nanobot.chats.contextfile import ContextFile, Item
from nanobot.chats.messages import chat_messages
from nanobot.chats.reviewer import Decision, Similarity, review
from nanobot.chats.store import ChatError, context_path, list_chats, load_chat, pending, update_chat
from nanobot.chats.suggester import Window, make_windows, suggest
from nanobot.config import Settings
from nanobot.workspace import read_text


class Report(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    chat: str
    since: datetime | None = None
    messages: int = 0
    windows: list[Window] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    cap_dropped: list[Item] = Field(default_factory=list)
    old: str = ""
    text: str = ""  # the new file
    written: bool = False
    dry_run: bool = False
    seconds: dict[str, float] = Field(default_factory=dict)  # per pass: suggest, review, commit
    warnings: list[str] = Field(default_factory=list)

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.old.splitlines(True), self.text.splitlines(True),
                                            "CONTEXT.md (now)", "CONTEXT.md (new)"))

    def summary(self) -> str:
        n = {o: sum(d.outcome == o for d in self.decisions) for o in ("added", "merged", "dropped", "pruned")}
        what = "would write" if self.dry_run else "wrote" if self.written else "unchanged"
        return (f"{self.chat}: {self.messages} message(s) in {len(self.windows)} window(s); "
                f"{n['added']} added, {n['merged']} merged, {n['dropped']} dropped, {n['pruned']} pruned"
                f"{f', {len(self.cap_dropped)} cut for size' if self.cap_dropped else ''}; {what} "
                f"CONTEXT.md ({len(self.text.encode())} bytes)")


def _now() -> datetime:
    return datetime.now().astimezone()


def consolidate(settings: Settings, chat_id: str, model: ChatModel | None, *,
                clock: Callable[[], datetime] = _now, dry_run: bool = False,
                similarity: Similarity | None = None) -> Report:
    chat = load_chat(settings.home, chat_id)
    if chat is None:
        raise ChatError(f"no chat named {chat_id!r}; `nanobot chats` lists them")
    cfg, now = settings.consolidation, clock()
    since = now - timedelta(days=cfg.lookback_days)
    if chat.last_consolidated is not None and chat.last_consolidated > since:
        since = chat.last_consolidated
    msgs, warnings = chat_messages(settings.sessions_dir, chat.sessions, since, now)
    path = context_path(settings.home, chat_id)
    rep = Report(chat=chat_id, since=since, messages=len(msgs), old=read_text(path), dry_run=dry_run,
                 warnings=warnings)

    t0 = time.perf_counter()  # -- pass A: the model proposes, window by window
    if msgs and model is None:
        raise ChatError(f"chat {chat_id!r} has new messages but no model was given to read them")
    rep.windows = make_windows(model, msgs, cfg.max_tokens) if msgs else []
    for w in rep.windows:
        suggest(model, w, cfg.max_tokens)
    faults.point("consolidate-suggested")

    t1 = time.perf_counter()  # -- pass B: code decides
    sim = similarity or _similarity(settings)
    reviewed = review(ContextFile.parse(rep.old), rep.windows, msgs, now, sim,
                      merge_similarity=cfg.merge_similarity, prune_days=cfg.prune_days, topics=cfg.topics)
    rep.decisions = reviewed.decisions
    faults.point("consolidate-reviewed")

    t2 = time.perf_counter()  # -- pass C: render, cap, write
    if dry_run:
        rep.text, rep.cap_dropped = committer.render(reviewed.doc, rep.old, chat_id, now, cfg.max_bytes,
                                                     chat.group)
    else:
        done = committer.commit(path, reviewed.doc, chat_id, now, cfg.max_bytes, chat.group)
        rep.old, rep.text, rep.cap_dropped, rep.written = done.old, done.new, done.dropped, done.written
        update_chat(settings.home, chat_id, lambda c: setattr(c, "last_consolidated", now))
    rep.seconds = {"suggest": round(t1 - t0, 3), "review": round(t2 - t1, 3),
                   "commit": round(time.perf_counter() - t2, 3)}
    return rep


def pending_chats(settings: Settings) -> list[str]:
    """Chats active since their last consolidation (``--all``, the nightly job)."""
    return [c.id for c in list_chats(settings.home) if pending(c)]


def _similarity(settings: Settings) -> Similarity:
    """The memory embedder's cosine (lexical without it), loaded only when there is something to compare."""
    loaded: list[Similarity] = []

    def sim(a: list[str], b: list[str]) -> list[list[float]]:
        if not loaded:
            from nanobot.observer.reflector import default_similarity

            loaded.append(default_similarity(settings))
        return loaded[0](a, b)
    return sim
