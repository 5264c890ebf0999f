"""BFCL v4 (simple_python, multiple, irrelevance) on nanobot's tool-call paths, scored like BFCL's AST checker.

    .venv/bin/python bench/bfcl_bench.py run --model PATH --path names|own|template|lean --half dev|held|held2|live [--limit N]
    .venv/bin/python bench/bfcl_bench.py report        # -> bench/results/bfcl.json (and a table)
    .venv/bin/python bench/bfcl_bench.py sample DIR    # redraw bench/data/bfcl/sample.jsonl from BFCL's data/
    .venv/bin/python bench/bfcl_bench.py sample --more DIR  # draw held2.jsonl and live.jsonl (seed 37)

Paths (all at temperature 0, one attempt, the system message the SOUL.md of the template workspace):
- ``names``: nanobot's decide (``Answer:`` | ``Tool: NAME``) + constrained arguments (``tools.runner``).
- ``own``: the model's chat template rendered with the tools and no system message, the reply unconstrained
  (what ``llama-server --jinja`` gives); a call is a ``<tool_call>{...}</tool_call>``; the lenient count also
  takes a ```json block holding ``{"name", "arguments"}``.
- ``template``: nanobot's template-tool step (``tools.templatecalls``): P(<tool_call> first) is recorded for
  every item and, except for irrelevance, the constrained call is generated, so ``report`` scores every
  threshold; the threshold is chosen on the dev half and applied to the held-back half.

The sample (``sample.jsonl``) was drawn from gorilla@6ea5797 berkeley-function-call-leaderboard/bfcl_eval/data
with seed 23: 20 dev + 20 held-back items per category. ``tools/choices.py`` once quoted descriptions of
three ``held`` items, so ``held2`` (seed 37, none of the items above) is the held-back half now, and
``live`` (seed 37, 20 per live category) a second development set. Per-item records go to bench/results/bfcl-runs/ (a
rerun skips items already there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT / "bench/data/bfcl/sample.jsonl"
# drawn later, excluding every item above: ``held2`` replaces ``held`` (tools/choices.py was fitted to
# items of that half), ``live`` (BFCL v4's user-contributed functions) is a second development set
MORE = {"held2": ROOT / "bench/data/bfcl/held2.jsonl", "live": ROOT / "bench/data/bfcl/live.jsonl"}
RUNS = ROOT / "bench/results/bfcl-runs"
CATEGORIES = ("simple_python", "multiple", "irrelevance")
LIVE = ("live_simple", "live_multiple", "live_irrelevance")
SEED, PER_HALF = 23, 20
SEED2 = 37  # the draw of ``held2`` and ``live``


# -- the sample ------------------------------------------------------------------------------------
def draw(src: Path) -> None:
    rows = []
    for cat in CATEGORIES:
        items = [json.loads(line) for line in (src / f"BFCL_v4_{cat}.json").open()]
        answers = {}
        if (src / f"possible_answer/BFCL_v4_{cat}.json").exists():
            for line in (src / f"possible_answer/BFCL_v4_{cat}.json").open():
                a = json.loads(line)
                answers[a["id"]] = a["ground_truth"]
        picked = random.Random(SEED).sample(items, 2 * PER_HALF)
        for i, item in enumerate(picked):
            rows.append({"id": item["id"], "category": cat, "half": "dev" if i < PER_HALF else "held",
                         "question": item["question"][0][-1]["content"], "functions": item["function"],
                         "ground_truth": answers.get(item["id"])})
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text("".join(json.dumps(r) + "\n" for r in rows))


def draw_more(src: Path) -> None:
    """``held2``: 20 items per category of CATEGORIES none of which is in sample.jsonl; ``live``: 20 per
    LIVE category (the last user message of each item's first turn is the question)."""
    taken = {r["id"] for r in load_sample()}
    for half, cats in (("held2", CATEGORIES), ("live", LIVE)):
        rows = []
        for cat in cats:
            items = [json.loads(line) for line in (src / f"BFCL_v4_{cat}.json").open()]
            answers = {}
            if (src / f"possible_answer/BFCL_v4_{cat}.json").exists():
                answers = {a["id"]: a["ground_truth"] for a in map(json.loads, (src / f"possible_answer/BFCL_v4_{cat}.json").open())}
            items = [i for i in items if i["id"] not in taken and len(i["question"]) == 1]
            for item in random.Random(SEED2).sample(items, PER_HALF):
                user = [m for m in item["question"][0] if m["role"] == "user"]
                rows.append({"id": item["id"], "category": cat, "half": half, "question": user[-1]["content"],
                             "functions": item["function"], "ground_truth": answers.get(item["id"])})
        MORE[half].write_text("".join(json.dumps(r) + "\n" for r in rows))


def load_sample() -> list[dict]:
    rows = [json.loads(line) for line in DATA.open()]
    for path in MORE.values():
        if path.exists():
            rows += [json.loads(line) for line in path.open()]
    return rows


# -- BFCL functions as nanobot tools -------------------------------------------------------------
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "int": "integer", "str": "string",
          "bool": "boolean", "list": "array"}


def json_schema(node: dict) -> dict:
    """BFCL's parameter dialect (dict, float, tuple, any, optional) as JSON Schema."""
    out = {k: v for k, v in node.items() if k not in ("optional", "type", "properties", "items")}
    kind = node.get("type")
    if kind and kind != "any":
        out["type"] = _TYPES.get(kind.lower(), kind.lower())
    if "properties" in node:
        out["properties"] = {k: json_schema(v) for k, v in node["properties"].items()}
    if "items" in node:
        out["items"] = json_schema(node["items"])
    return out


def make_tools(functions: list[dict]) -> dict:
    from nanobot.mcptools.schema_grammar import schema_grammar
    from nanobot.mcptools.tool import args_model
    from nanobot.tools.base import Tool

    tools = {}
    for fn in functions:
        schema = json_schema(fn["parameters"])

        class BfclTool(Tool):
            def grammar(self, schema=schema) -> str:
                return schema_grammar(schema).gbnf

            def grammar_of(self, schema: dict) -> str:
                return schema_grammar(schema).gbnf

            def parameters(self, schema=schema) -> dict:  # type: ignore[override]
                return schema

        tool = BfclTool()
        tool.name, tool.description = fn["name"], fn.get("description", "")
        tool.Args = args_model(fn["name"], schema)
        tools[fn["name"]] = tool
    return tools


# -- scoring (after BFCL's ast_checker) -------------------------------------------------------------
def _std(s: str) -> str:
    return re.sub(r"[ ,./\-_*^]", "", s).lower().replace("'", '"')


def _match(v, a) -> bool:
    if isinstance(a, bool) or isinstance(v, bool):
        return v is a
    if isinstance(a, str):
        return isinstance(v, str) and _std(v) == _std(a)
    if isinstance(a, (int, float)):
        return isinstance(v, (int, float)) and float(v) == float(a)
    if isinstance(a, (list, tuple)):
        return isinstance(v, (list, tuple)) and len(v) == len(a) and all(map(_match, v, a))
    if isinstance(a, dict):
        return isinstance(v, dict) and _args_ok(v, a)
    return v == a


def _value_ok(value, options: list, kind: str | None) -> bool:
    """One argument against its possible answers, as BFCL's ``simple_function_checker`` takes it: an int
    where a float is declared counts as that float, a float where an integer is declared is a type error,
    and a string is compared standardized against every string answer -- "" included, so an optional
    string written out empty counts as left out (``string_checker``)."""
    if kind == "float" and type(value) is int:
        value = float(value)
    if kind == "integer" and type(value) is float:
        return False
    if kind == "string" and isinstance(value, str):
        return _std(value) in {_std(o) for o in options if isinstance(o, str)}
    return any(_match(value, o) for o in options if o != "")


def _args_ok(args: dict, allowed: dict, kinds: dict | None = None) -> bool:
    if any(k not in allowed for k in args):
        return False
    for key, options in allowed.items():
        options = options if isinstance(options, list) else [options]
        if key not in args:
            if "" not in options:
                return False
        elif not _value_ok(args[key], options, (kinds or {}).get(key, {}).get("type")):
            return False
    return True


def correct(item: dict, call: tuple[str, dict] | None) -> bool:
    if item["category"].endswith("irrelevance"):
        return call is None
    if call is None:
        return False
    (name, allowed), = item["ground_truth"][0].items()
    declared = next((f["parameters"].get("properties", {}) for f in item.get("functions", []) if f["name"] == name), {})
    return call[0] == name and isinstance(call[1], dict) and _args_ok(call[1], allowed, declared)


# -- the paths ---------------------------------------------------------------------------------------
def soul() -> str:
    text = (ROOT / "workspace_template/SOUL.md").read_text()
    return re.sub(r"<!--.*?-->", "", text, flags=re.S).strip()


def run_names(agent, item) -> dict:
    from nanobot.backends.base import Message
    from nanobot.tools.runner import ToolRunner

    runner = ToolRunner(agent.settings, make_tools(item["functions"]))
    msgs = [Message(role="system", content=f"{soul()}\n\n## Tools\n{runner.index_text()}"),
            Message(role="user", content=item["question"])]
    name = runner.decide(agent, msgs, runner.names())
    if name is None:
        return {"call": None}
    raw, args, error = runner.arguments(agent, msgs, runner.tools[name])
    return {"call": [name, json.loads(raw) if args is not None else None], "raw": raw, "valid": args is not None,
            "error": error}


_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCE = re.compile(r"```(?:json)?\s*(\{.*)", re.S)


def _loads(text: str):
    """JSON from a reply cut by a stop string: as is, or with the brace the stop took."""
    text = text.strip().removesuffix("```").strip()
    for candidate in (text, text + "}", text + "}}"):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    return None


def parse_own(text: str, lenient: bool) -> tuple[str, dict] | None:
    found = _CALL.search(text) or (_FENCE.search(text) if lenient else None)
    data = _loads(found.group(1)) if found else None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    args = data.get("arguments", data.get("parameters"))
    return (data["name"], args) if isinstance(args, dict) else None


def run_own(agent, item) -> dict:
    from nanobot.backends.base import Message
    from nanobot.tools.callgrammar import tool_specs

    specs = tool_specs(make_tools(item["functions"]))
    text = "".join(agent.model.stream([Message(role="user", content=item["question"])], tools=specs,
                                      max_tokens=80, temperature=0.0, stop=["</tool_call>", "}\n```"]))
    return {"raw": text, "call": parse_own(text, False), "lenient": parse_own(text, True)}


def _top_tokens(model, k: int = 5) -> list:
    """The k likeliest first tokens of the reply ``prefix_probability`` just scored (for analysis)."""
    import numpy as np

    llm, probs = model.llm, model.first_probs
    best = np.argsort(-probs)[:k]
    return [[llm.detokenize([int(t)], special=True).decode("utf-8", "replace"), round(float(probs[t]), 4)]
            for t in best]


def run_template(agent, item) -> dict:
    from nanobot.backends.base import Message
    from nanobot.tools.runner import ToolRunner
    from nanobot.tools.templatecalls import TemplateCalls

    step = TemplateCalls(ToolRunner(agent.settings, make_tools(item["functions"])))
    msgs = step.messages([Message(role="system", content=soul()), Message(role="user", content=item["question"])])
    out: dict = {"p_call": step.call_probability(agent, msgs), "top": _top_tokens(agent.model)}
    if not item["category"].endswith("irrelevance"):
        raw, name, args, error = step.generate(agent, msgs)
        out |= {"raw": raw, "call": [name, args.model_dump(mode="json")] if args is not None else None,
                "valid": args is not None, "error": error}
    return out


# ``template``: every schema in the tools block (``tools.listing`` full); ``lean``: names + one line,
# the chosen tool's schema for its argument step only (``tools.leancalls``)
PATHS = {"names": run_names, "own": run_own, "template": run_template, "lean": run_template}


def run(opts) -> None:
    from nanobot.config import load_settings
    from nanobot.runtime import load_model

    home = Path(tempfile.mkdtemp(prefix="nanobot-bfcl-"))
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False},
                             kv_cache={"enabled": False},
                             tools={"args_tokens": 160, "listing": "lean" if opts.path == "lean" else "full"})
    if opts.threads:  # a fixed thread count (a model run beside another: never more threads than cores)
        from dataclasses import replace

        from nanobot.backends.llama import LlamaBackend
        from nanobot.models import resolve_model

        resolved = resolve_model(settings, opts.model)
        ms = resolved.settings.model_copy(update={"n_threads": opts.threads, "n_threads_batch": opts.threads})
        model = LlamaBackend(replace(resolved, settings=ms))
    else:
        model = load_model(settings, opts.model)
    agent = SimpleNamespace(model=model, settings=settings, transcript=None, confirm=None)
    tag = Path(opts.model).stem.split("-")[0].lower() if opts.model else "smollm2"
    out = RUNS / f"{tag}-{opts.path}-{opts.half}{opts.suffix}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["id"] for line in out.open()} if out.exists() else set()
    cats = opts.category.split(",") if opts.category else (LIVE if opts.half == "live" else CATEGORIES)
    items = [i for i in load_sample() if i["half"] == opts.half and i["category"] in cats
             and (not opts.ids or i["id"] in opts.ids.split(","))]
    per_cat: dict[str, int] = {}
    for item in items:
        per_cat[item["category"]] = per_cat.get(item["category"], 0) + 1
        if item["id"] in done or per_cat[item["category"]] > opts.limit:
            continue
        start = time.perf_counter()
        rec = PATHS[opts.path](agent, item)
        rec |= {"id": item["id"], "category": item["category"], "seconds": round(time.perf_counter() - start, 2),
                "load1": round(os.getloadavg()[0], 2)}
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps({k: rec.get(k) for k in ("id", "call", "p_call", "seconds")})[:200], flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--model", default=None, help="a GGUF path; default: the bundled SmolLM2")
    r.add_argument("--path", choices=list(PATHS), required=True)
    r.add_argument("--half", choices=["dev", "held", *MORE], required=True)
    r.add_argument("--limit", type=int, default=PER_HALF, help="items per category")
    r.add_argument("--threads", type=int, help="llama.cpp threads (default: nanobot's choice)")
    r.add_argument("--category", help="comma-separated categories (default: all three)")
    r.add_argument("--ids", help="comma-separated item ids (default: every item of the categories)")
    r.add_argument("--suffix", default="", help="records to <tag>-<path>-<half><suffix>.jsonl (a rerun beside a stored one)")
    s = sub.add_parser("sample")
    s.add_argument("src", type=Path)
    s.add_argument("--more", action="store_true", help="draw held2 and live (keeps sample.jsonl)")
    sub.add_parser("report")
    opts = ap.parse_args()
    if opts.cmd == "sample":
        draw_more(opts.src) if opts.more else draw(opts.src)
    elif opts.cmd == "run":
        run(opts)
    else:
        from bfcl_report import report  # noqa: E402

        report()
