"""Reply time under CPU contention: the bundled model with n_threads = physical cores vs 1, on an
idle machine and beside one competing CPU-bound process (a Python busy loop).

    .venv/bin/python bench/busy_bench.py [--repeats 3] [--tokens 32]

Each (threads, load) cell runs in its own process (a stuck cell is cut at --timeout and recorded as
such): load the model, one warm-up reply, then ``repeats`` timed replies of ``tokens`` tokens at
temperature 0. Writes bench/results/busy.json. llama-cpp-python 0.3.36 exposes no threadpool or
polling parameters (only n_threads / n_threads_batch), so those are the knobs measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from figures import emit

CELL = r"""
import json, sys, time
from nanobot.backends.base import Message
from nanobot.backends.llama import LlamaBackend
from nanobot.config import load_settings
from nanobot.models import resolve_model
threads, batch, repeats, tokens = map(int, sys.argv[1:5])
s = load_settings()
b = LlamaBackend(resolve_model(s, "smollm2"), n_threads=threads, n_threads_batch=batch)
msgs = [Message(role="user", content="Tell me about the history of tea in three sentences.")]
out = []
for i in range(repeats + 1):
    t0 = time.perf_counter()
    "".join(b.stream(msgs, max_tokens=tokens, temperature=0))
    if i:
        out.append(round(time.perf_counter() - t0, 3))
print(json.dumps({"seconds": out, "tokens": b.last.completion_tokens}))
"""


def run_cell(threads: int, batch: int, repeats: int, tokens: int, timeout: float, env: dict) -> dict:
    try:
        r = subprocess.run([sys.executable, "-c", CELL, str(threads), str(batch), str(repeats), str(tokens)],
                           capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"timeout_s": timeout}
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1:]}
    data = json.loads(r.stdout.strip().splitlines()[-1])
    data["median_s"] = statistics.median(data["seconds"])
    return data


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--threads", default="", help="comma list, default: physical cores and 1")
    a = ap.parse_args()
    from nanobot.backends.llama import default_threads

    cores = default_threads()
    configs = [(int(t), int(t)) for t in a.threads.split(",")] if a.threads else [(cores, cores), (1, 1), (1, cores)]
    env = dict(os.environ, NANOBOT_HOME=os.environ.get("NANOBOT_HOME", "/tmp/nanobot-busy-bench"))
    rows = []
    for load in ("idle", "busy"):
        hog = None
        if load == "busy":
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.5)
        try:
            for threads, batch in dict.fromkeys(configs):
                cell = run_cell(threads, batch, a.repeats, a.tokens, a.timeout, env)
                rows.append({"load": load, "n_threads": threads, "n_threads_batch": batch} | cell)
                print(json.dumps(rows[-1]), flush=True)
        finally:
            if hog is not None:
                hog.kill()
                hog.wait()
    result = {"physical_cores": cores, "logical_cpus": os.cpu_count(), "machine": platform.processor() or platform.machine(),
              "load_1min_at_start": os.getloadavg()[0], "tokens": a.tokens, "repeats": a.repeats, "rows": rows}
    out = Path(__file__).resolve().parent / "results" / "busy.json"
    emit(result, out, echo=False)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
