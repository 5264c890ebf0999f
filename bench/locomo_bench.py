"""LoCoMo retrieval benchmark: does memory search find the dialog turns that answer a question?

LoCoMo (snap-research/locomo, ACL 2024) is not copied here (its repository states no licence);
get ``data/locomo10.zip`` from https://github.com/snap-research/locomo, unzip it and pass the
folder holding ``26.json`` ... ``50.json`` (or ``locomo10.json``)::

    PYTHONPATH=$PWD .venv/bin/python bench/locomo_bench.py --data /tmp/locomo/data/multimodal_dialog/locomo10_v2 \
        --split dev --out bench/results/locomo-dev.json

Layouts (``--layout``):
- ``observer`` (a perfect observer): each session one file under ``observations/``, a ``## <date>``
  heading and each dialog turn one bullet ``- Speaker: text``.
- ``transcripts``: each session imported as a session transcript (``nanobot import``'s path), the
  turns of ``speaker_a`` as the user's, ``speaker_b``'s as the assistant's; no observations at all.

Every question outside the adversarial category 5 is searched with ``MemoryService.search(q, 5)``
in each mode; hit@5: a top-5 chunk holds an evidence turn; recall@5: the share of a question's
evidence turns held by the top 5. Splits: dev = 26 30 41 42 43 (tune on these), heldout = 44 47 48
49 50 (never tune on them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import emit  # noqa: E402

from nanobot.config import load_settings  # noqa: E402
from nanobot.memory.embedder import get_embedder  # noqa: E402
from nanobot.memory.service import MemoryService  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

SPLITS = {"dev": ["26", "30", "41", "42", "43"], "heldout": ["44", "47", "48", "49", "50"]}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MODES = ("hybrid", "vector", "fts")


def load_conversations(data: Path, ids: list[str]) -> dict[str, dict]:
    """Conversations by id from a folder of ``<id>.json`` or one ``locomo10.json``."""
    if data.is_file() or (data / "locomo10.json").is_file():
        path = data if data.is_file() else data / "locomo10.json"
        out = {}
        for item in json.loads(path.read_text()):
            cid = str(item.get("sample_id", "")).split("-")[-1]
            conv = dict(item["conversation"])
            conv["qa"] = item["qa"]
            out[cid] = conv
        return {i: out[i] for i in ids}
    return {i: json.loads((data / f"{i}.json").read_text()) for i in ids}


def sessions(conv: dict) -> list[tuple[int, str, list[dict]]]:
    """``[(n, date text, turns)]`` in order."""
    nums = sorted(int(k.split("_")[1]) for k in conv
                  if k.startswith("session_") and k.count("_") == 1 and isinstance(conv[k], list))
    return [(n, conv.get(f"session_{n}_date_time", ""), conv[f"session_{n}"]) for n in nums]


def parse_date(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023"."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def write_observer(ws: Path, conv: dict) -> dict[tuple[str, int], str]:
    """The perfect-observer files; returns (source, line) -> dia_id."""
    where: dict[tuple[str, int], str] = {}
    (ws / "observations").mkdir(exist_ok=True)
    for n, date, turns in sessions(conv):
        rel = f"observations/locomo-session-{n:02d}.md"
        lines = [f"# Session {n}", f"## {date}"]
        for t in turns:
            text = " ".join(t["text"].split())
            lines.append(f"- {t['speaker']}: {text}")
            where[(rel, len(lines))] = t["dia_id"]
        (ws / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return where


def said(turn: dict, captions: bool = False) -> str:
    """A turn's text; with ``captions``, a shared photo as LoCoMo's text-only runs give it ("[shares a
    photo of a sunset]"): some answers are only in the photo's caption."""
    text = " ".join(turn["text"].split())
    return f"{text} [shares {turn['blip_caption']}]" if captions and turn.get("blip_caption") else text


def write_transcripts(settings, conv: dict, captions: bool = False) -> dict[tuple[str, int], str]:
    """Sessions through ``nanobot import``'s library; returns (source, line) -> dia_id."""
    from nanobot.importing.formats import ImportedMessage, ImportedSession
    from nanobot.importing.importer import import_sessions

    user = conv["speaker_a"]
    batch = []
    for n, date, turns in sessions(conv):
        when = parse_date(date).astimezone()
        msgs = [ImportedMessage(role="user" if t["speaker"] == user else "assistant",
                                content=said(t, captions), ts=when,
                                speaker=t["speaker"], ref=t["dia_id"]) for t in turns]
        batch.append(ImportedSession(started=when, messages=msgs, title=f"locomo {n}"))
    written = import_sessions(settings, batch)
    where: dict[tuple[str, int], str] = {}
    for path, sess in zip(written, batch, strict=True):
        rel = f"sessions/{path.name}"
        for line, m in enumerate(sess.messages, start=2):  # line 1: the session record
            where[(rel, line)] = m.ref
    return where


def evidence(q: dict) -> set[str]:
    out = set()
    for e in q.get("evidence", []):
        for part in str(e).replace(",", ";").split(";"):
            if part.strip():
                out.add(part.strip())
    return out


def run_conversation(cid: str, conv: dict, layout: str, modes: list[str], k: int) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"locomo{cid}-") as tmp:
        settings = load_settings(Path(tmp))
        init_workspace(settings.workspace)
        where = (write_observer(settings.workspace, conv) if layout == "observer"
                 else write_transcripts(settings, conv))
        svc = MemoryService(settings, embedder=get_embedder(settings))
        t0 = time.perf_counter()
        report = svc.refresh()
        index_s = time.perf_counter() - t0
        rows = defaultdict(list)
        latency = []
        for q in conv["qa"]:
            cat = q.get("category")
            if cat not in CATEGORIES:
                continue
            gold = evidence(q)
            for mode in modes:
                t1 = time.perf_counter()
                hits = svc.search(q["question"], k, mode=mode)
                if mode == "hybrid":
                    latency.append(time.perf_counter() - t1)
                found = {where.get((h.source, h.line)) for h in hits} - {None}
                rows[mode].append((cat, bool(found & gold), len(found & gold) / max(1, len(gold))))
        svc.close()
        return {"rows": rows, "chunks": report.chunks, "index_s": index_s, "latency": latency}


def summarise(rows: list[tuple[int, bool, float]]) -> dict:
    out = {}
    for cat, name in CATEGORIES.items():
        sel = [r for r in rows if r[0] == cat]
        out[name] = round(sum(r[1] for r in sel) / len(sel), 3) if sel else None
    out["hit@5"] = round(sum(r[1] for r in rows) / len(rows), 3)
    out["recall@5"] = round(sum(r[2] for r in rows) / len(rows), 3)
    out["questions"] = len(rows)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with 26.json ... (or locomo10.json)")
    ap.add_argument("--split", default="dev", help="dev, heldout, or comma-separated ids")
    ap.add_argument("--layout", default="observer", choices=("observer", "transcripts"))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    ids = SPLITS.get(args.split) or args.split.split(",")
    modes = args.modes.split(",")
    convs = load_conversations(args.data, ids)
    every = defaultdict(list)
    chunks, index_s, latency = 0, 0.0, []
    t0 = time.perf_counter()
    for cid, conv in convs.items():
        r = run_conversation(cid, conv, args.layout, modes, args.k)
        for mode, rows in r["rows"].items():
            every[mode] += rows
        chunks += r["chunks"]
        index_s += r["index_s"]
        latency += r["latency"]
        print(f"{cid}: {r['chunks']} chunks, " + ", ".join(
            f"{m} {summarise(rows)['hit@5']:.3f}" for m, rows in r["rows"].items()), file=sys.stderr)
    latency.sort()
    result = {
        "split": args.split, "conversations": ids, "layout": args.layout, "k": args.k,
        "embedder": get_embedder(load_settings(Path(tempfile.gettempdir()))).name,
        "modes": {m: summarise(rows) for m, rows in every.items()},
        "chunks": chunks, "index_seconds": round(index_s, 1),
        "hybrid_query_ms_p50": round(1000 * latency[len(latency) // 2], 1) if latency else None,
        "seconds": round(time.perf_counter() - t0, 1),
        "load": os.getloadavg()[0], "note": "2-core machine shared with other work",
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
