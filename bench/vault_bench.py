"""Knowledge vault start-up costs (issue 11), with the bundled model's tokenizer.

    .venv/bin/python bench/vault_bench.py [--docs 1000] [--lines 100000] [--out bench/results/vault.json]

- ``toc_cold_ms``: "Your Knowledge" over ``--docs`` docs (10 folders, frontmatter + ~2 KB body each)
  with no frontmatter cache (a first start: every doc read and parsed; the OS file cache is warm);
  ``toc_warm_ms``: the same with the cache (one ``stat`` per doc). Both include rendering within the
  TOC's budget for the bundled model's n_ctx (``vault.rank.toc_budget``) with the real tokenizer.
  Target <= 50 ms. (Docs shown per vault size and n_ctx: ``bench/vault_toc_bench.py``.)
- ``digest_ms``: "Recent Changes (last 24h)" over a ``--lines``-line ledger whose last 24 hours hold
  40 entries (read backwards, rendered within its 200-token budget). Target <= 20 ms.
- ``rank_ms``: the order the TOC keeps docs in when not all fit (the ledger's last 256 KiB read for
  the docs in use, then recency, then round-robin), over the same docs and ledger.
- ``prompt``: the template workspace plus a 100-doc vault, the system prompt's tokens per section, as
  ``nanobot prompt`` shows them. Target <= 1,000 tokens.
Median of ``--runs`` runs each; prints one JSON object.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from figures import emit

from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features, load_model
from nanobot.vault import digest, fmcache, rank
from nanobot.vault.ledger import LedgerEntry, ledger_path
from nanobot.vault.toc import render_toc
from nanobot.workspace import init_workspace

FOLDERS = ["projects", "areas", "people", "howto", "archive", "reading", "recipes", "travel", "work", "misc"]
BODY = "Some notes about the subject, with details that matter later. " * 32


def make_vault(ws: Path, n: int) -> None:
    for i in range(n):
        folder = ws / "knowledge" / FOLDERS[i % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc-{i:04d}.md").write_text(
            f"---\ntitle: Doc {i}\nsummary: What document {i} is about, in one concrete line\n"
            f"tags: [t{i % 7}]\n---\n# Doc {i}\n\n{BODY}\n")


def make_ledger(ws: Path, lines: int, now: datetime) -> None:
    p = ledger_path(ws)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w") as f:
        for i in range(lines):  # the oldest first, the last 40 within the window
            ago = timedelta(minutes=30 * (lines - 1 - i)) if i >= lines - 40 else timedelta(days=2, minutes=lines - i)
            e = LedgerEntry(ts=now - ago, actor="model", action="update", path=f"knowledge/projects/doc-{i % 1000:04d}.md",
                            reason="the user asked", change_summary=f"Changed detail {i}", sha_before="a" * 64,
                            sha_after="b" * 64)
            f.write(e.line() + "\n")


def timed(fn, runs: int) -> float:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(out), 2)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--lines", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args()
    home = Path(tempfile.mkdtemp(prefix="vault-bench-"))
    os.environ["NANOBOT_HOME"] = str(home)
    settings = load_settings(home)
    ws = settings.workspace
    init_workspace(ws)
    model = load_model(settings, vocab_only=True)
    count, budget = model.count_tokens, rank.toc_budget(settings, model.n_ctx)
    make_vault(ws, a.docs)
    cache = home / "fm.json"

    def toc_cold():
        cache.unlink(missing_ok=True)
        return render_toc(fmcache.scan(ws, cache).docs, budget, count)

    def toc_warm():
        return render_toc(fmcache.scan(ws, cache).docs, budget, count)

    cold = timed(toc_cold, a.runs)
    toc_cold()
    warm = timed(toc_warm, a.runs)
    text = toc_warm()
    now = datetime.now().astimezone()
    make_ledger(ws, a.lines, now)

    def dig():
        found = digest.recent(ledger_path(ws), now, 24)
        return digest.render_digest(found.entries, now, 24, settings.vault.digest, count)

    dig_ms = timed(dig, a.runs)
    docs = fmcache.scan(ws, cache).docs
    rank_ms = timed(lambda: rank.order(docs, rank.ledger_use(ledger_path(ws))), a.runs)
    # the template plus a 100-doc vault (and this ledger), as the chat builds it
    shutil.rmtree(ws / "knowledge")
    make_vault(ws, 100)
    agent = Agent(settings, load_model(settings, vocab_only=True))
    attach_features(agent)
    agent.start_session()
    built = agent.system_prompt()
    out = {"bench": "vault", "docs": a.docs, "ledger_lines": a.lines, "ledger_mb": round(ledger_path(ws).stat().st_size / 2**20, 1),
           "toc_cold_ms": cold, "toc_warm_ms": warm, "toc_tokens": count(text), "toc_lines": len(text.splitlines()),
           "digest_ms": dig_ms, "rank_ms": rank_ms, "load": os.getloadavg(), "digest_entries": len(digest.recent(ledger_path(ws), now, 24).entries),
           "prompt_100_docs": {"total_tokens": built.total_tokens,
                               "sections": {s.name: s.tokens for s in built.sections}}}
    emit(out, a.out, indent=1)
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
