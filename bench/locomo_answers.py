"""LoCoMo answers: the model asked LoCoMo's questions over imported conversations, through the real chat.

For each conversation a throwaway home imports its sessions as past conversations (``nanobot
import``'s library: ``speaker_a`` the user, ``speaker_b`` the assistant, each session on its own
day; a shared photo as its caption, as LoCoMo's text-only runs give it), indexes them, and then each sampled question is one fresh chat session (``Agent.turn``, the
path ``nanobot chat`` takes: memory retrieval, tools, checks), its transcript removed afterwards so
no question's answer is searchable by the next. The reply is scored with LoCoMo's own F1 and exact
match (``locomo_score.py``). Beside it, ``--plain`` asks the same model the same question with the
top-5 search hits in LoCoMo's own QA prompt, with no nanobot turn around it: the plain baseline.
A full-context baseline does not fit: a LoCoMo conversation is 16-26k tokens, above the context
nanobot gives the model. The clock is the real one: the history is months or years old, as an
import's is::

    PYTHONPATH=$PWD .venv/bin/python bench/locomo_answers.py --data /tmp/locomo/data/multimodal_dialog/locomo10_v2 \
        --split dev --model qwen2.5-coder-1.5b --per-category 4 --plain --out bench/results/locomo-answers-dev.json

Splits (as ``locomo_bench.py``): dev = 26 30 41 42 43 (tune on these); heldout = 44 47 48 49 50:
check-only, run it ``--masked`` (per-category figures only; no question, answer or reply is
printed or stored). ``--per-category N`` samples N questions of each category per conversation
(seeded by conversation and category, so every run asks the same ones).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from figures import emit  # noqa: E402
from locomo_bench import SPLITS, evidence, load_conversations, write_transcripts  # noqa: E402
from locomo_score import CATEGORIES, exact, f1, recall  # noqa: E402

from nanobot.backends.base import Message  # noqa: E402
from nanobot.config import load_settings  # noqa: E402
from nanobot.core.events import ToolCall, TurnDone  # noqa: E402
from nanobot.memory.retriever import format_past  # noqa: E402
from nanobot.memory.service import get_service  # noqa: E402
from nanobot.runtime import build_agent, load_model  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

# LoCoMo's own QA prompt (task_eval), with the hits as its context
QA_PROMPT = ("{context}\n\nBased on the above context, write an answer in the form of a short phrase for the "
             "following question. Answer with exact words from the context whenever possible.\n\n"
             "Question: {question} Short answer:")


def gold(q: dict) -> str:
    return str(q.get("answer", q.get("adversarial_answer", "")))


def sample(conv: dict, cid: str, per: int, only: set[int] = frozenset()) -> list[dict]:
    by = defaultdict(list)
    for q in conv["qa"]:
        by[q.get("category")].append(q)
    out = []
    for cat in sorted(CATEGORIES):
        if only and cat not in only:
            continue
        qs = by.get(cat, [])
        out += random.Random(f"{cid}-{cat}").sample(qs, min(per, len(qs)))
    return out


def ask_chat(agent, question: str) -> tuple[str, list[str]]:
    agent.start_session()
    events = list(agent.turn(question))
    agent.end_session()
    agent.transcript.path.unlink(missing_ok=True)  # the next question must not find this one's answer
    done = next(e for e in events if isinstance(e, TurnDone))
    return done.reply, [e.name for e in events if isinstance(e, ToolCall)]


def ask_plain(model, hits, question: str) -> str:
    context = "\n".join(format_past(h) for h in hits)
    messages = [Message(role="user", content=QA_PROMPT.format(context=context, question=question))]
    return "".join(model.stream(messages, max_tokens=48, temperature=0)).strip()


def run_conversation(cid: str, conv: dict, opts, model) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix=f"locomo-answers{cid}-") as tmp:
        settings = load_settings(Path(tmp), chat={"temperature": 0}, observer={"enabled": False},
                                 kv_cache={"enabled": False})
        init_workspace(settings.workspace)
        where = write_transcripts(settings, conv, captions=True)
        svc = get_service(settings)
        svc.refresh()
        agent = build_agent(settings, model)
        for q in sample(conv, cid, opts.per_category, set(opts.categories)):
            cat, want = q["category"], gold(q)
            t0 = time.perf_counter()
            reply, called = ask_chat(agent, q["question"])
            got = recall(reply, want, cat)
            row = {"conversation": cid, "category": cat, "f1": round(f1(reply, want, cat), 3),
                   "recall": round(got, 3) if got is not None else None,
                   "exact": exact(reply, want) if cat != 5 else None,
                   "seconds": round(time.perf_counter() - t0, 1), "tools": called}
            hits = svc.search(q["question"], 5)
            row["hit@5"] = bool({where.get((h.source, h.line)) for h in hits} & evidence(q))
            if opts.plain:
                plain = ask_plain(model, hits, q["question"])
                got = recall(plain, want, cat)
                row |= {"plain_f1": round(f1(plain, want, cat), 3), "plain_recall": round(got, 3) if got is not None else None}
            if not opts.masked:
                row |= {"question": q["question"], "gold": want, "reply": reply[:300]}
                if opts.plain:
                    row["plain"] = plain[:200]
            rows.append(row)
            print(json.dumps(row if not opts.masked else {"conversation": cid, "done": len(rows)}), flush=True)
        agent.end_session()
        svc.close()
    return rows


def summarise(rows: list[dict], key: str = "f1") -> dict:
    out = {}
    for cat, name in CATEGORIES.items():
        sel = [r[key] for r in rows if r["category"] == cat and r.get(key) is not None]
        out[name] = round(sum(sel) / len(sel), 3) if sel else None
    answered = [r[key] for r in rows if r["category"] != 5 and r.get(key) is not None]
    out["overall (1-4)"] = round(sum(answered) / len(answered), 3) if answered else None
    return out


def rescore(path: Path) -> None:
    """The scores of a stored run's replies, computed again (a score added since it ran)."""
    data = json.loads(path.read_text())
    rows = data["rows"]
    for r in rows:
        for said, prefix in (("reply", ""), ("plain", "plain_")):
            if said in r:
                got = recall(r[said], r["gold"], r["category"])
                r[prefix + "recall"] = round(got, 3) if got is not None else None
                r[prefix + "f1"] = round(f1(r[said], r["gold"], r["category"]), 3)
    data["summary"]["f1"], data["summary"]["recall"] = summarise(rows), summarise(rows, "recall")
    if any("plain" in r for r in rows):
        data["summary"]["plain_f1"], data["summary"]["plain_recall"] = summarise(rows, "plain_f1"), summarise(rows, "plain_recall")
    emit(data, path, indent=1, echo=False)


def _code() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with 26.json ... (or locomo10.json)")
    ap.add_argument("--split", default="dev", help="dev, heldout (check-only: with --masked), or ids")
    ap.add_argument("--model", help="a .gguf path or model name (default: the configured one)")
    ap.add_argument("--per-category", type=int, default=4)
    ap.add_argument("--categories", type=int, nargs="*", default=[], help="only these categories (1-5)")
    ap.add_argument("--plain", action="store_true", help="also the plain baseline (hits in LoCoMo's prompt)")
    ap.add_argument("--masked", action="store_true", help="figures only: what a check-only split may show")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--rescore", type=Path, help="score a stored (unmasked) run's replies again, in place")
    opts = ap.parse_args()
    if opts.rescore:
        return rescore(opts.rescore)
    if opts.split == "heldout" and not opts.masked:
        ap.error("the heldout split is check-only: run it with --masked")
    ids = SPLITS.get(opts.split) or opts.split.split(",")
    convs = load_conversations(opts.data, ids)
    load_before = os.getloadavg()
    model = load_model(load_settings(), opts.model)  # a name as the user's home knows it, or a path
    t0 = time.perf_counter()
    rows = []
    for cid, conv in convs.items():
        rows += run_conversation(cid, conv, opts, model)
    secs = sorted(r["seconds"] for r in rows)
    adv = [r for r in rows if r["category"] == 5]
    result = {
        "model": model.name, "code": _code(), "split": opts.split, "conversations": ids, "questions": len(rows),
        "per_category": opts.per_category, "f1": summarise(rows),
        "exact": summarise([r | {"exact": float(r["exact"])} for r in rows if r["exact"] is not None], "exact"),
        "adversarial_not_mentioned": round(sum(r["f1"] for r in adv) / len(adv), 3) if adv else None,
        "plain_f1": summarise(rows, "plain_f1") if opts.plain else None,
        "recall": summarise(rows, "recall"),
        "plain_recall": summarise(rows, "plain_recall") if opts.plain else None,
        "turn_seconds": {"p50": secs[len(secs) // 2], "p90": secs[int(len(secs) * 0.9)], "max": secs[-1]} if secs else None,
        "hit@5": summarise([r | {"hit@5": float(r["hit@5"])} for r in rows], "hit@5"),
        "tool_turns": sum(bool(r["tools"]) for r in rows),
        "seconds": round(time.perf_counter() - t0), "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
    }
    emit({"summary": result, "rows": rows}, opts.out, indent=1, echo=False)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
