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


def least_from(guess: int, n: int, ok: Callable[[int], bool]) -> int:
    """The smallest ``k`` in ``1..n`` with ``ok(k)`` (``ok`` fails up to some ``k``, then holds), ``n``
    when none does; searched outward from ``guess`` (doubling steps, then halving), so a good guess
    costs two or three calls of ``ok`` and a bad one ``2 log n``. ``ok(0)`` is never asked.

    >>> least_from(3, 100, lambda k: k * k >= 50), least_from(90, 100, lambda k: k * k >= 50)
    (8, 8)
    """
    guess = min(max(guess, 1), n)
    if ok(guess):
        hi, step = guess, 1
        while hi - step >= 1 and ok(hi - step):
            hi, step = hi - step, step * 2
        lo = max(hi - step, 0)
    else:
        lo, step = guess, 1
        while lo + step < n and not ok(lo + step):
            lo, step = lo + step, step * 2
        hi = min(lo + step, n)
    while hi - lo > 1:  # ok(lo) fails (or lo is 0), ok(hi) holds (or hi is n)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def trim_oldest(history: Sequence[T], size: Callable[[list[T]], int], budget: int,
                used: int | None = None, cost: Callable[[T], int] | None = None) -> tuple[list[T], int]:
    """(the history that is kept, how many exchanges were dropped): the fewest oldest exchanges (two
    messages each) whose going brings ``size(kept)`` within ``budget`` (all of them when nothing
    does). ``used`` is ``size(history)`` when the caller has it; ``cost(message)``, each message's
    own tokens counted once, guesses how many must go, so ``size`` runs a few times, not once per
    dropped exchange (a resumed session of 1,000 exchanges: 1,000 renderings of the whole history).

    >>> trim_oldest([1, 2, 3, 4, 5], lambda h: sum(h), 9), trim_oldest([1, 2, 3, 4, 5], sum, 9, cost=int)
    (([5], 2), ([5], 2))
    """
    kept = list(history)
    used = size(kept) if used is None else used
    if used <= budget or not kept:
        return kept, 0
    guess = 1
    if cost is not None:  # each message counted once; the template's share per message from size([])
        costs = [cost(m) for m in kept]
        per = max(0.0, (used - size([]) - sum(costs)) / len(kept))
        over = used - budget
        for i, c in enumerate(costs):
            over -= c + per
            if over <= 0:
                guess = i // 2 + 1
                break
        else:
            guess = (len(kept) + 1) // 2
    n = (len(kept) + 1) // 2
    dropped = least_from(guess, n, lambda d: size(kept[2 * d:]) <= budget)
    return kept[2 * dropped:], dropped
