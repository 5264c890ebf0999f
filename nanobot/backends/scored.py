"""First-token distributions of the prompts ``prefix_probability`` scored last, kept by their tokens.

A prompt's next-token distribution is a fact of its tokens: scored again (the turn's first decision on
a message its draft already had decided while the person paused, the second half of a yes/no), it is
read here instead of evaluating the prompt's last token again, and each likely partial start's next
distribution (```` ``` ```` before ``json``) with it. A distribution is the model's whole vocabulary
(~1 MB on Qwen2.5), so only the last ``SLOTS`` prompts are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

SLOTS = 4  # prompts whose distributions are kept (with up to a few partial starts each)


class Scored:
    """The last ``SLOTS`` prompts' first-token distributions and, per partial start token, the one after it."""

    def __init__(self) -> None:
        self._by: OrderedDict[tuple[int, ...], tuple[Any, dict[int, Any]]] = OrderedDict()

    def get(self, tokens: list[int]) -> tuple[Any, dict[int, Any]] | None:
        """(first distribution, {partial token: distribution after it}) of ``tokens``, or None."""
        key = tuple(tokens)
        found = self._by.get(key)
        if found is not None:
            self._by.move_to_end(key)
        return found

    def put(self, tokens: list[int], first: Any) -> tuple[Any, dict[int, Any]]:
        entry = self._by[tuple(tokens)] = (first, {})
        while len(self._by) > SLOTS:
            self._by.popitem(last=False)
        return entry

    def clear(self) -> None:
        self._by.clear()
