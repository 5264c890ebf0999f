"""A new process's first judgements: seconds for each classifier's first yes/no (its calibration
check, then one message) without the disk's state of the examples and with it (``kvcache.apart``).

Each row loads the model anew (a new process finds nothing in memory) and uses a fresh cache
directory for "cold"; "from disk" reuses the directory the cold pass filled. Take it on an idle machine.

    PYTHONPATH=$PWD .venv/bin/python bench/apart_bench.py --model ~/.nanobot/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --json bench/results/apart-qwen2.5-coder-1.5b-round27.json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

MESSAGES = {"look": "what does utils.py do?", "change": "add a function called reverse_words to utils.py",
            "remember": "my cat is called Miso", "create": "make a new file plan.txt that says hi"}


def one_pass(model_path: str, cache_dir: Path, threads: int | None) -> dict:
    from dataclasses import replace

    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.kvcache.apart import ApartStore
    from nanobot.kvcache.feature import KVCache
    from nanobot.loop import judge
    from nanobot.models import resolve_model

    resolved = resolve_model(load_settings(), model_path)
    if threads:
        resolved = replace(resolved, settings=resolved.settings.model_copy(update={"n_threads": threads}))
    backend = LlamaBackend(resolved)
    backend.apart_store = ApartStore(KVCache(cache_dir), backend)
    out = {}
    for kind, text in MESSAGES.items():
        t0 = time.perf_counter()
        trusted = judge.trusted(backend, kind)
        backend.yes_no_apart(judge.classifier_prompt(kind, text))
        out[kind] = {"seconds": round(time.perf_counter() - t0, 2), "calibrated": trusted}
    out["total_s"] = round(sum(v["seconds"] for v in out.values() if isinstance(v, dict)), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--json")
    a = ap.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="apart-bench-"))
    load = os.getloadavg()[0]
    runs = {"cold": one_pass(a.model, cache, a.threads), "from disk": one_pass(a.model, cache, a.threads)}
    out = {"what": __doc__.split("\n\n")[0], "model": Path(a.model).stem, "cpus": os.cpu_count(),
           "threads": a.threads, "load1_before": round(load, 2), "runs": runs}
    print(json.dumps(out, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
