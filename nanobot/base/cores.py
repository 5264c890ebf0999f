"""How many CPU threads a heavy computation may take: the cores, less what other processes keep busy.

Shared by the chat model (llama.cpp threads) and the embedder's bulk batches (indexing): both spin
their workers, so a thread that shares its core with another busy process stalls the rest.
``model_threads`` (the chat model) reads what other processes do now rather than over the last
minute: right after a chat the load average still counts that chat (gone) and its housekeeping
child, which runs at idle priority and yields the cores (/proc/stat's ``nice`` column, left out).
"""

from __future__ import annotations

import os
import time
from functools import lru_cache

WINDOW_S = 0.2  # the least time ``busy_now`` looks at


@lru_cache(maxsize=1)
def default_threads() -> int:
    """Physical cores. llama-cpp-python's own default (cpu_count // 2) gives a 2-core machine one
    generation thread: measured here 32 tok/s vs 47-68 with two (bench/results/smollm2.json)."""
    try:
        import psutil

        n = psutil.cpu_count(logical=False)
    except ImportError:  # pragma: no cover
        n = None
    return max(1, n or os.cpu_count() or 1)


def free_threads() -> int:
    """The default thread count: physical cores minus what other processes keep busy (the 1-minute
    load average, read before our model runs), at least 1.

    llama.cpp's worker threads wait for each other at every op (spinning; 0.3.36 exposes no polling
    or threadpool setting), so a thread that shares its core with another busy process stalls them
    all. bench/busy_bench.py on 2 cores: idle, 2 threads 0.30 s vs 1 thread 0.40 s per 32-token reply;
    beside one CPU-bound process, 2 threads 0.97 s vs 1 thread 0.45 s. Fewer threads under load
    costs ~1.3x at worst; too many costs 2x and more. ``n_threads`` in config.toml overrides this.
    """
    cores = default_threads()
    try:
        busy = int(os.getloadavg()[0] + 0.5)
    except (OSError, AttributeError):  # pragma: no cover - no load average (Windows)
        busy = 0
    return max(1, min(cores, cores - busy))




def _snapshot() -> tuple[float, float, float] | None:
    """(CPU seconds all cores spent at normal priority, this process's CPU seconds, monotonic time);
    None without /proc/stat. Niced time (``nice``, the housekeeping child's) and idle are left out."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    fields += [0] * (8 - len(fields))
    user, _nice, system, _idle, _iowait, irq, softirq, steal = fields
    own = os.times()
    return (user + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK"), own.user + own.system, time.monotonic()


STARTED = _snapshot()  # at import: in the chat, before the model file is opened


def busy_now(since: tuple[float, float, float] | None = None, window: float = WINDOW_S) -> float | None:
    """Cores other processes kept busy at normal priority from ``since`` (a ``_snapshot``; None: now)
    for at least ``window`` s (waits for the rest); None where /proc/stat cannot be read."""
    start = since or _snapshot()
    if start is None:
        return None
    if (rest := window - (time.monotonic() - start[2])) > 0:
        time.sleep(rest)
    end = _snapshot()
    if end is None:
        return None
    elapsed = max(end[2] - start[2], 1e-3)
    return max(0.0, (end[0] - start[0]) - (end[1] - start[1])) / elapsed


def model_threads() -> int:
    """The chat model's default thread count: physical cores minus what other processes at normal
    priority keep busy since this module was imported (at least ``WINDOW_S``; within the last 10 s,
    else a fresh look), at least 1; ``free_threads`` where /proc/stat cannot be read."""
    since = STARTED if STARTED is not None and time.monotonic() - STARTED[2] < 10 else None
    busy = busy_now(since)
    if busy is None:
        return free_threads()
    cores = default_threads()
    return max(1, min(cores, cores - int(busy + 0.5)))
