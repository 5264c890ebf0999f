"""Background work (embedder load, indexing, reflection, git checks), tracked so the process can
finish it before exiting.

A daemon thread still inside torch or llama.cpp when the interpreter shuts down aborts the process
("terminate called without an active exception") and can leave a half-done write behind. Every
background job goes through ``start``; the CLI calls ``join_all`` before it exits. A job started
with ``derived=True`` only derives data that is rebuilt when missing (the memory index, the embedder
warming): the interactive chat leaves without it (``join_all(derived=False)`` then ``os._exit``, so
no interpreter teardown runs under it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

_threads: list[threading.Thread] = []
_derived: set[threading.Thread] = set()
_lock = threading.Lock()


def start(target: Callable[..., object], name: str, args: tuple = (), derived: bool = False) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, args=args, daemon=True)
    if derived:
        _derived.add(thread)
    with _lock:
        _threads[:] = [t for t in _threads if t.is_alive()]
        _threads.append(thread)
    thread.start()
    return thread


def pending() -> list[str]:
    with _lock:
        return [t.name for t in _threads if t.is_alive()]


def join_all(timeout: float = 120.0, derived: bool = True) -> list[str]:
    """Wait for background jobs (up to ``timeout`` s in all; ``derived=False``: not for the derived
    ones); return the names still running."""
    deadline = time.monotonic() + timeout
    with _lock:
        threads = [t for t in _threads if derived or t not in _derived]
    for t in threads:
        if t is not threading.current_thread():
            t.join(max(0.0, deadline - time.monotonic()))
    return pending()
