"""Cut tool output to a token budget, saying so."""

from __future__ import annotations

from collections.abc import Callable

from nanobot.core.fitting import most_that_fits


def truncate(text: str, budget: int, count: Callable[[str], int]) -> str:
    """Keep the head of ``text`` within ``budget`` tokens and append a note when cut.

    The note's own tokens are reserved first (a real tokenizer spends one token per digit on its
    figures: ~16-19 tokens), so the result fits ``budget`` whenever the budget has room for the note
    and a token of text (``tools.output_tokens`` >= 32 always does).

    >>> truncate("a b c d e f g h i j k l", 10, lambda t: len(t.split()))
    'a b c\\n[truncated: showed 3 of 12 tokens]'
    """
    total = count(text)
    if total <= budget:
        return text
    # showed <= budget, so this note is never shorter; +1 for a token merging across the join
    keep = max(1, budget - count(_note(budget, total)) - 1)
    lo = most_that_fits(len(text), lambda n: count(text[:n]) <= keep)  # longest prefix, in chars
    head = text[:lo]
    cut = head.rfind("\n")
    if cut > lo // 2:
        head = head[:cut]
    head = head.rstrip()
    return f"{head}{_note(count(head), total)}"


def _note(shown: int, total: int) -> str:
    return f"\n[truncated: showed {shown} of {total} tokens]"
