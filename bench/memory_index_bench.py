"""Indexing 10k conversation turns: ``nanobot import``'s library writes them as past sessions, then
one ``MemoryService.refresh`` embeds and indexes them (target: <= 60 s on 2 cores)::

    PYTHONPATH=$PWD .venv/bin/python bench/memory_index_bench.py [--turns 10000] [--out bench/results/memory-index.json]

The turns are LoCoMo-like one-liners made up here (speaker, a sentence of 8-25 words from a small
vocabulary), 20 sessions of 500 turns. Reported: wall seconds and this process's CPU seconds (the
machine is shared: CPU time is what it costs on idle cores), the embedder backend that did the bulk
batches, and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import emit  # noqa: E402

from nanobot.config import load_settings  # noqa: E402
from nanobot.importing.formats import ImportedMessage, ImportedSession  # noqa: E402
from nanobot.importing.importer import import_sessions  # noqa: E402
from nanobot.memory import embedder  # noqa: E402
from nanobot.memory.service import MemoryService  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

WORDS = ("garden boiler flat Porto lease sister Lyon painting sunset concert guitar marathon "
         "adoption school hiking camping recipe pottery dog cat museum festival job interview "
         "vacation beach mountain library novel poetry bakery coffee yesterday tomorrow week "
         "really loved thinking planning started finished bought visited called said told").split()


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def sessions(turns: int, per: int, rng: random.Random) -> list[ImportedSession]:
    start = datetime(2025, 1, 1, 10, 0).astimezone()
    out = []
    for s in range(0, turns, per):
        when = start + timedelta(days=s // per)
        msgs = [ImportedMessage(role="user" if i % 2 == 0 else "assistant",
                                content=" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 25))).capitalize() + ".",
                                ts=when + timedelta(seconds=i))
                for i in range(min(per, turns - s))]
        out.append(ImportedSession(started=when, messages=msgs, title=f"bench {s // per}"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=10_000)
    ap.add_argument("--per-session", type=int, default=500)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--threads", type=int, help="bulk-batch threads (default: nanobot's choice, "
                    "the cores no other process keeps busy)")
    ap.add_argument("--note", default="2-core machine; cpu = this process's CPU seconds")
    args = ap.parse_args()
    if args.threads:
        embedder.bulk_threads = lambda: args.threads
    threads = embedder.bulk_threads()
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="nb-index-") as tmp:
        settings = load_settings(Path(tmp))
        init_workspace(settings.workspace)
        import_sessions(settings, sessions(args.turns, args.per_session, random.Random(7)))
        svc = MemoryService(settings)
        t0, c0 = time.perf_counter(), cpu()
        svc.embedder.load()
        load_s, load_cpu = time.perf_counter() - t0, cpu() - c0
        t0, c0 = time.perf_counter(), cpu()
        report = svc.refresh()
        wall, used = time.perf_counter() - t0, cpu() - c0
        bulk = svc.embedder._bulk.backend if svc.embedder._bulk is not None else svc.embedder.backend
        svc.close()
    result = {"turns": args.turns, "chunks": report.chunks, "embedded": report.embedded,
              "embedder_load_s": round(load_s, 2), "embedder_load_cpu_s": round(load_cpu, 2),
              "index_s": round(wall, 1), "index_cpu_s": round(used, 1), "bulk_backend": bulk,
              "chunks_per_s": round(report.chunks / wall, 1), "bulk_threads": threads,
              "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
              "note": args.note}
    emit(result, args.out)


if __name__ == "__main__":
    main()
