"""Memory benchmarks: retrieval latency at 1k / 10k / 100k chunks, query-embedding time, index
build rate, and chat start-up time with and without memory. Not a test: numbers, not verdicts.

    .venv/bin/python bench/bench_memory.py [--queries 200] [--out bench/results/memory.json]

- 1k chunks: real MiniLM embeddings of generated one-line memories, indexed through the real
  indexer (that is also the build rate); queries are real embedded questions.
- 10k and 100k chunks: RANDOM UNIT VECTORS (384-d) with generated texts for FTS5, written straight
  into the store: the store's search cost does not depend on what the vectors mean.
- Latency is the store search only (the query embedding is reported separately): wall-clock
  p50/p95 and the p50 of the process CPU time, which is what a query costs on an idle
  core when other processes share the machine (the load average is recorded).
- Start-up: a fresh process per run, ``build_agent`` + ``start_session`` with the bundled model,
  memory disabled vs enabled (1k-chunk MEMORY.md); plus the wait of the first turn's retrieval.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import emit  # noqa: E402

from nanobot.config import load_settings  # noqa: E402
from nanobot.memory.chunker import Chunk  # noqa: E402
from nanobot.memory.embedder import get_embedder  # noqa: E402
from nanobot.memory.service import MemoryService  # noqa: E402
from nanobot.memory.store import MemoryStore, SourceState  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

PEOPLE = ["Ana", "Bruno", "Chen", "Dara", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaito", "Lena"]
THINGS = ["the billing service", "the garden", "the boiler", "the car", "the trip to Kyoto", "the tax return",
          "the dentist", "guitar lessons", "the server api-eu-2", "the ESP32 sensor", "the backup job", "rent"]
VERBS = ["is due on", "was fixed on", "needs attention on", "was discussed on", "costs more since", "moved to"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def memories(n: int, rng: random.Random) -> list[str]:
    return [f"{rng.choice(PEOPLE)} said {rng.choice(THINGS)} {rng.choice(VERBS)} {rng.choice(DAYS)} "
            f"(note {i}, code K{rng.randint(1000, 9999)})." for i in range(n)]


def questions(n: int, rng: random.Random) -> list[str]:
    return [f"What did {rng.choice(PEOPLE)} say about {rng.choice(THINGS)}?" for _ in range(n)]


def pct(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"p50_ms": round(1000 * statistics.median(xs), 2),
            "p95_ms": round(1000 * xs[min(len(xs) - 1, int(0.95 * len(xs)))], 2)}


def timed(fn, *args, **kw) -> tuple[float, float]:
    """(wall, CPU) seconds of one call; CPU time is what the call costs on an idle core."""
    w, c = time.perf_counter(), time.process_time()
    fn(*args, **kw)
    return time.perf_counter() - w, time.process_time() - c


def latency(calls) -> dict[str, float]:
    """Wall p50/p95 plus CPU p50 of (fn, args) calls."""
    runs = [timed(fn, *args) for fn, args in calls]
    out = pct([w for w, _ in runs])
    out["cpu_p50_ms"] = round(1000 * statistics.median(c for _, c in runs), 2)
    return out


def bench_real_1k(n_queries: int) -> dict:
    rng = random.Random(1)
    home = Path(tempfile.mkdtemp(prefix="nb-bench-mem-"))
    settings = load_settings(home)
    init_workspace(settings.workspace)
    emb = get_embedder(settings)
    t = time.perf_counter()
    emb.load()
    load_s = time.perf_counter() - t
    texts = memories(1000, rng)
    (settings.workspace / "MEMORY.md").write_text("# Memory\n" + "\n".join(f"- {x}" for x in texts) + "\n")
    svc = MemoryService(settings, embedder=emb)
    report = svc.refresh()
    t = time.perf_counter()
    unchanged = svc.refresh()
    noop_s = time.perf_counter() - t
    qs = questions(n_queries, rng)
    qvecs = [emb.embed([q])[0] for q in qs]
    embed_lat = latency((emb.embed, ([q],)) for q in qs)
    lat = {mode: latency((svc.store.search, (v, q, 5, mode)) for v, q in zip(qvecs, qs, strict=True))
           for mode in ("vector", "hybrid")}
    svc.close()
    return {"chunks": report.chunks, "embedder_load_s": round(load_s, 2),
            "index_build_s": report.seconds, "index_build_chunks_per_s": round(report.chunks / report.seconds, 1),
            "reindex_nothing_changed_ms": round(1000 * noop_s, 2), "noop_changed": unchanged.changed,
            "query_embedding": embed_lat, "search": lat,
            "vectors": "real all-MiniLM-L6-v2 embeddings"}


def bench_random(n: int, n_queries: int, dim: int = 384) -> dict:
    rng = np.random.default_rng(n)
    prng = random.Random(n)
    path = Path(tempfile.mkdtemp(prefix="nb-bench-vec-")) / "memory.db"
    store = MemoryStore(path, "random-unit-vectors")
    texts = memories(n, prng)
    t = time.perf_counter()
    batch = 5000
    for start in range(0, n, batch):
        v = rng.normal(size=(min(batch, n - start), dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        chunks = [Chunk(text=x, line=start + i + 1) for i, x in enumerate(texts[start:start + batch])]
        with store.write():
            store.replace_chunks(f"part-{start}.md", chunks, v)
            store.set_source(f"part-{start}.md", SourceState(mtime_ns=0, size=0, sha=""))
    insert_s = time.perf_counter() - t
    qs = questions(n_queries, prng)
    qv = rng.normal(size=(n_queries, dim)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    for v, q in zip(qv[:5], qs[:5], strict=True):  # warm the page cache
        store.search(v, q, 5)
    lat = {mode: latency((store.search, (v, q, 5, mode)) for v, q in zip(qv, qs, strict=True))
           for mode in ("vector", "fts", "hybrid")}
    size = sum(p.stat().st_size for p in path.parent.iterdir())
    store.close()
    return {"chunks": n, "insert_s": round(insert_s, 2), "insert_chunks_per_s": round(n / insert_s, 1),
            "db_mb": round(size / 1e6, 1), "search": lat,
            "vectors": "RANDOM unit vectors (384-d); texts generated for FTS5"}


STARTUP = """
import sys, time
t0 = time.perf_counter()
from nanobot.config import load_settings
from nanobot.runtime import build_agent, load_model
s = load_settings()
agent = build_agent(s, load_model(s))
agent.start_session()
ready = time.perf_counter() - t0
t = time.perf_counter()
block = agent.memory_block("What did Ana say about the garden?")
first = time.perf_counter() - t
print(ready, first, len(block))
"""


def bench_startup(runs: int) -> dict:
    home = Path(tempfile.mkdtemp(prefix="nb-bench-start-"))
    settings = load_settings(home)
    init_workspace(settings.workspace)
    texts = memories(1000, random.Random(2))
    (settings.workspace / "MEMORY.md").write_text("# Memory\n" + "\n".join(f"- {x}" for x in texts) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
    env |= {"NANOBOT_HOME": str(home), "NANOBOT_KV_CACHE__ENABLED": "0", "NANOBOT_OBSERVER__ENABLED": "0",
            "HF_HUB_OFFLINE": "1"}
    out: dict = {}
    for label, extra in (("memory_off", {"NANOBOT_MEMORY__ENABLED": "0"}), ("memory_on", {})):
        ready, first = [], []
        subprocess.run([sys.executable, "-c", STARTUP], env=env | extra, cwd=ROOT, check=True,
                       capture_output=True)  # builds the index once (not timed)
        for _ in range(runs):
            p = subprocess.run([sys.executable, "-c", STARTUP], env=env | extra, cwd=ROOT, check=True,
                               capture_output=True, text=True)
            r, f, _n = p.stdout.split()
            ready.append(float(r))
            first.append(float(f))
        out[label] = {"ready_to_type_s": round(statistics.median(ready), 3),
                      "first_retrieval_wait_s": round(statistics.median(first), 3)}
    out["note"] = ("ready_to_type = imports + model load + build_agent + start_session in a fresh process; "
                   "the embedder loads in a background thread, so memory_on pays for it in "
                   "first_retrieval_wait (the first turn waits only if it must)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--startup-runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "memory.json"))
    args = ap.parse_args()
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]},
              "real_1k": bench_real_1k(args.queries)}
    for n in (1_000, 10_000, 100_000):
        result[f"random_{n // 1000}k"] = bench_random(n, args.queries)
    result["startup"] = bench_startup(args.startup_runs)
    result["machine"]["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    emit(result, args.out)


if __name__ == "__main__":
    main()
