"""How much of the vault the TOC shows, and which docs it keeps first when not all fit.

``toc_budget``: "Your Knowledge" gets a share of the model's context -- ``[vault] toc_share`` (10%) of
``n_ctx``, at least ``toc_min`` (400) and at most ``toc_max`` (3,000) tokens, and never more than half of
the system prompt's ``[prompt] cap`` (the TOC must not crowd out the rest); ``[vault] toc = N`` fixes it.

``order``: the admission order when docs must be dropped (``toc.render_toc`` rule 3): first the docs
the audit ledger shows in use (changed through ``knowledge_apply``, newest entry first, from the last
``USE_BYTES`` of the ledger), then docs changed on disk in the last ``RECENT_DAYS`` days (newest
first), then the rest round-robin across folders, alphabetically.

>>> from types import SimpleNamespace as NS
>>> s = NS(vault=NS(toc=None, toc_share=0.1, toc_min=400, toc_max=3000), prompt=NS(cap=2000))
>>> [toc_budget(s, n) for n in (2048, 8192, 32768)]
[400, 819, 1000]
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from nanobot.base.regular import open_regular
from nanobot.vault.fmcache import DocMeta
from nanobot.vault.toc import round_robin

USE_BYTES = 256 << 10  # the ledger's tail read for "in use" (some 750 entries)
RECENT_DAYS = 30
PREFIX = "knowledge/"


def toc_budget(settings, n_ctx: int) -> int:
    vs = settings.vault
    if vs.toc is not None:
        return vs.toc
    share = max(vs.toc_min, min(vs.toc_max, int(vs.toc_share * n_ctx)))
    return min(share, settings.prompt.cap // 2)


def ledger_use(path: Path, tail: int = USE_BYTES) -> dict[str, str]:
    """knowledge-relative path -> the ts of its newest ledger entry (ISO text), from the ledger's last
    ``tail`` bytes; anything unreadable (a line, or the file: missing, not a regular file) counts as
    no use -- the digest is the one that reports a broken ledger."""
    used: dict[str, str] = {}
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return used
        with os.fdopen(open_regular(path), "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - tail))
            lines = f.read(tail).split(b"\n")[1 if size > tail else 0:]
    except OSError:
        return used
    for raw in reversed(lines):
        try:
            entry = json.loads(raw)
            p, ts = entry["path"], str(entry["ts"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(p, str) and p.startswith(PREFIX):
            used.setdefault(p[len(PREFIX):], ts)
    return used


def order(docs: list[DocMeta], used: dict[str, str], now: float | None = None) -> list[DocMeta]:
    """In use (newest ledger entry first), then recently changed (newest first), then round-robin."""
    cutoff = ((now if now is not None else time.time()) - RECENT_DAYS * 86400) * 1e9
    docs = [d for d in docs if not d.error]
    first = sorted((d for d in docs if d.path in used), key=lambda d: used[d.path], reverse=True)
    recent = sorted((d for d in docs if d.path not in used and d.mtime_ns >= cutoff),
                    key=lambda d: d.mtime_ns, reverse=True)
    picked = {d.path for d in first + recent}
    return first + recent + round_robin([d for d in docs if d.path not in picked])
