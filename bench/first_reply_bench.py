"""A new user's first reply: `nanobot chat -v --model M` in a brand-new home with "hi" piped in,
seconds from the process start to the first character of the reply (after "Nano: "); then the same
home started again (the disk KV entry present), ``--again N`` times (the median is the figure: the first
start after a new home also pays the memory index of the first session). Each listing (`lean`, `full`)
in its own home.

Python writes its bytecode as a user's does (``PYTHONDONTWRITEBYTECODE`` is dropped for the runs).
Runs one after another, each after the previous one's housekeeping child has exited (it observes the
session in the background and would take the CPU from the next start). Take it on an idle machine;
the load average is stored with each run.

    .venv/bin/python bench/first_reply_bench.py --model ~/.nanobot/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --listing lean full --json bench/results/first-reply-qwen2.5-coder-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quiet(timeout: float = 600) -> None:
    """Wait until no nanobot child of an earlier run (housekeeping) is left."""
    end = time.time() + timeout
    while time.time() < end:
        r = subprocess.run(["pgrep", "-f", "nanobot.*(housekeep|observe)"], capture_output=True, text=True)
        if not r.stdout.strip():
            return
        time.sleep(1)


def once(home: str, listing: str, model: str, ask: str = "hi") -> dict:
    # a user's Python keeps compiled bytecode (pip compiles an install; an editable one on its first run):
    # with PYTHONDONTWRITEBYTECODE set, as on some build machines, every start compiles ~300 modules again
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"NANOBOT_HOME": home, "NANOBOT_TOOLS__LISTING": listing, "PYTHONPATH": str(ROOT)}
    quiet()
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "nanobot", "chat", "-v", "--model", model], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=home)
    p.stdin.write(ask.encode() + b"\n")
    p.stdin.close()
    buf, first = b"", None
    while ch := p.stdout.read(1):
        buf += ch
        if first is None and b"Nano: " in buf and not buf.endswith(b"Nano: "):
            first = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.wait()
    prompt = next((line for line in err.splitlines() if line.startswith("[prompt")), "")
    return {"first_char_s": round(first, 2) if first else None, "load1_before": round(load, 2), "verbose": prompt}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--listing", nargs="+", default=["lean"])
    ap.add_argument("--again", type=int, default=1, help="second starts of the same home (median)")
    ap.add_argument("--ask", default="hi", help="the message piped in (a look request runs the judgements)")
    ap.add_argument("--json")
    a = ap.parse_args()
    out = {"what": __doc__.split("\n\n")[0], "model": Path(a.model).stem, "cpus": os.cpu_count(), "ask": a.ask,
           "runs": {}}
    for listing in a.listing:
        home = tempfile.mkdtemp(prefix=f"first-reply-{listing}-")
        runs = {"new_home": once(home, listing, a.model, a.ask)}
        again = [once(home, listing, a.model, a.ask) for _ in range(a.again)]
        seconds = sorted(r["first_char_s"] for r in again if r["first_char_s"] is not None)
        middle = again[[r["first_char_s"] for r in again].index(seconds[len(seconds) // 2])] if seconds else again[0]
        runs["second_start"] = middle | {"all_s": [r["first_char_s"] for r in again],
                                         "loads": [r["load1_before"] for r in again]}
        out["runs"][listing] = runs
        print(listing, json.dumps(out["runs"][listing]), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
