"""Choose the hybrid fusion's parameters on LoCoMo's DEVELOPMENT conversations only.

Indexes each dev conversation once (perfect-observer layout, as bench/locomo_bench.py), takes each
question's vector and keyword candidates once, then scores fusion variants offline::

    PYTHONPATH=$PWD .venv/bin/python bench/locomo_tune.py --data DIR --out bench/results/locomo-tune.json
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from figures import emit  # noqa: E402
from locomo_bench import CATEGORIES, SPLITS, evidence, load_conversations, write_observer  # noqa: E402

from nanobot.config import load_settings  # noqa: E402
from nanobot.memory import fusion  # noqa: E402
from nanobot.memory import store as storemod  # noqa: E402
from nanobot.memory.embedder import get_embedder  # noqa: E402
from nanobot.memory.service import MemoryService  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

DEPTH = 50


QUESTION_WORDS = frozenset(
    "what when where who whom whose why how which did does do done doing is are was were be been being has "
    "have had kind type sort some any ever about like likely would could should might may can many much "
    "there their".split())


def candidates(conv: dict, cid: str, keep: Path) -> list[dict]:
    out = []
    tmp = keep / cid
    fresh = not tmp.exists()
    if True:  # indexes kept in --keep between runs
        settings = load_settings(Path(tmp))
        init_workspace(settings.workspace)
        where = write_observer(settings.workspace, conv) if fresh else _where(conv)
        svc = MemoryService(settings, embedder=get_embedder(settings))
        svc.refresh()
        store = svc.store
        gold_of = {}
        pos = {}
        for cid, src, line in store.conn.execute("SELECT id, source, line FROM chunks"):
            gold_of[cid] = where.get((src, line))
            pos[(src, line)] = cid
        nb = {c: [pos.get((s, ln - 1)), pos.get((s, ln + 1))] for (s, ln), c in pos.items()}
        qs = [q for q in conv["qa"] if q.get("category") in CATEGORIES]
        qvecs = svc.embedder.embed([q["question"] for q in qs])
        for q, qv in zip(qs, qvecs, strict=True):
            vec = store.vector_search(qv, DEPTH)
            ftss = {}
            for name, stop in (("base", storemod._STOPWORDS), ("q", storemod._STOPWORDS | QUESTION_WORDS)):
                saved = storemod._STOPWORDS
                storemod._STOPWORDS = stop
                ftss[name] = store.fts_search(q["question"], DEPTH)
                storemod._STOPWORDS = saved
            fts = ftss["base"] + ftss["q"]
            sims = store._cosines(qv, vec, fts)
            near = {n for c in sims for n in nb[c] if n is not None and n not in sims}
            sims.update(store._exact(qv, list(near)))
            gold = evidence(q)
            out.append({"cat": q["category"], "vec": [c for c, _ in vec], "ftss": ftss, "sims": sims, "nb": nb,
                        "good": {c for c, d in gold_of.items() if d in gold}, "n_gold": len(gold)})
        svc.close()
    return out


def _where(conv):
    with tempfile.TemporaryDirectory() as t:
        Path(t, "observations").mkdir()
        return write_observer(Path(t), conv)


def score(rows: list[dict], rank) -> dict:
    per = {name: [] for name in CATEGORIES.values()}
    allh = []
    for r in rows:
        top = rank(r)[:5]
        hit = bool(set(top) & r["good"])
        per[CATEGORIES[r["cat"]]].append(hit)
        allh.append(hit)
    out = {k: round(sum(v) / len(v), 3) for k, v in per.items() if v}
    out["all"] = round(sum(allh) / len(allh), 3)
    return out


def variants(depth_v: int, depth_f: int, key: str):
    def vector(r):
        return r["vec"][:5]

    def fts(r):
        return [c for c, _ in r["ftss"][key][:5]]

    def blend(alpha):
        def f(r):
            vec = r["vec"][:depth_v]
            fts = dict(r["ftss"][key][:depth_f])
            cos = {c: r["sims"][c] for c in [*vec, *fts]}
            s = fusion.blend(cos, fts, alpha)
            return sorted(s, key=lambda c: -s[c])
        return f

    def smooth(alpha, beta):
        def f(r):
            vec = r["vec"][:depth_v]
            fts = dict(r["ftss"][key][:depth_f])
            cos = {c: r["sims"][c] for c in [*vec, *fts]}
            s = fusion.blend(cos, fts, alpha)
            lo = min(cos.values())
            hi = max(max(cos.values()) - lo, fusion.MIN_SPAN)
            out = dict(s)
            for c, v in s.items():  # a neighbour of a good candidate joins with a share of its score
                for n in r["nb"][c]:
                    if n is None:
                        continue
                    base = s.get(n, alpha * max(0.0, r["sims"].get(n, lo) - lo) / hi)
                    out[n] = max(out.get(n, base), base + beta * v)
            return sorted(out, key=lambda c: -out[c])
        return f

    def rrf(k):
        def f(r):
            s = fusion.rrf(r["vec"][:depth_v], [c for c, _ in r["ftss"][key][:depth_f]], k=k)
            return sorted(s, key=lambda c: -s[c])
        return f

    out = {"vector": vector, f"fts {key}": fts}
    for a in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        out[f"blend {key} a={a} dv={depth_v} df={depth_f}"] = blend(a)
    for a in (0.4, 0.5, 0.6):
        for b in (0.1, 0.2, 0.3):
            out[f"smooth {key} a={a} b={b} dv={depth_v} df={depth_f}"] = smooth(a, b)
    for k in (10, 60):
        out[f"rrf {key} k={k} dv={depth_v} df={depth_f}"] = rrf(k)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "locomo-tune",
                    help="where the dev indexes are kept between runs")
    args = ap.parse_args()
    rows = []
    for cid, conv in load_conversations(args.data, SPLITS["dev"]).items():
        rows += candidates(conv, cid, args.keep)
        print(f"{cid}: {len(rows)} questions so far", file=sys.stderr)
    result = {}
    for key in ("base", "q"):
        for dv, df in ((20, 20), (30, 30), (50, 50)):
            for name, fn in variants(dv, df, key).items():
                result[name] = score(rows, fn)
    for name, s in sorted(result.items(), key=lambda kv: -kv[1]["all"]):
        print(f"{s['all']:.3f}  {name}  {s}")
    emit({"split": "dev", "questions": len(rows), "load": os.getloadavg()[0], "variants": result},
         args.out, echo=False)


if __name__ == "__main__":
    main()
