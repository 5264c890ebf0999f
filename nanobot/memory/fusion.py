"""Hybrid ranking: one score per candidate from the vector list and the keyword (BM25) list.

``blend`` (the default) puts both sides on one scale before weighting them: the cosine of each
candidate is min-max normalised over the candidates (the best one 1, the worst 0; a spread under
``MIN_SPAN`` counts as ``MIN_SPAN``, so a few near-equal candidates stay near-equal), the BM25 of each
keyword match divided by the best match's (unmatched: 0), and the fused score is
``alpha * vector + (1 - alpha) * keyword``; then ``spread`` lifts the chunks next to good
candidates. ``alpha``, ``beta`` and the candidate depth were chosen on LoCoMo's development conversations (bench/locomo_bench.py, bench/results/locomo-tune.json); ``rrf`` (reciprocal
rank fusion) is kept for comparison.

>>> fused = blend({1: 0.9, 2: 0.5, 3: 0.1}, {3: -8.0, 2: -4.0}, alpha=0.4)
>>> sorted(fused, key=lambda c: -fused[c])
[3, 2, 1]
>>> rrf([1, 2], [2, 3])[2] > rrf([1, 2], [2, 3])[1]
True
"""

from __future__ import annotations

ALPHA = 0.5
BETA = 0.3  # share of a candidate's score its neighbouring chunks gain (``spread``)
ANSWER_BETA = 0.6  # the share the chunk after a question (its reply) gains instead
MIN_SPAN = 0.2  # cosines closer than this are not stretched apart (a handful of candidates)
RRF_K = 60


def blend(cosines: dict[int, float], bm25: dict[int, float], alpha: float = ALPHA) -> dict[int, float]:
    """Fused scores for every candidate in ``cosines`` (which must hold the keyword matches too);
    ``bm25`` is SQLite's (lower = better, negative)."""
    if not cosines:
        return {}
    lo, hi = min(cosines.values()), max(cosines.values())
    span = max(hi - lo, MIN_SPAN)
    best = max((-b for b in bm25.values()), default=0.0) or 1.0
    return {c: alpha * (s - lo) / span + (1 - alpha) * max(0.0, -bm25.get(c, 0.0)) / best
            for c, s in cosines.items()}


def vector_part(cosine: float, cosines: dict[int, float], alpha: float = ALPHA) -> float:
    """What ``blend`` gives a chunk with no keyword match (a neighbour outside the candidates)."""
    lo, hi = min(cosines.values()), max(cosines.values())
    return alpha * max(0.0, cosine - lo) / max(hi - lo, MIN_SPAN)


def spread(scores: dict[int, float], neighbours: dict[int, list[int]], own: dict[int, float],
           beta: float = BETA, replies: dict[int, int] | None = None,
           answer_beta: float = ANSWER_BETA) -> dict[int, float]:
    """Each chunk next to a candidate (the previous or next chunk of the same source) scores at
    least its own score plus ``beta`` times that candidate's: the turn before or after the one that
    matches the question's words often holds the answer. ``replies``: a candidate that asks a question
    -> the chunk after it, which gains ``answer_beta`` instead (in a conversation the reply to a
    question holds its answer: "How long have you been married?" -> "5 years already!"). Chosen on
    LoCoMo dev (bench/locomo_bench.py, hybrid hit@5): without 0.707; 0.4 0.720, 0.5 0.723, 0.6 0.726,
    0.7 0.726. ``own``: the neighbours' own scores.

    >>> spread({1: 0.9, 5: 0.5}, {1: [2], 5: [4, 6]}, {2: 0.1, 4: 0.0, 6: 0.6})
    {1: 0.9, 5: 0.5, 2: 0.37, 4: 0.15, 6: 0.75}
    >>> spread({1: 0.9, 5: 0.5}, {1: [2], 5: [4, 6]}, {2: 0.1, 4: 0.0, 6: 0.6}, replies={1: 2})[2]
    0.64
    """
    replies = replies or {}
    out = dict(scores)
    for c, v in scores.items():
        for n in neighbours.get(c, ()):
            base = scores.get(n, own.get(n, 0.0))
            share = answer_beta if replies.get(c) == n else beta
            out[n] = round(max(out.get(n, base), base + share * v), 6)
    return out


def rrf(*ranked: list[int], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal rank fusion of ranked id lists."""
    out: dict[int, float] = {}
    for ids in ranked:
        for rank, c in enumerate(ids, 1):
            out[c] = out.get(c, 0.0) + 1.0 / (k + rank)
    return out
