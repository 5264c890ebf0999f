"""Small talk needs no tool: greetings, thanks and goodbyes, each the first message of a new session.

A new user's first message is often "hi". A tool call there is waste a user sees: the message shown
twice ("hello" sent through a tool, then answered again), or a thanks kept in MEMORY.md, and each call
costs a fit judgement and a generated call (~5 s on the 1.5B on 2 cores). Counted per message: the
tools called and whether any changed something the user keeps (a memory or a file).

``dev`` was used to choose what changed (round 32: the ``message`` tool off by default); ``held`` was
written after, in other wording and languages, and is only checked. Runs through the assistant bench's
setup (its files, its memory, the full runtime, temperature 0, a fixed clock).

    PYTHONPATH=$PWD .venv/bin/python bench/smalltalk_bench.py --model ~/.nanobot/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --threads 2 --json bench/results/smalltalk-qwen2.5-coder-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import datetime
from pathlib import Path

import assistant_bench as ab

from nanobot.core.events import ToolCall, ToolResult

SETS = {
    "dev": ["hi", "hello", "hey there", "good morning!", "thanks!", "thank you, that helped", "how are you?", "ok",
            "cool", "bye", "Hallo!", "bonjour", "hola, ¿qué tal?", "yo", "what's up?", "nice, cheers", "good night",
            "Hi, I'm Alice", "lol", "great job"],
    "held": ["Hiya!", "Morning :)", "heyyy", "Good evening, Nano", "Thanks a lot!", "much appreciated", "ty",
             "see you tomorrow", "cheers, that's all for now", "Goedemorgen!", "Hej hej", "Ciao, come va?",
             "Obrigado!", "Dzień dobry", "Guten Abend", "merci, à demain", "sounds good", "awesome, thank you",
             "haha nice one", "you there?"],
}


CHANGERS = ("memory_add", "write_file", "edit_file", "append_file")  # what a call may leave behind


def run(model: str, threads: int, names: list[str]) -> dict:
    home = Path(tempfile.mkdtemp(prefix="smalltalk-"))
    agent, _ = ab.setup(home, model, 64, threads)
    at = datetime.fromisoformat("2026-11-25 09:30").astimezone()
    agent.clock = lambda: at
    out: dict = {"sets": {}}
    start = time.perf_counter()
    for name in names:
        rows = []
        for text in SETS[name]:
            agent.start_session()
            events = list(agent.turn(text))
            agent.end_session()
            called = [e.name for e in events if isinstance(e, ToolCall)]
            kept = [e.name for e in events if isinstance(e, ToolResult) and e.ok and e.name in CHANGERS]
            rows.append({"text": text, "called": called, "changed": kept})
        out["sets"][name] = {"n": len(rows), "with_a_call": sum(bool(r["called"]) for r in rows),
                             "with_a_change": sum(bool(r["changed"]) for r in rows), "rows": rows}
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--set", nargs="+", default=["dev", "held"], choices=sorted(SETS))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    out = {"model": Path(a.model).stem} | run(a.model, a.threads, a.set)
    for name, s in out["sets"].items():
        print(f"{name}: {s['with_a_call']} of {s['n']} called a tool, {s['with_a_change']} changed something")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
