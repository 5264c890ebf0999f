"""Regions a watchdog may cut short: ``with interruptible(): ...`` marks work whose interruption has
a fallback (the observer's model draft: the extractive draft is written instead), and
``interruptible.now()`` says whether this thread is inside one. The chat's signal watchdog
(``cli/signals.py``) interrupts only there, instead of finding the work by a stack frame's name."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_here = threading.local()


@contextmanager
def interruptible() -> Iterator[None]:
    _here.depth = getattr(_here, "depth", 0) + 1
    try:
        yield
    finally:
        _here.depth -= 1


def now() -> bool:
    """Whether the calling thread is inside an ``interruptible()`` region."""
    return getattr(_here, "depth", 0) > 0
