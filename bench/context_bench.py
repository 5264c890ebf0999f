"""Is CONTEXT.md worth reading? Recall, grounding, cuts and "where were we?" on labelled sessions.

    .venv/bin/python bench/context_bench.py [--model NAME] [--split dev|heldout] [--no-where]
                                            [--before] [--limit N] [--threads N] [--out FILE]

Each session of ``tests/data/context_sessions/<split>.json`` (``nanobot.bench.sessions``) is chatted
into a fresh home with its tool calls run for real (files edited, pytest and git run), observed as at
/quit (``observe_live``, timed) and reflected into MEMORY.md. Measured:

- recall: the labelled decisions, outcomes, next steps and facts found in CONTEXT.md, the observation
  or MEMORY.md by the lenient matcher (all of an item's key terms in one line, case-insensitive);
- grounded: the share of CONTEXT.md (Now, Recent) and MEMORY.md lines traceable to the session: the
  line's quote grounds it in the user's words (``nanobot.core.grounding.check``), or every content word
  of the line is the user's or a tool event's (the outcomes' few fixed words aside);
- cuts: values in CONTEXT.md and the observation holding a cut word (no word of the session, but
  the start of one: ``reverse_w``), a quote or a bracket that does not close (target 0);
  mid-sentence: values that copy the start of a user's sentence and stop before its end, not at a
  clause ("The server crashes because port() returns a"); ``--rescore FILE`` recounts a result
  file's cuts and mid-sentence values by these rules (from the stored CONTEXT.md text);
- where: a next session on the new CONTEXT.md, built as ``nanobot chat`` builds it (the observer's
  rendering of CONTEXT.md and the Time section; memory and tools off), asked "where were we?": the
  reply holds all terms of one of the labelled last outcomes / next steps;
- draft seconds per session; with ``--before`` also the draft from the prompt the observer used
  before (the whole system prompt and history), same grammar and budget, for the cost ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import emit  # noqa: E402

from nanobot.backends.base import Message  # noqa: E402
from nanobot.backends.llama import LlamaBackend  # noqa: E402
from nanobot.backends.scripted import ScriptedModel  # noqa: E402
from nanobot.base.shorten import open_quote  # noqa: E402
from nanobot.bench.grounded import memory_lines  # noqa: E402
from nanobot.bench.sessions import found, load, prepare, replay  # noqa: E402
from nanobot.config import load_settings  # noqa: E402
from nanobot.core.events import TurnDone  # noqa: E402
from nanobot.core.grounding import check, content_words  # noqa: E402
from nanobot.core.transcript import read_transcript  # noqa: E402
from nanobot.loop.agent import Agent  # noqa: E402
from nanobot.models import resolve_model  # noqa: E402
from nanobot.observer.contextmd import load_context  # noqa: E402
from nanobot.observer.observer import (  # noqa: E402
    INSTRUCTION,
    draft_budget,
    generate_draft,
    load_observation,
    observation_path,
    observe_live,
)
from nanobot.observer.reflector import lexical_similarity, reflect  # noqa: E402
from nanobot.runtime import build_agent, load_model  # noqa: E402
from nanobot.workspace import init_workspace  # noqa: E402

WORD = re.compile(r"[\w'’.-]*\w")
TEMPLATE = "ran make pass exit defines removes failed user said"  # the outcomes' and facts' own words
ALLOW = ["python -m pytest", "python", "git status", "git diff"]


def settings_for(root: Path, name: str):
    return load_settings(root / name, memory={"enabled": False}, kv_cache={"enabled": False},
                         observer={"reflect_on_start": False, "background": False},
                         tools={"enabled": [], "exec_allow": ALLOW}, chat={"temperature": 0})


def sources(path: Path) -> tuple[str, str]:
    """(what the user said, everything the session holds: words, tool calls and results, replies)."""
    records, _ = read_transcript(path)
    said = "\n".join(r.content for r in records if r.role == "user")
    return said, "\n".join(r.content for r in records) + " " + TEMPLATE


def grounded(line: str, quote: str, said: str, tools: str) -> bool:
    if quote and check(line.rstrip("…"), quote, said, INSTRUCTION).kept:
        return True
    return content_words(line.rstrip("…")) <= content_words(said + "\n" + tools)


def cut_values(values: list[str], everything: str) -> list[str]:
    """The values with a quote that does not close or a cut last word: not a word of the session but the
    start of one (``reverse_w`` of ``reverse_words``, ``utils`` of ``utils.py``); a word of the model's
    own that begins no word of the session is wording, not a cut, and so is one inside the value (a
    text is cut at its end: "move" of "moved" in "demo move and export" is the model's inflection)."""
    words = {w.lower() for w in WORD.findall(everything)}

    def cut(word: str) -> bool:
        w = word.lower()
        return w not in words and any(s.startswith(w) for s in words)

    return [v for v in values if open_quote(v) >= 0 or open_bracket(v) or any(cut(w) for w in WORD.findall(v.rstrip("…"))[-1:])]


def open_bracket(value: str) -> bool:
    """A "(" or "[" the value never closes: "edited utils.py at line 8 (defines reverse_words"."""
    return any(value.count(a) > value.count(b) for a, b in ("()", "[]"))


def mid_sentence(values: list[str], said: str) -> list[str]:
    """The values that copy the user's words (3 words or more, from a word's start) and stop before
    their sentence ends ("The server crashes because port() returns a" of
    "... returns a string"; "... depuis ce matin," of "..., tu peux les lancer ?"). A value in the model's
    own words is not one, nor one shortened with a mark
    ("…", ``base/shorten``: at a clause or a word, and said so)."""
    messages = [" ".join(m.split()).lower() for m in said.splitlines() if m.strip()]
    out = []
    for v in values:
        text = " ".join(v.split()).lower()
        if text.endswith("…") or len(text.split()) < 3 or text[-1:] in ".!?":
            continue
        if any(re.search(rf"(?<![\w]){re.escape(text)} \S", m) for m in messages):
            out.append(v)
    return out


def rescore(path: str) -> None:
    """Recount a result file's cuts by ``cut_values`` against the words of its labelled sessions
    (user turns, replies, tool arguments; tool results are not stored)."""
    data = json.loads(Path(path).read_text())
    sessions = {s.id: s for split in ("dev", "heldout") for s in load(split)}
    for row in data["rows"]:
        s = sessions[row["id"]]
        text = "\n".join(f"{t.user} {t.reply} {json.dumps([c.args for c in t.calls])}" for t in s.turns)
        text += " 0 1 2 3 4 5 6 7 8 9"  # tool results are not stored: an exit code or count is a whole number
        shown = [ln.split(": ", 1)[-1] if ln.startswith("- ") and ": " in ln[:12] else ln[2:]
                 for ln in row["context"].splitlines() if ln.startswith("- ")]  # CONTEXT.md's values
        shown = [v[6:] if v[:5].replace("-", "").isdigit() else v for v in shown]
        row["cuts"] = cut_values(list(dict.fromkeys(row["cuts"] + shown)), text + " " + TEMPLATE)
        row["mid"] = mid_sentence(shown, "\n".join(t.user for t in s.turns))
    data["summary"]["cuts"] = sum(len(r["cuts"]) for r in data["rows"])
    data["summary"]["mid_sentence"] = sum(len(r["mid"]) for r in data["rows"])
    emit(data, path, indent=1, echo=False)
    print(path, "cuts", data["summary"]["cuts"], "mid-sentence", data["summary"]["mid_sentence"])


def run_session(model, s, root: Path, i: int, where: bool, before: bool) -> dict:
    settings = settings_for(root, f"h{i}")
    init_workspace(settings.workspace)
    prepare(s, settings.workspace)
    agent = Agent(settings, model)
    replay(agent, s)
    row: dict = {"id": s.id, "kind": s.kind, "lang": s.lang}
    if before:  # the draft from the observer's former prompt: system prompt + whole history
        msgs = [Message(role="system", content=agent.system_prompt().text), *agent.history,
                Message(role="user", content=INSTRUCTION)]
        start = time.perf_counter()
        generate_draft(model, msgs, draft_budget(settings.observer.max_tokens, [(m.role, "") for m in agent.history]))
        row["before_s"] = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    out = observe_live(agent, "quit")
    row["draft_s"], row["generator"] = round(time.perf_counter() - start, 1), out.part.generator
    reflect(settings, now=out.part.at, similarity=lexical_similarity)
    said, everything = sources(agent.transcript.path)
    doc = load_context(settings.workspace / "CONTEXT.md")
    part = load_observation(observation_path(settings.workspace, agent.transcript.id)).parts[-1]
    ctx = [v for v in (doc.now.focus, doc.now.task, doc.now.blocked, doc.now.next) if v]
    ctx += [r[6:] if r[:5].replace("-", "").isdigit() else r for r in doc.recent]
    obs = [v for v in (part.summary, part.focus, part.task, part.blocked) if v]
    obs += [*part.decisions, *part.open_items, *part.facts, *part.outcomes]
    memory = memory_lines(settings.workspace)
    lines = ctx + obs + memory
    row["items"] = [{"kind": it.kind, "keys": it.keys, "found": found(it.keys, lines)} for it in s.items]
    quotes = {**part.evidence}
    checked = ctx + memory
    row["grounded"] = [(ln, grounded(ln, quotes.get(ln, quotes.get(ln.rstrip("…"), "")), said, everything)) for ln in checked]
    row["cuts"] = cut_values(ctx + obs + list(part.evidence.values()) + memory, everything)
    row["mid"] = mid_sentence(ctx + obs + memory, said)
    row["context"] = doc.prompt_text()
    if where:
        nxt = build_agent(settings, model)  # as `nanobot chat` builds it: the observer's rendering of CONTEXT.md
        nxt.start_session()
        start = time.perf_counter()
        reply = next((e.reply for e in nxt.turn("Where were we?") if isinstance(e, TurnDone)), "")
        row["where_s"] = round(time.perf_counter() - start, 1)
        row["where_reply"] = reply
        row["where_ok"] = any(found(alt, [reply]) for alt in s.last)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None, help="a model name or GGUF; none: no model, the fallback only")
    ap.add_argument("--split", default="dev", choices=["dev", "heldout"])
    ap.add_argument("--no-where", action="store_true")
    ap.add_argument("--before", action="store_true", help="also time the draft from the former prompt")
    ap.add_argument("--threads", type=int, help="llama.cpp threads (default: nanobot's, from the free cores)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N sessions")
    ap.add_argument("--out", default=None)
    ap.add_argument("--rescore", help="recount the cuts of a result file (see rescore) and stop")
    args = ap.parse_args()
    if args.rescore:
        return rescore(args.rescore)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.model == "none":  # no model: every draft falls back (the extractive floor and the tool events)
            model, args.no_where = ScriptedModel([], name="none"), True
        elif args.threads:  # llama.cpp's thread count fixed: on a busy machine its spinning threads stall
            resolved = resolve_model(load_settings(Path(tmp) / "m"), args.model)
            model = LlamaBackend(replace(resolved, settings=resolved.settings.model_copy(
                update={"n_threads": args.threads, "n_threads_batch": args.threads})))
        else:
            model = load_model(load_settings(Path(tmp) / "m"), args.model)
        for i, s in enumerate(load(args.split)[: args.limit or None]):
            row = run_session(model, s, Path(tmp), i, not args.no_where, args.before)
            rows.append(row)
            print({k: row[k] for k in ("id", "generator", "draft_s") if k in row},
                  sum(x["found"] for x in row["items"]), "/", len(row["items"]),
                  "where", row.get("where_ok"), "cuts", len(row["cuts"]), flush=True)
            report(rows, model.name, args, echo=False)  # after every session: a partial run is kept
        report(rows, model.name, args)


def report(rows: list[dict], name: str, args, echo: bool = True) -> None:
    items = [x for r in rows for x in r["items"]]
    lines = [ok for r in rows for _, ok in r["grounded"]]
    by_kind = {k: f"{sum(x['found'] for x in items if x['kind'] == k)}/{sum(x['kind'] == k for x in items)}"
               for k in sorted({x["kind"] for x in items})}
    where = [r["where_ok"] for r in rows if "where_ok" in r]
    summary = {"model": name, "split": args.split, "sessions": len(rows),
               "recall": round(sum(x["found"] for x in items) / len(items), 3), "items": len(items),
               "recall_by_kind": by_kind, "grounded": round(sum(lines) / max(1, len(lines)), 3),
               "lines": len(lines), "cuts": sum(len(r["cuts"]) for r in rows),
               "mid_sentence": sum(len(r.get("mid", [])) for r in rows),
               "where": round(sum(where) / len(where), 3) if where else None,
               "generator": {g: sum(r["generator"] == g for r in rows) for g in ("model", "fallback")},
               "mean_draft_s": round(sum(r["draft_s"] for r in rows) / len(rows), 1),
               "load_avg": [round(x, 1) for x in os.getloadavg()]}  # this machine is shared: timings with it
    if args.before:
        summary["mean_before_s"] = round(sum(r["before_s"] for r in rows) / len(rows), 1)
    if echo:
        emit(summary, indent=1)
    out = args.out or f"bench/results/context-{Path(name).stem}-{args.split}.json"
    emit({"summary": summary, "rows": rows}, out, indent=1, echo=False)


if __name__ == "__main__":
    main()
