"""Cut tool output to a token budget, saying so."""

from __future__ import annotations

from collections.abc import Callable


def truncate(text: str, budget: int, count: Callable[[str], int]) -> str:
    """Keep the head of ``text`` within ``budget`` tokens and append a note when cut.

    >>> truncate("a b c d e f", 3, lambda t: len(t.split()))
    'a b\\n[truncated: showed 2 of 6 tokens]'
    """
    total = count(text)
    if total <= budget:
        return text
    keep = max(1, budget - min(16, budget // 2))  # leave room for the note
    lo, hi = 0, len(text)  # longest prefix (in chars) within ``keep`` tokens
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= keep:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo]
    cut = head.rfind("\n")
    if cut > lo // 2:
        head = head[:cut]
    head = head.rstrip()
    return f"{head}\n[truncated: showed {count(head)} of {total} tokens]"
