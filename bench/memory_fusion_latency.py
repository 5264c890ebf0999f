"""Hybrid query latency at 100k chunks: the blend + neighbour spread ranking (default) vs the old
cosine + keyword bonus, on one store, interleaved (same load)::

    PYTHONPATH=$PWD .venv/bin/python bench/memory_fusion_latency.py [--n 100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_memory import memories, questions  # noqa: E402
from figures import emit  # noqa: E402

from nanobot.memory.chunker import Chunk  # noqa: E402
from nanobot.memory.store import MemoryStore  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rng, prng = np.random.default_rng(1), random.Random(1)
    store = MemoryStore(Path(tempfile.mkdtemp()) / "m.db", "random-unit-vectors")
    texts = memories(args.n, prng)
    for start in range(0, args.n, 5000):
        v = rng.normal(size=(min(5000, args.n - start), 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        with store.write():
            store.replace_chunks(f"part-{start}.md", [Chunk(text=x, line=start + i + 1)
                                                      for i, x in enumerate(texts[start:start + 5000])], v)
    qs = questions(args.queries, prng)
    qv = rng.normal(size=(args.queries, 384)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    lat: dict[str, list[float]] = {"blend": [], "score": [], "cpu_blend": [], "cpu_score": []}
    for v, q in zip(qv, qs, strict=True):
        for fusion in ("blend", "score"):
            t, c = time.perf_counter(), time.process_time()
            store.search(v, q, 5, fusion=fusion)
            lat[fusion].append(1000 * (time.perf_counter() - t))
            lat[f"cpu_{fusion}"].append(1000 * (time.process_time() - c))
    out = {"chunks": args.n, "queries": args.queries,
           **{f"{k}_p50_ms": round(sorted(x)[len(x) // 2], 1) for k, x in lat.items()},
           "load": os.getloadavg()[0], "note": "2-core machine shared with other work; cpu = process CPU time"}
    emit(out, args.out)


if __name__ == "__main__":
    main()
