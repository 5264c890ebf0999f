"""The per-turn budget split between "Relevant Memory:" (MEMORY.md, knowledge/) and "Related
Context:" (observations/): each gets its share of ``prompt.memory``, and what one leaves unused
flows to the other.

>>> from nanobot.memory.retriever import fit
>>> words = lambda t: len(t.split())
>>> split_fit(["- m1 m1", "- m2 m2"], ["- o1 o1", "- o2 o2"], 12, 0.5, words, fit)
'Relevant Memory:\\n- m1 m1\\n\\nRelated Context:\\n- o1 o1'
"""

from __future__ import annotations

from collections.abc import Callable

MEMORY_HEADER = "Relevant Memory:"
RELATED_HEADER = "Related Context:"
Fit = Callable[[list[str], int, Callable[[str], int], str], str]


def is_observation(source: str) -> bool:
    return source.replace("\\", "/").startswith("observations/")


def split_fit(memory: list[str], related: list[str], budget: int, related_share: float,
              count: Callable[[str], int], fit: Fit) -> str:
    """Both blocks (memory first) within ``budget`` tokens; the related block is guaranteed
    ``related_share`` of it, the memory block the rest, and unused room moves across."""
    related_room = round(budget * related_share) if memory else budget
    mem = fit(memory, budget - related_room, count, MEMORY_HEADER) if memory else ""
    rel = fit(related, budget - _used(mem, count), count, RELATED_HEADER) if related else ""
    if memory:  # what the related block left unused flows back to memory
        mem = fit(memory, budget - _used(rel, count), count, MEMORY_HEADER)
    return "\n\n".join(b for b in (mem, rel) if b)


def _used(block: str, count: Callable[[str], int]) -> int:
    return count(block) + 1 if block else 0  # + the blank line between the blocks
