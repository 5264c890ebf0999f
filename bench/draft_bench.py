"""Replies with and without tokens drafted from their context (``nanobot/backends/lookup.py``).

Four replies of the kinds a chat gives: a file printed back with one value changed, a file's settings
listed, code explained, a poem (nothing to copy). Each is generated at temperature 0 with
``draft_tokens`` 0 and then the configured length, twice each, alternating; the faster of the two
counts. The prompt is in the KV cache before each timed reply, so the seconds are the reply's own.
Drafts are checked in batches, and llama.cpp's CPU kernels give a batch's logits a little apart from a
single step's, so a reply near a tie can come out otherwise: "same" says whether it did.

    .venv/bin/python bench/draft_bench.py --model qwen2.5-coder-1.5b --json bench/results/draft-qwen2.5-coder-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nanobot.backends.base import Message  # noqa: E402
from nanobot.backends.llama import LlamaBackend  # noqa: E402
from nanobot.config import load_settings  # noqa: E402
from nanobot.models import resolve_model  # noqa: E402

CONFIG = "\n".join(f"{k} = {v}" for k, v in [
    ("host", '"127.0.0.1"'), ("port", 8080), ("workers", 4), ("log_level", '"info"'), ("timeout_s", 30),
    ("retries", 3), ("cache_dir", '"/var/cache/lamp"'), ("max_body_kb", 512), ("tls", "false"), ("owner", '"Brennagh"')])
CODE = '''def tide_mean(readings):
    """The mean of the day's tide readings, in metres, skipping gaps."""
    kept = [r for r in readings if r is not None]
    if not kept:
        raise ValueError("no readings")
    return round(sum(kept) / len(kept), 3)
'''
CASES = {
    "a file printed back, one value changed": f"Here is config.toml:\n```toml\n{CONFIG}\n```\n"
                                              "Print the whole file back with port changed to 9090.",
    "a file's settings listed": f"List every setting in this file with its value, one per line:\n{CONFIG}",
    "code explained": f"What does this code do? Answer in three sentences.\n```python\n{CODE}```",
    "a poem (nothing to copy)": "Write a short poem about a lighthouse keeper who counts the tides.",
}


def timed(backend, msgs, n: int, max_tokens: int) -> dict:
    backend.settings.draft_tokens = n
    list(backend.stream(msgs, max_tokens=1, temperature=0.0))  # the prompt into the KV cache
    t0 = time.perf_counter()
    text = "".join(backend.stream(msgs, max_tokens=max_tokens, temperature=0.0))
    g = backend.last
    return {"seconds": round(time.perf_counter() - t0, 2), "tokens": g.completion_tokens, "text": text,
            "drafted": g.drafted_tokens, "accepted": g.accepted_tokens}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--draft", type=int, help="draft length (default: the model's draft_tokens)")
    ap.add_argument("--max-tokens", type=int, default=160)
    ap.add_argument("--json", type=Path)
    opts = ap.parse_args()
    backend = LlamaBackend(resolve_model(load_settings(), opts.model))
    n = opts.draft or backend.settings.draft_tokens or 8
    load, rows = os.getloadavg()[0], []
    for name, text in CASES.items():
        msgs = [Message(role="system", content="You are a helpful assistant."), Message(role="user", content=text)]
        runs = {0: [], n: []}
        for k in (0, n, 0, n):
            runs[k].append(timed(backend, msgs, k, opts.max_tokens))
        plain, drafted = (min(runs[k], key=lambda r: r["seconds"]) for k in (0, n))
        row = {"case": name, "plain_s": plain["seconds"], "drafted_s": drafted["seconds"],
               "plain_tokens": plain["tokens"], "drafted_tokens": drafted["tokens"],
               "tokens_per_s": [round(plain["tokens"] / plain["seconds"], 1), round(drafted["tokens"] / drafted["seconds"], 1)],
               "drafted": drafted["drafted"], "accepted": drafted["accepted"], "same": plain["text"] == drafted["text"]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {"model": backend.name, "draft_tokens": n, "max_tokens": opts.max_tokens, "threads": backend.llm.n_threads,
           "load_before": round(load, 2), "cpus": os.cpu_count(), "rows": rows}
    if opts.json:
        opts.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
