"""How often an observation is the model's grounded draft vs the extractive fallback, per model.

    .venv/bin/python bench/fallback_bench.py [--model PATH_OR_NAME] [--sessions 4] [--out FILE]

Each of the first N labelled sessions (tests/data/labelled_sessions.json) is replayed twice into one
fresh home and observed live at each end (``observe_live``, as at /quit): the first time on the
template workspace, the second time as a user coming back to the same work, when CONTEXT.md (Focus,
Task) and USER.md (nanobot's notes) already quote the user. Every draft the model writes is grounded
twice, from the same tokens: by today's verifier (the user's words are not the instructions) and by
the verifier before that change (``spoken`` ignored), so the two fallback rates come from one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from nanobot.bench.grounded import load_labelled, replay
from nanobot.config import load_settings
from nanobot.core.grounding import check
from nanobot.loop.agent import Agent
from nanobot.observer import evidence
from nanobot.observer.feature import attach_observer
from nanobot.observer.observation import DRAFT_SCALARS, LISTS, parse_draft
from nanobot.observer.observer import instructions_of, observe_live
from nanobot.runtime import load_model
from nanobot.workspace import init_workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import emit  # noqa: E402
from grounding_bench import Tap  # noqa: E402


def usable(draft, said: str, instructions: str, old: bool) -> tuple[bool, list[str]]:
    """Whether the runtime would use the model's draft (anything grounded), and what was dropped."""
    if draft is None:
        return False, ["unparsed"]
    real = evidence.check
    if old:
        evidence.check = lambda t, q, s, i="", spoken="": check(t, q, s, i)
    try:
        g = evidence.ground(draft, said, instructions)
    finally:
        evidence.check = real
    kept = any(getattr(g.draft, k) for k in (*DRAFT_SCALARS, *LISTS))
    return kept, [d.rsplit("(", 1)[1].rstrip(")") for d in g.dropped]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None)
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows, reasons = [], {"before": Counter(), "after": Counter()}
    with tempfile.TemporaryDirectory() as tmp:
        model = Tap(load_model(load_settings(Path(tmp) / "m"), args.model))
        for i, s in enumerate(load_labelled()[: args.sessions]):
            settings = load_settings(Path(tmp) / f"h{i}", memory={"enabled": False}, tools={"enabled": []},
                                     observer={"reflect_on_start": False, "background": False},
                                     kv_cache={"enabled": False}, chat={"temperature": 0})
            init_workspace(settings.workspace)
            for visit in ("first", "again"):
                agent = Agent(settings, model)
                attach_observer(agent)
                replay(agent, s)
                start = time.perf_counter()
                out = observe_live(agent, "quit")
                msgs, raw, finish = model.drafts[-1]
                said = "\n".join(u for u, _ in s.turns)
                draft = parse_draft(raw)
                row = {"id": s.id, "visit": visit, "generator": out.part.generator, "finish": finish,
                       "seconds": round(time.perf_counter() - start, 1)}
                for when, old in (("before", True), ("after", False)):
                    ok, dropped = usable(draft, said, instructions_of(msgs), old)
                    row[when] = "model" if ok else "fallback"
                    reasons[when].update(dropped)
                rows.append(row)
                print(json.dumps(row), flush=True)
    summary = {"model": model.name, "sessions": args.sessions, "drafts": len(rows)}
    for when in ("before", "after"):
        for visit in ("first", "again"):
            sel = [r for r in rows if r["visit"] == visit]
            summary[f"fallback_{when}_{visit}"] = f"{sum(r[when] == 'fallback' for r in sel)}/{len(sel)}"
        summary[f"dropped_{when}"] = dict(reasons[when])
    summary["runtime_generator"] = dict(Counter(r["generator"] for r in rows))
    summary["mean_draft_s"] = round(sum(r["seconds"] for r in rows) / len(rows), 1)
    emit(summary, indent=1)
    emit({"summary": summary, "rows": rows}, args.out, indent=1, echo=False)


if __name__ == "__main__":
    main()
