"""The two budget rules, written once: how much of something fits a token budget (``most_that_fits``,
a binary search over a prefix length), and what gives way when a prompt does not fit n_ctx
(``trim_oldest``: the oldest exchange, two messages at a time). ``Agent._fit`` trims with it, the
observer asks it what trimming would drop, the prompt sections, tool output and the vault digest fit
their text with the first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def most_that_fits(n: int, fits: Callable[[int], bool]) -> int:
    """The largest ``k`` in ``0..n`` with ``fits(k)`` (``fits`` holds up to some ``k``, then never);
    0 when not even ``fits(1)``. ``fits(0)`` is never asked.

    >>> most_that_fits(10, lambda k: k * k <= 30)
    5
    """
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def trim_oldest(history: Sequence[T], size: Callable[[list[T]], int], budget: int,
                used: int | None = None) -> tuple[list[T], int]:
    """(the history that is kept, how many exchanges were dropped): the oldest two messages give way
    while ``size(kept)`` is over ``budget``. ``used`` is ``size(history)`` when the caller has it.

    >>> trim_oldest([1, 2, 3, 4, 5], lambda h: sum(h), 9)
    ([5], 2)
    """
    kept = list(history)
    used = size(kept) if used is None else used
    dropped = 0
    while used > budget and kept:
        del kept[:2]
        dropped += 1
        used = size(kept)
    return kept, dropped
