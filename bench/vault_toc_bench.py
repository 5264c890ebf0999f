"""How much of the vault "Your Knowledge" shows (issue 25): docs shown for 65 / 300 / 1,000 docs at
n_ctx 2k, 8k and 32k, with the bundled model's tokenizer.

    PYTHONPATH=. .venv/bin/python bench/vault_toc_bench.py [--out bench/results/vault-toc.json]

For each vault size and n_ctx: the TOC's budget (``vault.rank.toc_budget``: 10% of n_ctx, 400..3,000,
at most half of ``[prompt] cap``), the docs shown, how many with a summary (whole or shortened) and how
many with the whole one, the tokens used; once with the default cap (2,000) and once with ``[prompt] cap = 8000`` (so the 32k
context reaches the ceiling). ``before`` is the old rule: a fixed 400 tokens, whole summaries, docs
dropped round-robin. Docs are those of ``bench/vault_bench.py`` (10 folders, one-line summaries).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from figures import emit
from vault_bench import make_vault  # bench/ is on sys.path when run as a script

from nanobot.config import load_settings
from nanobot.runtime import load_model
from nanobot.vault import fmcache, rank, toc
from nanobot.workspace import init_workspace

SIZES, CONTEXTS = (65, 300, 1000), (2048, 8192, 32768)


def shown(text: str) -> tuple[int, int, int]:
    """(docs listed, of them with a summary, of those with the whole summary)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("- ") and not ln.startswith("- … and")]
    with_summary = [ln for ln in lines if " — " in ln]
    return len(lines), len(with_summary), sum(not ln.endswith("…") for ln in with_summary)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args()
    home = Path(tempfile.mkdtemp(prefix="vault-toc-bench-"))
    os.environ["NANOBOT_HOME"] = str(home)
    rows = []
    count = None
    for n in SIZES:
        settings = load_settings(home)
        ws = settings.workspace
        shutil.rmtree(ws, ignore_errors=True)
        init_workspace(ws)
        make_vault(ws, n)
        count = count or load_model(settings, vocab_only=True).count_tokens
        docs = fmcache.scan(ws).docs
        order = rank.order(docs, {})
        levels, toc.LEVELS = toc.LEVELS, (None,)  # the old rule: whole summaries, round-robin, 400
        before = shown(toc.render_toc(docs, 400, count))[0]
        toc.LEVELS = levels
        for n_ctx in CONTEXTS:
            for cap in (2000, 8000):
                s = load_settings(home, prompt={"cap": cap})
                budget = rank.toc_budget(s, n_ctx)
                text = toc.render_toc(docs, budget, count, order=order)
                docs_shown, summaries, whole = shown(text)
                rows.append({"docs": n, "n_ctx": n_ctx, "cap": cap, "budget": budget, "shown": docs_shown,
                             "with_summary": summaries, "whole_summary": whole, "tokens": count(text),
                             "before_400_whole": before})
    out = {"bench": "vault-toc", "load": os.getloadavg(), "rows": rows}
    emit(out, a.out, indent=1)
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
