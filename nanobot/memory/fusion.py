"""Hybrid ranking: one score per candidate from the vector list and the keyword (BM25) list.

``blend`` (the default) puts both sides on one scale before weighting them: the cosine of each
candidate is min-max normalised over the candidates (the best one 1, the worst 0), the BM25 of each
keyword match divided by the best match's (unmatched: 0), and the fused score is
``alpha * vector + (1 - alpha) * keyword``. ``alpha`` and the candidate depth were chosen on LoCoMo's
development conversations (bench/locomo_bench.py, bench/results/locomo-tune.json); ``rrf`` (reciprocal
rank fusion) is kept for comparison.

>>> fused = blend({1: 0.9, 2: 0.5, 3: 0.1}, {3: -8.0, 2: -4.0}, alpha=0.4)
>>> sorted(fused, key=lambda c: -fused[c])
[3, 2, 1]
>>> rrf([1, 2], [2, 3])[2] > rrf([1, 2], [2, 3])[1]
True
"""

from __future__ import annotations

ALPHA = 0.5
RRF_K = 60


def blend(cosines: dict[int, float], bm25: dict[int, float], alpha: float = ALPHA) -> dict[int, float]:
    """Fused scores for every candidate in ``cosines`` (which must hold the keyword matches too);
    ``bm25`` is SQLite's (lower = better, negative)."""
    if not cosines:
        return {}
    lo, hi = min(cosines.values()), max(cosines.values())
    span = hi - lo or 1.0
    best = max((-b for b in bm25.values()), default=0.0) or 1.0
    return {c: alpha * (s - lo) / span + (1 - alpha) * max(0.0, -bm25.get(c, 0.0)) / best
            for c, s in cosines.items()}


def rrf(*ranked: list[int], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion of ranked id lists."""
    out: dict[int, float] = {}
    for ids in ranked:
        for rank, c in enumerate(ids, 1):
            out[c] = out.get(c, 0.0) + 1.0 / (k + rank)
    return out
