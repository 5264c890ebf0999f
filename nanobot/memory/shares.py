"""The per-turn budget split between "Relevant Memory:" (MEMORY.md, knowledge/), "Related
Context:" (observations/) and "Past Conversations:" (earlier sessions' transcripts): each gets its
share of ``prompt.memory``, and what one leaves unused flows to the others.

>>> from nanobot.memory.retriever import fit
>>> words = lambda t: len(t.split())
>>> split_fit(["- m1 m1", "- m2 m2"], ["- o1 o1", "- o2 o2"], 12, 0.5, words, fit)
'Relevant Memory:\\n- m1 m1\\n\\nRelated Context:\\n- o1 o1'
>>> split_fit(["- m1 m1"], [], 14, 0.4, words, fit, past=["- p1 p1", "- p2 p2"], past_share=0.5)
'Relevant Memory:\\n- m1 m1\\n\\nPast Conversations:\\n- p1 p1\\n- p2 p2'
"""

from __future__ import annotations

from collections.abc import Callable

MEMORY_HEADER = "Relevant Memory:"
RELATED_HEADER = "Related Context:"
PAST_HEADER = "Past Conversations:"
Fit = Callable[[list[str], int, Callable[[str], int], str], str]


def is_observation(source: str) -> bool:
    return source.replace("\\", "/").startswith("observations/")


def split_fit(memory: list[str], related: list[str], budget: int, related_share: float,
              count: Callable[[str], int], fit: Fit, past: list[str] | None = None,
              past_share: float = 0.0) -> str:
    """The blocks (memory, related, past; in that order) within ``budget`` tokens. Each block but
    the first non-empty one is guaranteed its share; the first gets the rest. Then each block in
    turn may use what the earlier ones left, and finally the earlier ones take back what the later
    ones left unused."""
    blocks = [(h, lines, s) for h, lines, s in ((MEMORY_HEADER, memory, 0.0),
                                                 (RELATED_HEADER, related, related_share),
                                                 (PAST_HEADER, past or [], past_share)) if lines]
    if not blocks:
        return ""
    rooms = [round(budget * s) for _, _, s in blocks]
    rooms[0] = budget - sum(rooms[1:])
    text = [""] * len(blocks)
    for i, (header, lines, _) in enumerate(blocks):  # own room plus what the earlier ones left
        room = budget - sum(_used(t, count) for t in text[:i]) - sum(rooms[i + 1:])
        text[i] = fit(lines, room, count, header)
    for i in reversed(range(len(blocks) - 1)):  # the earlier ones take back what is left
        header, lines, _ = blocks[i]
        room = budget - sum(_used(t, count) for j, t in enumerate(text) if j != i)
        text[i] = fit(lines, room, count, header)
    return "\n\n".join(t for t in text if t)


def _used(block: str, count: Callable[[str], int]) -> int:
    return count(block) + 1 if block else 0  # + the blank line between the blocks
