"""How many CPU threads a heavy computation may take: the cores, less what other processes keep busy.

Shared by the chat model (llama.cpp threads) and the embedder's bulk batches (indexing): both spin
their workers, so a thread that shares its core with another busy process stalls the rest.
"""

from __future__ import annotations

import os
from functools import lru_cache


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


