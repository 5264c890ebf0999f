"""The fit check (``nanobot.tools.fitcheck``) on the lean path's stored BFCL records: for each item the
tool the lean step uses (the stored call's; for an irrelevance item, where no call was generated, the
one ``TemplateCalls.pick`` chooses now) and the model's P(yes) that it does what the question asks.

    .venv/bin/python bench/bfcl_fit.py --model <1.5B gguf> --half live dev held2 [--threads 1]
    .venv/bin/python bench/bfcl_fit.py --report      # scores, threshold alone vs with the fit check

Records go to bench/results/bfcl-runs/qwen2.5-lean-<half>-fit.jsonl (a rerun skips items already there);
``--report`` writes bench/results/bfcl-fit.json. ``FIT_YES`` and ``FIT_FLOOR`` were chosen on ``dev`` and
``live``; ``held2`` is only checked.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from types import SimpleNamespace

from bfcl_bench import CATEGORIES, LIVE, ROOT, RUNS, correct, load_sample, make_tools, soul

OUT = ROOT / "bench/results/bfcl-fit.json"


def measure(opts) -> None:
    from nanobot.backends.base import Message
    from nanobot.config import load_settings
    from nanobot.runtime import load_model
    from nanobot.tools.fitcheck import fits
    from nanobot.tools.runner import ToolRunner
    from nanobot.tools.templatecalls import TemplateCalls

    home = Path(tempfile.mkdtemp(prefix="nanobot-bfcl-fit-"))
    threads = {"n_threads": opts.threads, "n_threads_batch": opts.threads} if opts.threads else {}
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False},
                             kv_cache={"enabled": False}, tools={"listing": "lean"})
    model = load_model(settings, opts.model) if not threads else _threaded(settings, opts.model, threads)
    agent = SimpleNamespace(model=model, settings=settings, transcript=None, confirm=None)
    items = {i["id"]: i for i in load_sample()}
    for half in opts.half:
        out = RUNS / f"qwen2.5-lean-{half}-fit.jsonl"
        done = {json.loads(line)["id"] for line in out.open()} if out.exists() else set()
        for rec in map(json.loads, (RUNS / f"qwen2.5-lean-{half}.jsonl").open()):
            if rec["id"] in done:
                continue
            item = items[rec["id"]]
            step = TemplateCalls(ToolRunner(settings, make_tools(item["functions"])))
            name = rec["call"][0] if rec.get("call") else ""
            if not name:
                msgs = step.messages([Message(role="system", content=soul()),
                                      Message(role="user", content=item["question"])])
                step.call_probability(agent, msgs)
                name = step.pick(agent, msgs)
            spec = next(f for f in item["functions"] if f["name"] == name)
            row = {"id": rec["id"], "category": rec["category"], "tool": name,
                   "fit": fits(model, spec, item["question"])}
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


def _threaded(settings, model_arg, threads):
    from dataclasses import replace

    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    resolved = resolve_model(settings, model_arg)
    return LlamaBackend(replace(resolved, settings=resolved.settings.model_copy(update=threads)))


def report() -> None:
    from nanobot.config import ToolSettings
    from nanobot.tools.fitcheck import FIT_FLOOR, FIT_YES

    tau = ToolSettings().threshold
    items = {i["id"]: i for i in load_sample()}
    result: dict = {"threshold": tau, "fit_yes": FIT_YES, "fit_floor": FIT_FLOOR, "sets": {}}
    for half, cats in (("dev", CATEGORIES), ("live", LIVE), ("held2", CATEGORIES)):
        fit_file = RUNS / f"qwen2.5-lean-{half}-fit.jsonl"
        if not fit_file.exists():
            continue
        fit = {r["id"]: r for r in map(json.loads, fit_file.open())}
        recs = [r for r in map(json.loads, (RUNS / f"qwen2.5-lean-{half}.jsonl").open()) if r["id"] in fit]
        rules = {"threshold alone": lambda r: r["p_call"] >= tau,
                 "with the fit check": lambda r, fit=fit: r["p_call"] >= FIT_FLOOR and (fit[r["id"]]["fit"] or 0) >= FIT_YES}
        table = {}
        for name, calls in rules.items():
            row = {}
            for cat in cats:
                rs = [r for r in recs if r["category"] == cat]
                good = sum(correct(items[r["id"]], tuple(r["call"]) if calls(r) and r.get("call") else
                                   (("?", {}) if calls(r) else None)) for r in rs)
                row[cat] = f"{good}/{len(rs)}"
            made = [r for r in recs if calls(r) and r.get("call")]
            row["calls valid"] = f"{sum(1 for r in made if r.get('valid', True))}/{len(made)}"
            table[name] = row
        result["sets"][half] = table
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model")
    ap.add_argument("--half", nargs="+", default=["dev", "live", "held2"])
    ap.add_argument("--threads", type=int)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    report() if a.report else measure(a)
