"""Consolidating a 7-day, 500-message chat on the bundled model (SmolLM2-135M, n_ctx 4096).

    .venv/bin/python bench/consolidate_bench.py [--messages 500] [--days 7] [--repeats 1]

Writes a chat of ``messages`` messages (user and assistant alternating, one session a day over
``days`` days, user lines drawn from a fixed seeded mix of projects, follow-ups, preferences and small
talk; assistant lines short) into a temporary NANOBOT_HOME, then times ``consolidate`` end to end
and per pass (suggest = the model over every window, review, commit). Each message is read once: the
windows partition the messages (checked here). Writes bench/results/consolidate.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from figures import emit

from nanobot.chats.consolidate import consolidate
from nanobot.chats.store import register_session
from nanobot.config import load_settings
from nanobot.core.transcript import Transcript
from nanobot.runtime import load_model

USER = [
    "I am porting the {x} parser to Rust this week.", "Please remind me to send the {x} report to Bob.",
    "I prefer short answers without emojis.", "Can you explain how {x} handles errors?",
    "The {x} release is blocked on the CI fix.", "Let us talk about the {x} benchmark numbers.",
    "I finished the {x} migration yesterday.", "We still need to review the {x} pull request.",
    "What do you think about using {x} for the cache?", "Thanks, that helped with {x}.",
]
THINGS = ["csv", "json", "sqlite", "tokio", "serde", "grpc", "redis", "kafka", "nginx", "llama"]
ASSISTANT = ["Sure.", "Okay, noted.", "That makes sense.", "Here is a short answer: yes.", "Done."]


def write_chat(settings, n: int, days: int, now: datetime, rng: random.Random) -> None:
    per_day = n // days
    written = 0
    for d in range(days):
        start = now - timedelta(days=days - d, hours=-1)
        count = per_day if d < days - 1 else n - written
        t = Transcript.create(settings.sessions_dir, start, model="bench")
        for i in range(count):
            text = (rng.choice(USER).format(x=rng.choice(THINGS)) if i % 2 == 0 else rng.choice(ASSISTANT))
            t.append("user" if i % 2 == 0 else "assistant", text, now=start + timedelta(minutes=i))
        register_session(settings.home, "bench", t.id, start + timedelta(minutes=count))
        written += count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=500)
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    now = datetime.now().astimezone()
    runs = []
    model = None
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            settings = load_settings(Path(tmp))
            write_chat(settings, args.messages, args.days, now, random.Random(7))
            model = model or load_model(settings)
            t0 = time.perf_counter()
            rep = consolidate(settings, "bench", model, clock=lambda: now)
            total = time.perf_counter() - t0
            read = [i for w in rep.windows for i in range(w.first, w.last + 1)]
            assert read == list(range(rep.messages)), "a message was read twice or skipped"
            runs.append({"total_s": round(total, 2), **rep.seconds, "messages": rep.messages,
                         "windows": len(rep.windows), "prompt_tokens": sum(w.prompt_tokens for w in rep.windows),
                         "suggested": sum(len(w.suggestions) for w in rep.windows),
                         "kept": sum(d.outcome == "added" for d in rep.decisions),
                         "bytes": len(rep.text.encode())})
            print(json.dumps(runs[-1]))
    out = {"model": model.name if model else "", "n_ctx": model.n_ctx if model else 0,
           "machine": platform.processor() or platform.machine(), "runs": runs}
    path = Path(__file__).parent / "results" / "consolidate.json"
    emit(out, path, indent=1, echo=False)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
