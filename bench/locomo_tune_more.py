# ruff: noqa: E402, E731, E741, B023  (a bench script: path set-up before imports; lambdas scored at once)
"""More fusion variants on LoCoMo's DEVELOPMENT conversations (after bench/locomo_tune.py): the chunk two
turns away also lifted (``beta2``), only the top candidates spreading, a separate blend weight for
"When ..." questions, a stronger spread, other depths, and pseudo-relevance feedback on the vector side
(the query vector moved towards the mean of the first ranking's top ``m`` chunks, then ranked again).
Exact cosines over every chunk (the vec0 int8 KNN gives the same top 30 on these small indexes)::

    PYTHONPATH=$PWD .venv/bin/python bench/locomo_tune_more.py --data DIR [--keep /tmp/locomo-tune] --out bench/results/locomo-tune-more-dev.json

None of them beats the default by more than noise (bench/results/locomo-tune-more-dev.json).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import locomo_tune
from figures import emit
from locomo_bench import CATEGORIES, SPLITS, evidence, load_conversations

from nanobot.config import load_settings
from nanobot.memory import fusion
from nanobot.memory.embedder import get_embedder
from nanobot.memory.service import MemoryService

D = 30


def cands(conv, cid, keep):
    settings = load_settings(keep / cid)
    where = locomo_tune._where(conv)
    svc = MemoryService(settings, embedder=get_embedder(settings))
    svc.refresh()
    store = svc.store
    rows = store.conn.execute(
        "SELECT c.id, c.source, c.line, e.embedding FROM chunks c JOIN embed_cache e ON e.hash=c.hash ORDER BY c.id"
    ).fetchall()
    ids = np.array([r[0] for r in rows])
    M = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    idx = {c: i for i, c in enumerate(ids)}
    pos = {(r[1], r[2]): r[0] for r in rows}
    gold_of = {r[0]: where.get((r[1], r[2])) for r in rows}
    nb = {c: [pos.get((s, l - 1)), pos.get((s, l + 1))] for (s, l), c in pos.items()}
    nb2 = {c: [pos.get((s, l - 2)), pos.get((s, l + 2))] for (s, l), c in pos.items()}
    qs = [q for q in conv["qa"] if q.get("category") in CATEGORIES]
    qv = svc.embedder.embed([q["question"] for q in qs])
    out = []
    for q, v in zip(qs, qv):
        fts = store.fts_search(q["question"], 50)
        out.append(
            {
                "cat": q["category"],
                "q": q["question"],
                "nb2": nb2,
                "v": v,
                "fts": fts,
                "M": M,
                "ids": ids,
                "idx": idx,
                "nb": nb,
                "good": {c for c, d in gold_of.items() if d in evidence(q)},
            }
        )
    svc.close()
    return out


ap = argparse.ArgumentParser()
ap.add_argument("--data", type=Path, required=True)
ap.add_argument(
    "--keep",
    type=Path,
    default=Path("/tmp/locomo-tune"),
    help="dev indexes (bench/locomo_tune.py --keep)",
)
ap.add_argument("--out", type=Path)
args = ap.parse_args()
rows = []
for cid, conv in load_conversations(args.data, SPLITS["dev"]).items():
    if not (args.keep / cid).exists():
        sys.exit(f"{args.keep / cid} missing: run bench/locomo_tune.py --keep {args.keep} first")
    rows += cands(conv, cid, args.keep)
    print(cid, len(rows), file=sys.stderr)


def fuse(r, v, alpha=0.5, beta=0.3, beta2=0.0, spread_top=None, when_alpha=None, depth=D):
    if when_alpha is not None and r["q"].lower().startswith("when"):
        alpha = when_alpha
    S = r["M"] @ v
    ids = r["ids"]
    top = np.argsort(-S)[:depth]
    vec = [int(ids[i]) for i in top]
    fts = dict(r["fts"][:depth])
    cos = {c: float(S[r["idx"][c]]) for c in [*vec, *fts]}
    s = fusion.blend(cos, fts, alpha)
    lo = min(cos.values())
    hi = max(max(cos.values()) - lo, fusion.MIN_SPAN)
    own = lambda n: s.get(n, alpha * max(0.0, float(S[r["idx"][n]]) - lo) / hi)
    out = dict(s)
    for c, val in sorted(s.items(), key=lambda x: -x[1])[:spread_top]:
        for b, near in ((beta, r["nb"][c]), (beta2, r["nb2"][c] if beta2 else [])):
            for n in near:
                if n is None:
                    continue
                out[n] = max(out.get(n, own(n)), own(n) + b * val)
    return sorted(out, key=lambda c: -out[c])


def prf(r, m, g, alpha=0.5):
    first = fuse(r, r["v"], alpha)
    cen = r["M"][[r["idx"][c] for c in first[:m]]].mean(0)
    v2 = r["v"] + g * cen
    v2 /= np.linalg.norm(v2)
    return fuse(r, v2, alpha)


def score(fn):
    per = {n: [] for n in CATEGORIES.values()}
    allh = []
    for r in rows:
        h = bool(set(fn(r)[:5]) & r["good"])
        per[CATEGORIES[r["cat"]]].append(h)
        allh.append(h)
    o = {k: round(sum(v) / len(v), 3) for k, v in per.items()}
    o["all"] = round(sum(allh) / len(allh), 3)
    return o


res = {"default (a=0.5 b=0.3 depth 30)": score(lambda r: fuse(r, r["v"]))}
for b2 in (0.1, 0.15, 0.2):
    res[f"beta2={b2}"] = score(lambda r: fuse(r, r["v"], beta2=b2))
for t in (5, 10, 20):
    res[f"spread from top {t} only"] = score(lambda r: fuse(r, r["v"], spread_top=t))
for wa in (0.3, 0.4, 0.6):
    res[f"'When' questions alpha={wa}"] = score(lambda r: fuse(r, r["v"], when_alpha=wa))
for b in (0.4, 0.5):
    res[f"beta={b}"] = score(lambda r: fuse(r, r["v"], beta=b))
for d in (20, 50):
    res[f"depth={d}"] = score(lambda r: fuse(r, r["v"], depth=d))
for m in (3, 5):
    for g in (0.3, 0.6, 1.0):
        res[f"prf m={m} g={g}"] = score(lambda r: prf(r, m, g))
for k, v in res.items():
    print(k, v)
if args.out:
    import os

    emit({"split": "dev", "questions": len(rows), "load": os.getloadavg()[0], "variants": res}, args.out, echo=False)
