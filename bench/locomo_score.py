"""LoCoMo's own answer scores (snap-research/locomo, ``task_eval/evaluation.py``), for ``locomo_answers.py``.

Answers are lower-cased, stripped of punctuation, commas and the words a/an/the/and, and Porter-stemmed
(nltk, the paper's stemmer); F1 is token overlap. Per category, as the paper scores them:
multi-hop (1) splits both sides at commas and averages, over the gold parts, the best F1 of any
predicted part; temporal (2) and single-hop (4) are plain F1; open-domain (3) scores against the gold
answer's first ';' part; adversarial (5) is 1 when the reply says "no information available" or
"not mentioned". Exact match: the normalised token sets are equal. ``recall`` (not LoCoMo's) is F1's
recall half alone: the share of the gold answer's tokens the reply holds, so a right answer said as a
sentence ("Jon's favorite style of dance is contemporary.") counts as right; F1 halves it for the
words around the answer.

>>> round(f1("She went on 7 May 2023.", "7 May 2023", 2), 2)
0.67
>>> f1("Sweden, Canada", "Canada, Sweden", 1)
1.0
>>> f1("That is not mentioned in our conversations.", "", 5)
1
>>> exact("The beach!", "beach")
True
>>> recall("Jon's favorite style of dance is contemporary.", "Contemporary", 4)
1.0
"""

from __future__ import annotations

import re
import string
from collections import Counter

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_stem = None


def _stemmer():
    global _stem
    if _stem is None:
        from nltk.stem import PorterStemmer  # the bench extra (pyproject: bench)

        _stem = PorterStemmer().stem
    return _stem


def normalize(text: str) -> str:
    text = str(text).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return " ".join(text.split())


def tokens(text: str) -> list[str]:
    stem = _stemmer()
    return [stem(w) for w in normalize(text).split()]


def token_f1(pred: str, gold: str) -> float:
    p, g = tokens(pred), tokens(gold)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def f1(pred: str, gold: str, category: int) -> float:
    """The paper's score of one answer in ``category``."""
    if category == 5:
        said = pred.lower()
        return int("no information available" in said or "not mentioned" in said)
    if category == 1:
        preds = [p.strip() for p in pred.split(",")]
        golds = [g.strip() for g in str(gold).split(",")]
        return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)
    if category == 3:
        gold = str(gold).split(";")[0].strip()
    return token_f1(pred, str(gold))


def exact(pred: str, gold: str) -> bool:
    return set(tokens(pred)) == set(tokens(str(gold)))


def recall(pred: str, gold: str, category: int) -> float | None:
    """The share of the gold answer's tokens in ``pred`` (multi-hop: per comma part, averaged); None for
    an adversarial question."""
    if category == 5:
        return None
    if category == 3:
        gold = str(gold).split(";")[0].strip()
    golds = [g.strip() for g in str(gold).split(",")] if category == 1 else [str(gold)]
    have = set(tokens(pred))
    parts = [tokens(g) for g in golds if tokens(g)]
    return sum(sum(t in have for t in g) / len(g) for g in parts) / len(parts) if parts else 0.0
