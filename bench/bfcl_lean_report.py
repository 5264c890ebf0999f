"""The lean tools block against every schema (``tools.leancalls``), on bench/bfcl_bench.py's records.

    .venv/bin/python bench/bfcl_lean_report.py    # -> bench/results/bfcl-lean.json and a table

For each path (``lean``, ``template``: every schema, ``own``: the model's own format, strict and lenient)
and set (``dev``, ``live``: development; ``held2``: the new held-back half) the items run so far, per
category; template paths at the runtime's ``tools.call_threshold`` and, for ``lean`` on development items
only, the thresholds that score best there. Every figure counts only items both compared paths ran.
"""

from __future__ import annotations

import json

from bfcl_bench import CATEGORIES, LIVE, ROOT, RUNS, correct, load_sample

OUT = ROOT / "bench/results/bfcl-lean.json"


def records(path: str, half: str) -> dict[str, dict]:
    f = RUNS / f"qwen2.5-{path}-{half}.jsonl"
    return {r["id"]: r for r in map(json.loads, f.open())} if f.exists() else {}


def call_at(rec: dict, tau: float):
    """The call at threshold ``tau``: None below it; ("?", {}) for a call not generated (irrelevance)."""
    if rec["p_call"] < tau:
        return None
    return tuple(rec["call"]) if rec.get("call") else ("?", {})


def score(items: dict, recs: dict, call_of, cats) -> dict:
    out = {}
    for cat in cats:
        rs = [r for r in recs.values() if r["category"] == cat]
        out[cat] = f"{sum(correct(items[r['id']], call_of(r)) for r in rs)}/{len(rs)}"
    made = [r for r in recs.values() if call_of(r) is not None and call_of(r)[0] != "?"]
    out["calls valid"] = f"{sum(1 for r in made if r.get('valid', True))}/{len(made)}"
    return out


def best_thresholds(items: dict, recs: dict) -> list[float]:
    """Thresholds (each item's P(call)) with the most correct development items."""
    taus = sorted({0.0, *(r["p_call"] for r in recs.values())})
    scored = [(sum(correct(items[r["id"]], call_at(r, t)) for r in recs.values()), t) for t in taus]
    top = max(s for s, _ in scored)
    return [round(t, 3) for s, t in scored if s == top]


def main() -> None:
    from nanobot.config import ToolSettings

    tau, full_tau = ToolSettings().threshold, ToolSettings(listing="full").threshold
    items = {i["id"]: i for i in load_sample()}
    report: dict = {"call_threshold": {"lean": tau, "full": full_tau}, "sets": {}}
    for half, cats in (("dev", CATEGORIES), ("live", LIVE), ("held2", CATEGORIES)):
        lean, full, own = records("lean", half), records("template", half), records("own", half)
        sets: dict = {}
        if lean:
            sets["lean"] = score(items, lean, lambda r: call_at(r, tau), cats)
            if half != "held2":
                sets["lean best thresholds (development)"] = best_thresholds(items, lean)
        for name, other, call_of in (("template (every schema)", full, lambda r: call_at(r, full_tau)),
                                     ("own, strict", own, lambda r: r["call"] and tuple(r["call"])),
                                     ("own, lenient", own, lambda r: r["lenient"] and tuple(r["lenient"]))):
            both = {k: r for k, r in other.items() if k in lean}
            if both:
                sets[name] = score(items, both, call_of, cats)
                sets[f"lean on the same items as {name}"] = score(
                    items, {k: lean[k] for k in both}, lambda r: call_at(r, tau), cats)
        report["sets"][half] = sets
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
