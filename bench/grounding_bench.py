"""Grounded observations on the labelled sessions (tests/data/labelled_sessions.json), bundled model.

    .venv/bin/python bench/grounding_bench.py [--free-quotes] [--out bench/results/grounding.json]

Each session is replayed into a fresh home and observed live at its end (``observe_live``, as at
/quit), then reflected into MEMORY.md. Reported: the share of CONTEXT.md (Now, Recent) and MEMORY.md
lines grounded in what the user typed (``nanobot.bench.grounded.score``; target 100%), the share of
stated facts captured in MEMORY.md (target >= 80%) by each mechanism: the model's grounded draft
alone, the extractive floor (``observer/stated.py``) alone, and both (what the runtime does), and why
the model's items were dropped. ``--free-quotes`` lets the model write any quote instead of copying
one of the user's sentences (the copy-span grammar, the default).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

from figures import emit

from nanobot.bench.grounded import load_labelled, now, replay, score
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer import observer as observer_mod
from nanobot.observer.evidence import ground
from nanobot.observer.feature import attach_observer
from nanobot.observer.observation import parse_draft
from nanobot.observer.observer import instructions_of
from nanobot.observer.reflector import lexical_similarity, reflect
from nanobot.observer.stated import stated_facts
from nanobot.runtime import load_model
from nanobot.workspace import init_workspace


class Tap:
    """The model, keeping the text and messages of grammar-constrained calls (the drafts)."""

    def __init__(self, model):
        self.__dict__["_m"], self.__dict__["drafts"] = model, []

    def __getattr__(self, name):
        return getattr(self._m, name)

    def __setattr__(self, name, value):
        setattr(self._m, name, value)

    def stream(self, messages, **kw):
        yield from self._m.stream(messages, **kw)
        if kw.get("grammar"):
            self.drafts.append((list(messages), self._m.last.text, self._m.last.finish_reason))


def captured(keys_list: list[list[str]], texts: list[str]) -> list[bool]:
    low = [t.lower() for t in texts]
    return [any(all(k.lower() in t for k in keys) for t in low) for keys in keys_list]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/grounding.json")
    ap.add_argument("--free-quotes", action="store_true", help="quotes as free strings, not copied spans")
    args = ap.parse_args()
    observer_mod.COPY_SPANS = not args.free_quotes
    sessions = load_labelled()
    rows, reasons = [], Counter()
    with tempfile.TemporaryDirectory() as tmp:
        model = Tap(load_model(load_settings(Path(tmp) / "m")))
        for i, s in enumerate(sessions):
            settings = load_settings(Path(tmp) / f"h{i}", memory={"enabled": False},
                                     observer={"reflect_on_start": False}, chat={"temperature": 0})
            init_workspace(settings.workspace)
            agent = Agent(settings, model)
            attach_observer(agent)
            replay(agent, s)
            agent.end_session("quit")
            reflect(settings, now=now(), similarity=lexical_similarity)
            sc = score(s, settings.workspace, agent.transcript.id)
            msgs, raw, finish = model.drafts[-1]
            said = "\n".join(u for u, _ in s.turns)
            draft = parse_draft(raw)
            g = ground(draft, said, instructions_of(msgs)) if draft else None
            reasons.update(d.rsplit("(", 1)[1].rstrip(")") for d in (g.dropped if g else []))
            model_items = sum(1 for _ in draft.items() if _[1].text) if draft else 0
            rows.append(sc.model_dump() | {
                "model_only": captured(s.facts, g.draft.facts if g else []),
                "floor_only": captured(s.facts, [f for f, _ in stated_facts([u for u, _ in s.turns])]),
                "model_items": model_items, "model_kept": len(g.draft.evidence) if g else 0,
                "draft": raw, "draft_finish": finish})
    lines = [ok for r in rows for _, ok in r["lines"]]
    facts = sum(len(r["facts_captured"]) for r in rows)

    def share(key: str) -> float:
        return round(sum(sum(r[key]) for r in rows) / facts, 3)

    summary = {
        "sessions": len(rows), "lines": len(lines), "grounded_share": round(sum(lines) / len(lines), 3),
        "stated_facts": facts, "captured_share": share("facts_captured"),
        "captured_model_only": share("model_only"), "captured_floor_only": share("floor_only"),
        "model_items": sum(r["model_items"] for r in rows), "model_items_kept": sum(r["model_kept"] for r in rows),
        "dropped_reasons": dict(reasons), "generator": dict(Counter(r["generator"] for r in rows)),
        "copy_spans": observer_mod.COPY_SPANS,
        "draft_finish_length": sum(r["draft_finish"] == "length" for r in rows)}
    emit(summary, indent=1)
    emit({"summary": summary, "rows": rows}, args.out, indent=1, echo=False)


if __name__ == "__main__":
    main()
