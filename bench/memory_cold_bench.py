"""Cold ``nanobot memory search``: a fresh process per run over an existing index, with the numpy
embedder path (``memory.embedder_backend = "auto"``, the default) and with torch, interleaved so
both see the same machine load::

    PYTHONPATH=$PWD .venv/bin/python bench/memory_cold_bench.py [--runs 5] [--out bench/results/memory-cold.json]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit

ROOT = Path(__file__).resolve().parent.parent


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


CPU: dict[str, list[float]] = {}


def run(home: Path, backend: str, *args: str) -> float:
    env = {**os.environ, "NANOBOT_HOME": str(home), "NANOBOT_MEMORY__EMBEDDER_BACKEND": backend,
           "PYTHONPATH": str(ROOT)}
    t0, c0 = time.perf_counter(), child_cpu()
    r = subprocess.run([sys.executable, "-m", "nanobot", "memory", *args], env=env, cwd=ROOT,
                       capture_output=True, text=True)
    took = time.perf_counter() - t0
    CPU.setdefault(backend, []).append(child_cpu() - c0)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chunks", type=int, default=1000)
    ap.add_argument("--backends", default="auto,torch", help="comma-separated: auto (numpy), torch")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        ws = home / "workspace"
        ws.mkdir(parents=True)
        lines = [f"- Fact {i}: the {['boiler', 'car', 'garden', 'server'][i % 4]} needs check number {i}"
                 for i in range(args.chunks)]
        (ws / "MEMORY.md").write_text("# Memory\n## Facts\n" + "\n".join(lines) + "\n")
        t_index = run(home, "auto", "reindex")
        times: dict[str, list[float]] = {b: [] for b in args.backends.split(",")}
        CPU.clear()
        for _ in range(args.runs):
            for backend in times:
                times[backend].append(run(home, backend, "search", "when is the boiler checked", "--json"))
    result = {"chunks": args.chunks, "runs": args.runs, "first_reindex_s": round(t_index, 2),
              **{f"cold_search_{b}_s_median": round(statistics.median(v), 2) for b, v in times.items()},
              **{f"cold_search_{b}_s_all": [round(x, 2) for x in v] for b, v in times.items()},
              **{f"cold_search_{b}_cpu_s_median": round(statistics.median(CPU[b]), 2) for b in times},
              "load": [round(x, 2) for x in os.getloadavg()],
              "note": "2-core machine shared with 5 other helpers; cpu = the child process's CPU seconds"}
    emit(result, args.out)


if __name__ == "__main__":
    main()
