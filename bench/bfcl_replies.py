"""What a person reads after a declined decision: the BFCL items the template step declined, answered.

    .venv/bin/python bench/bfcl_replies.py --model PATH [--path lean|template] [--half live held2 dev] \\
        [--threads 1] [--max-tokens 96] [--json bench/results/bfcl-replies.json]

For every item of ``bench/results/bfcl-runs/<model>-<path>-<half>.jsonl`` whose P(call) is under the
runtime's threshold (``tools.threshold`` of that listing), the reply is generated as ``nanobot chat``
generates it after a declined step (``tools.templatecalls.TemplateCalls.reply``: openings and markup
masked, stops at a call tag, ``tools.plain`` over what is left) and both texts are kept: what the model
wrote and what the user is shown. Counted in what is shown (by this script's own patterns, not by
``plain``'s): template markup (``<tool_call>``, ``<tool_response>``, ``<|im_start|>``, ``<|im_end|>``,
...), a code fence left open (unless ``--max-tokens`` cut the reply) or holding only braces, and replies that are only a call's opening
(the runtime makes the call then; they are counted apart). An empty first reply is asked again once, as
the runtime asks it, and an empty reply after that is counted. Per-item records go to
``bench/results/bfcl-runs/<model>-<path>-<half>-replies.jsonl`` (a rerun skips items already there).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from types import MethodType, SimpleNamespace

from bfcl_bench import ROOT, RUNS, load_sample, make_tools, soul

MARKUP = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|im_start|>", "<|im_end|>",
          "<|endoftext|>", "<tools>", "</tools>")
FENCE = re.compile(r"^[ \t]*```", re.M)
EMPTY_FENCE = re.compile(r"```[\w+-]*[ \t]*\n[\s{}\[\]]*(?:```|$)")


def flaws(text: str, cut: bool) -> dict:
    """What a reader should not see in ``text`` (a fence still open counts unless ``--max-tokens`` cut it)."""
    return {"markup": [m for m in MARKUP if m in text],
            "open_fence": not cut and len(FENCE.findall(text)) % 2 == 1,
            "empty_fence": bool(EMPTY_FENCE.search(text))}


def _reply(agent, step, msgs):
    agent.wrote = []
    gen = step.reply(agent, msgs)
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        done, _held = stop.value
    return "".join(agent.wrote), done.reply, agent.model.last.finish_reason == "length"


def answer(agent, item) -> dict:
    """The declined step's reply as ``TemplateCalls.respond`` makes it: an empty reply (or one that is
    only a call's opening) is asked again once with the runtime's note."""
    from nanobot.backends.base import Message
    from nanobot.tools.runner import ToolRunner
    from nanobot.tools.templatecalls import REASK, TemplateCalls, opening_only

    step = TemplateCalls(ToolRunner(agent.settings, make_tools(item["functions"])))
    msgs = step.messages([Message(role="system", content=soul()), Message(role="user", content=item["question"])])
    wrote, shown, cut = _reply(agent, step, msgs)
    opening = bool(opening_only(shown))
    asked_again = not shown.strip() or opening
    if asked_again:
        step._add_note(msgs, REASK)
        wrote, shown, cut = _reply(agent, step, msgs)
    return {"wrote": wrote, "shown": shown, "cut": cut, "opening_only": opening, "asked_again": asked_again,
            "empty": not shown.strip(), "flaws": flaws(shown, cut), "flaws_written": flaws(wrote, cut)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--path", default="lean", choices=["lean", "template"])
    ap.add_argument("--half", nargs="+", default=["live", "held2", "dev"])
    ap.add_argument("--threads", type=int)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()

    from nanobot.config import load_settings
    from nanobot.loop.agent import Agent
    from nanobot.runtime import load_model

    home = Path(tempfile.mkdtemp(prefix="nanobot-bfcl-replies-"))
    listing = "lean" if a.path == "lean" else "full"
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False}, kv_cache={"enabled": False},
                             tools={"listing": listing}, chat={"max_tokens": a.max_tokens, "temperature": 0.0})
    from dataclasses import replace

    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model

    resolved = resolve_model(settings, a.model)
    if a.threads:
        resolved = replace(resolved, settings=resolved.settings.model_copy(
            update={"n_threads": a.threads, "n_threads_batch": a.threads}))
    model = LlamaBackend(resolved) if a.threads else load_model(settings, a.model)
    agent = SimpleNamespace(model=model, settings=settings, transcript=None, confirm=None)
    def stream_reply(self, msgs, **kw):  # the chat's own reply stream, what the model wrote kept
        for ev in Agent.stream_reply(self, msgs, **kw):
            self.wrote.append(getattr(ev, "text", ""))
            yield ev

    agent.stream_reply = MethodType(stream_reply, agent)
    tau = settings.tools.threshold
    items = {i["id"]: i for i in load_sample()}
    tag = Path(a.model).stem.split("-")[0].lower()
    summary: dict = {"what": __doc__.split("\n\n")[0], "model": Path(a.model).stem, "path": a.path,
                     "threshold": tau, "max_tokens": a.max_tokens, "halves": {}}
    for half in a.half:
        src = RUNS / f"{tag}-{a.path}-{half}.jsonl"
        if not src.exists():
            continue
        out = RUNS / f"{tag}-{a.path}-{half}-replies.jsonl"
        done = {json.loads(line)["id"]: json.loads(line) for line in out.open()} if out.exists() else {}
        for rec in map(json.loads, src.open()):
            if rec["p_call"] >= tau or rec["id"] in done:
                continue
            start = time.perf_counter()
            row = answer(agent, items[rec["id"]]) | {"id": rec["id"], "category": rec["category"],
                                                     "p_call": rec["p_call"],
                                                     "seconds": round(time.perf_counter() - start, 2),
                                                     "load1": round(os.getloadavg()[0], 2)}
            done[rec["id"]] = row
            with out.open("a") as f:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(json.dumps({k: row[k] for k in ("id", "flaws", "opening_only")}), row["shown"][:80].replace("\n", " "),
                  flush=True)
        rows = list(done.values())
        summary["halves"][half] = {
            "declined replies": len(rows),
            "shown with template markup": sum(bool(r["flaws"]["markup"]) for r in rows),
            "shown with an open or empty code fence": sum(r["flaws"]["open_fence"] or r["flaws"]["empty_fence"] for r in rows),
            "first reply only a call's opening (the runtime makes the call)": sum(r["opening_only"] for r in rows),
            "first reply empty or an opening (asked again)": sum(r["asked_again"] for r in rows),
            "shown empty": sum(r["empty"] for r in rows),
            "written with markup or such a fence (before tools.plain)": sum(
                bool(r["flaws_written"]["markup"]) or r["flaws_written"]["open_fence"] or r["flaws_written"]["empty_fence"]
                for r in rows),
        }
    print(json.dumps(summary, indent=1))
    if a.json:
        a.json.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
