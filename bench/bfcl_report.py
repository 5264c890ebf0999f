"""Scores of bench/bfcl_bench.py's per-item records -> bench/results/bfcl.json and a markdown table.

The template path is scored at the runtime's ``tools.call_threshold``. That default was chosen on the dev
half: the thresholds with the best mean accuracy over the three categories form an interval between two
dev items' P(call); the choice is the middle of the gap below the lowest item the best thresholds still
call (recorded as ``dev_best`` with the whole curve), rounded to a twentieth for the setting.
"""

from __future__ import annotations

import json
import statistics

from bfcl_bench import CATEGORIES, ROOT, RUNS, correct, load_sample, make_tools, parse_own
from figures import emit


def _records(name: str) -> list[dict]:
    path = RUNS / f"{name}.jsonl"
    return [json.loads(line) for line in path.open()] if path.exists() else []


def _valid(item: dict, call) -> bool:
    if call is None or call[1] is None:
        return False
    tools = make_tools(item["functions"])
    if call[0] not in tools:
        return False
    try:
        tools[call[0]].Args.model_validate(call[1])
        return True
    except Exception:
        return False


def _score(items: dict, recs: list[dict], call_of) -> dict:
    out: dict = {}
    emitted = valid = 0
    for cat in CATEGORIES:
        rs = [r for r in recs if r["category"] == cat]
        ok = sum(correct(items[r["id"]], call_of(r)) for r in rs)
        out[cat] = {"correct": ok, "n": len(rs), "pct": round(100 * ok / len(rs), 1) if rs else None}
        for r in rs:
            call = call_of(r)
            if call is None or call[0] == "?":  # "?": a call the template path would make, not generated
                continue
            emitted += 1
            valid += r["valid"] if "valid" in r else _valid(items[r["id"]], call)
    out["calls_emitted"], out["calls_valid"] = emitted, valid
    out["median_s"] = round(statistics.median(r["seconds"] for r in recs), 2) if recs else None
    out["load1"] = [min(r["load1"] for r in recs), max(r["load1"] for r in recs)] if recs else None
    return out


def _as_call(c):
    return tuple(c) if c else None


def _threshold_call(tau: float):
    """The call the template path makes at threshold ``tau``: None (text) below it; ("?", {}) for an
    irrelevance item above it (a call, wrong whatever it is); an invalid generated call stays a call."""
    def call(r):
        if r["p_call"] < tau:
            return None
        if r["category"] == "irrelevance":
            return ("?", {})
        return _as_call(r.get("call")) or (r.get("raw", "?"), None)
    return call


def choose_threshold(items: dict, dev: list[dict]) -> tuple[float, list]:
    taus = sorted({0.0, *(round(r["p_call"], 4) for r in dev), *(i / 20 for i in range(1, 20))})
    curve = []
    for tau in taus:
        s = _score(items, dev, _threshold_call(tau))
        curve.append((tau, [s[c]["pct"] for c in CATEGORIES]))
    top = max(statistics.mean(x or 0 for x in t[1]) for t in curve)
    b0 = min(t[0] for t in curve if statistics.mean(x or 0 for x in t[1]) == top)
    # every tau in (highest P below b0, lowest P at or above b0] decides the dev items as b0 does:
    # the middle of that gap is the choice least fitted to them
    low = max((r["p_call"] for r in dev if r["p_call"] < b0), default=0.0)
    high = min((r["p_call"] for r in dev if r["p_call"] >= b0), default=1.0)
    return round((low + high) / 2, 3), curve


def report() -> dict:
    items = {i["id"]: i for i in load_sample()}
    results: dict = {"sample": "bench/data/bfcl/sample.jsonl (seed 23; 20 dev + 20 held-back per category)",
                     "command": "bench/bfcl_bench.py run --model M --path P --half H; bench/bfcl_bench.py report",
                     "machine": "2 cores shared with other jobs; load1 per row", "runs": {}}
    for tag in sorted({p.name.split("-")[0] for p in RUNS.glob("*.jsonl")}):
        for half in ("dev", "held"):
            for path in ("names", "own"):
                recs = _records(f"{tag}-{path}-{half}")
                if recs and path == "names":
                    results["runs"][f"{tag}/{path}/{half}"] = _score(items, recs, lambda r: _as_call(r.get("call")))
                elif recs:  # re-parsed from the raw reply: strict <tool_call>, then also ```json blocks
                    results["runs"][f"{tag}/own/{half}"] = _score(items, recs, lambda r: parse_own(r["raw"], False))
                    results["runs"][f"{tag}/own-lenient/{half}"] = _score(items, recs, lambda r: parse_own(r["raw"], True))
        dev, held = _records(f"{tag}-template-dev"), _records(f"{tag}-template-held")
        if dev:
            best, curve = choose_threshold(items, dev)
            from nanobot.config import ToolSettings

            tau = ToolSettings(listing="full").threshold
            results[f"{tag}_threshold"] = {"applied": tau, "dev_best": best, "dev_curve": curve}
            results["runs"][f"{tag}/template/dev"] = _score(items, dev, _threshold_call(tau))
            if held:
                results["runs"][f"{tag}/template/held"] = _score(items, held, _threshold_call(tau))
    out = ROOT / "bench/results/bfcl.json"
    emit(results, out, indent=1, echo=False)
    print("| model / path / half | " + " | ".join(CATEGORIES) + " | calls valid | median s | load |")
    print("|---|" + "---|" * (len(CATEGORIES) + 3))
    for key, s in results["runs"].items():
        cells = [f"{s[c]['correct']}/{s[c]['n']}" for c in CATEGORIES]
        print(f"| {key} | " + " | ".join(cells) + f" | {s['calls_valid']}/{s['calls_emitted']} | {s['median_s']} | {s['load1']} |")
    return results


if __name__ == "__main__":
    report()
