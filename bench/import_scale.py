"""A ChatGPT-shaped export at a real size, through the real CLI: import, index, search, chat::

    PYTHONPATH=$PWD .venv/bin/python bench/import_scale.py [--mb 10] [--interrupt-after 30] [--chat]
        [--out bench/results/import-scale-10mb.json]

Writes a synthetic ``conversations.json`` of about ``--mb`` MB shaped as ChatGPT's export (a
``mapping`` tree per conversation, system root, 1 in 5 replies regenerated, 1 in 10 user messages
edited: branches the import leaves out), then in a throwaway home runs ``nanobot import --no-index``,
``nanobot memory reindex`` (with ``--interrupt-after S``: Ctrl-C after S seconds, then again, which
must go on from there), ``nanobot memory search`` three times (each a new process: cold) and, in
this process, 20 searches after one (warm p50). ``--chat`` also times a piped ``nanobot chat`` started
right after the import (the bundled SmolLM2), to its reply while nothing is indexed. Each step's wall
time and peak RSS (``os.wait4``'s rusage of that child) are reported, with the load average: the
machine is shared, so CPU seconds are given too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import emit  # noqa: E402

WORDS = ("garden boiler flat Porto lease sister Lyon painting sunset concert guitar marathon adoption school "
         "hiking camping recipe pottery dog cat museum festival job interview vacation beach mountain library "
         "novel poetry bakery coffee yesterday tomorrow week really loved thinking planning started finished "
         "bought visited called said told python error function deploy server budget invoice travel train").split()
QUERIES = ["what did I say about the flat in Porto", "when is the marathon", "my sister in Lyon",
           "the boiler invoice", "which recipe did I like"]


def sentence(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def conversation(n: int, rng: random.Random, t0: float) -> dict:
    """One ChatGPT conversation: a system root, then turns; some replies regenerated, some edits."""
    mapping: dict[str, dict] = {}

    def add(nid: str, parent: str | None, role: str | None, text: str, t: float | None) -> None:
        msg = None if role is None else {
            "id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t,
            "update_time": None, "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully", "end_turn": role == "assistant" or None, "weight": 1.0,
            "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {}, "recipient": "all"}
        mapping[nid] = {"id": nid, "message": msg, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(nid)

    add(f"{n}-root", None, None, "", None)
    add(f"{n}-sys", f"{n}-root", "system", "", t0)
    last, t = f"{n}-sys", t0
    for turn in range(rng.randint(2, 12)):
        t += rng.randint(20, 600)
        if rng.random() < 0.1:  # an edited user message: the first version is a dead branch
            add(f"{n}-{turn}-u0", last, "user", sentence(rng, 8, 40), t)
            add(f"{n}-{turn}-a0", f"{n}-{turn}-u0", "assistant", sentence(rng, 40, 160), t + 5)
        add(f"{n}-{turn}-u", last, "user", sentence(rng, 8, 60), t)
        if rng.random() < 0.2:  # a regenerated reply: the first one is a dead branch
            add(f"{n}-{turn}-r0", f"{n}-{turn}-u", "assistant", sentence(rng, 40, 160), t + 6)
        add(f"{n}-{turn}-a", f"{n}-{turn}-u", "assistant", sentence(rng, 40, 200), t + 9)
        last = f"{n}-{turn}-a"
    return {"title": sentence(rng, 2, 5)[:-1], "create_time": t0, "update_time": t, "mapping": mapping,
            "moderation_results": [], "current_node": last, "plugin_ids": None, "conversation_id": f"c-{n}",
            "conversation_template_id": None, "gizmo_id": None, "is_archived": False, "safe_urls": [],
            "default_model_slug": "gpt-4o", "id": f"c-{n}"}


def write_export(path: Path, mb: float, seed: int = 7) -> dict:
    """Conversations written one by one (this script's memory stays small too) up to ``mb`` MB."""
    rng = random.Random(seed)
    target, n, t0 = int(mb * 1e6), 0, 1_600_000_000.0
    with open(path, "w", encoding="utf-8") as f:
        f.write("[")
        while f.tell() < target:
            f.write(("," if n else "") + json.dumps(conversation(n, rng, t0 + n * 40_000)))
            n += 1
        f.write("]")
    return {"conversations": n, "bytes": path.stat().st_size}


def run(argv: list[str], home: Path, stdin: str | None = None, interrupt_after: float | None = None) -> dict:
    """One ``nanobot`` child: wall seconds, its peak RSS and CPU (``os.wait4``), rc and its output's end."""
    env = {**os.environ, "NANOBOT_HOME": str(home), "NANOBOT_OBSERVER__ENABLED": "false"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "nanobot", *argv], env=env, cwd=ROOT, text=True,
                             stdin=subprocess.PIPE, stdout=out, stderr=err)
        p.stdin.write(stdin or "")
        p.stdin.close()
        interrupted = False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if interrupt_after is not None and not interrupted and time.perf_counter() - t0 > interrupt_after:
                p.send_signal(signal.SIGINT)
                interrupted = True
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        said, errs = out.read().strip().splitlines(), err.read().strip().splitlines()
    return {"argv": " ".join(argv[:3]), "rc": p.returncode, "wall_s": round(wall, 2), "interrupted": interrupted,
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024),
            "stdout_tail": said[-3:], "stderr_tail": errs[-2:]}


def warm_search(home: Path) -> dict:
    os.environ["NANOBOT_HOME"] = str(home)
    from nanobot.config import load_settings
    from nanobot.memory.service import MemoryService

    svc = MemoryService(load_settings(home))
    svc.search(QUERIES[0], 5)  # loads the embedder, builds the matrix
    times = []
    for i in range(20):
        t0 = time.perf_counter()
        svc.search(QUERIES[i % len(QUERIES)], 5)
        times.append(time.perf_counter() - t0)
    return {"p50_ms": round(statistics.median(times) * 1000, 1), "max_ms": round(max(times) * 1000, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--interrupt-after", type=float, help="Ctrl-C the first reindex after this many seconds")
    ap.add_argument("--chat", action="store_true", help="time a piped chat's reply right after the import")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    signal.signal(signal.SIGINT, signal.default_int_handler)  # started where SIGINT is ignored (nohup, &):
    # the children would inherit that, and --interrupt-after would not interrupt
    result: dict = {"mb": args.mb, "load_before": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="nb-import-scale-") as tmp:
        home, export = Path(tmp) / "home", Path(tmp) / "conversations.json"
        result["export"] = write_export(export, args.mb)
        steps = result["steps"] = {"import": run(["import", "--no-index", str(export)], home)}
        if args.chat:
            steps["chat_while_unindexed"] = run(["chat"], home, stdin="What did I say about Porto?\n")
        if args.interrupt_after:
            steps["reindex_interrupted"] = run(["memory", "reindex"], home, interrupt_after=args.interrupt_after)
        steps["reindex"] = run(["memory", "reindex"], home)
        for i in range(3):
            steps[f"search_cold_{i + 1}"] = run(["memory", "search", QUERIES[i]], home)
        result["search_warm"] = warm_search(home)
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    emit(result, args.out)


if __name__ == "__main__":
    main()
