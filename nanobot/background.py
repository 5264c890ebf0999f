"""Background work (embedder load, indexing, reflection, git checks), tracked so the process can
finish it before exiting.

A daemon thread still inside torch or llama.cpp when the interpreter shuts down aborts the process
("terminate called without an active exception") and can leave a half-done write behind. Every
background job goes through ``start``; the CLI calls ``join_all`` before it exits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

_threads: list[threading.Thread] = []
_lock = threading.Lock()


def start(target: Callable[..., object], name: str, args: tuple = ()) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, args=args, daemon=True)
    with _lock:
        _threads[:] = [t for t in _threads if t.is_alive()]
        _threads.append(thread)
    thread.start()
    return thread


def pending() -> list[str]:
    with _lock:
        return [t.name for t in _threads if t.is_alive()]


def join_all(timeout: float = 120.0) -> list[str]:
    """Wait for background jobs (up to ``timeout`` s in all); return the names still running."""
    deadline = time.monotonic() + timeout
    with _lock:
        threads = list(_threads)
    for t in threads:
        if t is not threading.current_thread():
            t.join(max(0.0, deadline - time.monotonic()))
    return pending()
