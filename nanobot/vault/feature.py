"""The vault as a feature: "Your Knowledge" (stable, order 50: inside the cached prefix, after CONTEXT)
and "Recent Changes" (volatile, order 95: after Time, so after every stable section).

Both are built once per session (keyed by ``agent.started``) and frozen: rebuilding the prompt within
a session gives the same bytes, and a doc written mid-session shows up from the next session on. At
session start a change a crash left half-done is finished or dropped first (``apply.recover``), and
each unreadable doc or ledger line is reported once, naming it. A broken vault never stops a chat:
if building either section fails (``audit/ledger.jsonl`` a directory, a FIFO, unreadable), that
section is left out and ONE warning names the file and the fix. An empty vault (no docs, no ledger)
contributes nothing, so the template workspace's prompt is unchanged. The feature's tools are
``vault/tools.py``'s (knowledge_read, knowledge_search, knowledge_apply).
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any

from nanobot.base.safe_text import one_line
from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.core.prompt import RawSection
from nanobot.tools.registry import offered
from nanobot.vault import apply, build
from nanobot.vault.ledger import ledger_path
from nanobot.vault.tools import TOOLS

TOC_ORDER = 50  # stable: between context (40) and time (90)
DIGEST_ORDER = 95  # volatile: after time (90)


class VaultFeature(Feature):
    name = "vault"

    def __init__(self, settings: Any):
        self.settings = settings
        self._key: datetime | None = None
        self._sections: list[RawSection] = []
        self._warnings: list[str] = []
        self._reported: set[str] = set()

    def build(self, agent: Any) -> list[RawSection]:
        """This session's sections (computed on the first call of the session, then reused)."""
        if self._key == agent.started:
            return self._sections
        self._warnings, sections, docs = [], [], []
        try:
            docs = self._toc(agent, sections)
        except Exception as e:  # a broken vault never stops a chat: the section is left out
            self._warnings.append(_broken("knowledge/", "Your Knowledge", e))
        try:
            self._digest(agent, sections, docs)
        except Exception as e:
            self._warnings.append(_broken("audit/ledger.jsonl", "Recent Changes", e))
        self._key, self._sections = agent.started, sections
        return sections

    def _toc(self, agent: Any, sections: list[RawSection]) -> list:
        built = build.knowledge(self.settings, agent.workspace, agent.model.n_ctx, agent.model.count_tokens)
        self._warnings += built.warnings
        if built.text:
            head, _, body = built.text.partition("\n")
            sections.append(RawSection(name="knowledge", text=body, header=head, budget=built.budget,
                                       order=TOC_ORDER))
        return built.docs

    def _digest(self, agent: Any, sections: list[RawSection], docs: list) -> None:
        if docs or os.path.lexists(ledger_path(agent.workspace)):
            built = build.recent_changes(self.settings, agent.workspace, agent.started, agent.model.count_tokens)
            self._warnings += built.warnings
            head, _, body = built.text.partition("\n")
            sections.append(RawSection(name="changes", text=body, header=head, budget=built.budget,
                                       stable=False, order=DIGEST_ORDER))

    def sections(self, agent: Any) -> list[RawSection]:
        return [s.model_copy() for s in self.build(agent)]

    def tools(self, settings: Any) -> list:
        return list(offered(TOOLS, settings).values())

    def on_session_start(self, agent: Any) -> list[Notice]:
        notes = []
        try:
            if apply.pending_path(agent.workspace).exists():
                with apply.lock(agent.workspace):
                    notes = apply.recover(agent.workspace, self.settings.home)
        except Exception as e:  # never stops a chat
            notes = [_broken("audit/pending.json", "the interrupted change", e)]
        self.build(agent)
        fresh = [w for w in self._warnings if w not in self._reported]
        self._reported.update(fresh)
        return [Notice(text=n) for n in notes] + [Notice(text=w, level="warning") for w in fresh]


def _broken(name: str, section: str, e: Exception) -> str:
    """One warning naming the file, what went wrong and the fix."""
    why = e.strerror if isinstance(e, OSError) and e.strerror else f"{type(e).__name__}: {e}"
    return (f"{name}: {one_line(str(why))[:160]}; \"{section}\" is left out of the prompt until it is "
            "fixed (make it a regular, readable file, or move it aside)")


def catalogue(settings: Any) -> tuple[dict, dict, list[str]]:
    """The knowledge tools, and the ones a chat with ``settings`` offers (``runtime.every_tool``)."""
    return {t.name: t for t in TOOLS}, offered(TOOLS, settings), []


def make_feature(agent: Any) -> VaultFeature:
    return VaultFeature(agent.settings)
