"""Looping replies on the bundled model: share of replies that repeat themselves, and their length,
for each DRY setting; the loop guard's effect is computed from the same streams (it only cuts them).

    .venv/bin/python bench/loop_bench.py [--dry 0,0.8] [--breakers ':,",*'] [--max-tokens 512]
        [--out bench/results/loops.json]

Each of the fixed open prompts in bench/data/open_prompts.txt is sent as the first message of a
fresh session (the template workspace's system prompt, ``[chat]`` defaults: temperature 0.3, seed 0)
with the guard off. A reply *loops* when ``LoopGuard`` (defaults) trips on it: a sentence of 24+
characters or a 12-word run repeated; it *ends in a loop* when such a sentence or run comes three times
or more (the loops the issue saw: one paragraph until ``max_tokens``). "guarded" figures are the
replies as the guard cuts them (it stops at the first repeat, so a guarded reply never ends in a loop).
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from collections import Counter
from pathlib import Path

from figures import emit

from nanobot.config import load_settings
from nanobot.core.events import TurnDone
from nanobot.core.transcript import Transcript
from nanobot.loop.agent import Agent
from nanobot.loop.stream import LoopGuard
from nanobot.runtime import load_model
from nanobot.workspace import init_workspace

PROMPTS = Path(__file__).parent / "data" / "open_prompts.txt"


def occurrences(text: str, ngram: int = 12, sentence_chars: int = 24) -> int:
    """The most times one sentence (24+ characters) or one 12-word run occurs in ``text``."""
    sentences = [" ".join(re.findall(r"\w+", s.lower())) for s in re.findall(r"[^.!?\n]+[.!?\n]+", text + "\n")]
    counts = Counter(s for s in sentences if len(s) >= sentence_chars)
    words = re.findall(r"\w+", text.lower())
    counts.update(tuple(words[i:i + ngram]) for i in range(len(words) - ngram + 1))
    return max(counts.values(), default=0)


def run(dry: float, max_tokens: int, model, home: Path, breakers: list[str] | None = None) -> dict:
    chat = {"dry_multiplier": dry, "loop_guard": False, "max_tokens": max_tokens}
    settings = load_settings(home, chat=chat | ({"dry_seq_breakers": breakers} if breakers is not None else {}))
    init_workspace(settings.workspace)
    rows = []
    for prompt in PROMPTS.read_text().splitlines():
        agent = Agent(settings, model)
        agent.transcript = Transcript.create(settings.sessions_dir, agent.started, model="bench")
        done = next(e for e in agent.stream_reply(agent.messages_for(prompt)) if isinstance(e, TurnDone))
        guard = LoopGuard()
        guard.feed(done.reply + "\n")
        cut = done.reply[: guard.cut] if guard.cut is not None else done.reply
        rows.append({"prompt": prompt, "tokens": done.generation.completion_tokens,
                     "finish": done.generation.finish_reason, "repeats": guard.cut is not None,
                     "loops": occurrences(done.reply) >= 3,
                     "chars": len(done.reply), "guarded_chars": len(cut.strip()),
                     "guarded_tokens": model.count_tokens(cut), "reply": done.reply})
    n = len(rows)
    return {"dry_multiplier": dry, "seq_breakers": settings.chat.dry_seq_breakers, "prompts": n,
            "looping_share": round(sum(r["loops"] for r in rows) / n, 3),
            "repeating_share": round(sum(r["repeats"] for r in rows) / n, 3),
            "looping_at_max_tokens": sum(r["loops"] and r["finish"] == "length" for r in rows),
            "mean_tokens": round(statistics.mean(r["tokens"] for r in rows), 1),
            "guarded_mean_tokens": round(statistics.mean(r["guarded_tokens"] for r in rows), 1),
            "hit_max_tokens": sum(r["finish"] == "length" for r in rows), "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dry", default="0,0.8")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--out", default="bench/results/loops.json")
    ap.add_argument("--breakers", default=None, help="DRY sequence breakers, comma separated (default: [chat] dry_seq_breakers)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp))
        model = load_model(settings)
        breakers = args.breakers.split(",") if args.breakers is not None else None
        results = [run(float(d), args.max_tokens, model, Path(tmp) / f"h{i}", breakers)
                   for i, d in enumerate(args.dry.split(","))]
    for r in results:
        print(f"dry_multiplier {r['dry_multiplier']} breakers {r['seq_breakers']!r}: looping {r['looping_share']:.0%}, "
              f"repeating {r['repeating_share']:.0%} "
              f"({r['looping_at_max_tokens']} at max_tokens), mean {r['mean_tokens']} tokens, "
              f"guarded mean {r['guarded_mean_tokens']}, hit max_tokens {r['hit_max_tokens']}/{r['prompts']}")
    emit({"model": model.name, "max_tokens": args.max_tokens, "results": results}, args.out, indent=1, echo=False)


if __name__ == "__main__":
    main()
