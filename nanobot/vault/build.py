"""The vault's two prompt texts, built one way for the chat (``VaultFeature``) and for ``nanobot vault
toc|digest``: "Your Knowledge" (the TOC, within a budget that follows n_ctx, docs the ledger uses
kept first) and "Recent Changes" (the ledger's last hours). Each returns its text and the warnings
(files left out) for the caller to show; nothing here prints."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from nanobot.base.safe_text import one_line
from nanobot.vault import digest, fmcache, rank, toc
from nanobot.vault.ledger import ledger_path


class Built(BaseModel):
    text: str
    budget: int
    warnings: list[str] = []
    docs: list = []  # the TOC's scanned docs (whether the vault has any)


def knowledge(settings, workspace: Path, n_ctx: int, count: Callable[[str], int],
              budget: int | None = None) -> Built:
    """"Your Knowledge": ``budget`` tokens, or a share of ``n_ctx`` (``rank.toc_budget``)."""
    scan = fmcache.scan(workspace, settings.cache_dir / "vault" / "frontmatter.json")
    warnings = [f"knowledge/{one_line(d.path)}: {d.error}; left out of Your Knowledge"
                for d in scan.docs if d.error]
    budget = rank.toc_budget(settings, n_ctx) if budget is None else budget
    keep_first = rank.order(scan.docs, rank.ledger_use(ledger_path(workspace)))
    text = toc.render_toc(scan.docs, budget, count, order=keep_first)
    return Built(text=text, budget=budget, warnings=warnings, docs=scan.docs)


def recent_changes(settings, workspace: Path, now: datetime, count: Callable[[str], int],
                   hours: float | None = None, budget: int | None = None) -> Built:
    """"Recent Changes": the ledger's entries of the last ``hours`` (``vault.hours``), newest first."""
    hours = settings.vault.hours if hours is None else hours
    budget = settings.vault.digest if budget is None else budget
    found = digest.recent(ledger_path(workspace), now, hours)
    text = digest.render_digest(found.entries, now, hours, budget, count)
    return Built(text=text, budget=budget, warnings=[f"audit/{w}" for w in found.warnings])
