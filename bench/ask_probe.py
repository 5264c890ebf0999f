"""The first decision on questions that name nothing the facts know (``tools.firstlook.asked_here``):
per labelled message of ``bench/data/judge/look_dev.tsv`` (tuned on) and ``look_held.tsv`` (only
checked), P(call) of the turn's first step -- in a fresh session of the second assistant set's home
(``bench/assistant_dev2.py``: its files in a git repository, the bench's ``exec_allow``) -- and the
look classifier's P(yes) (``Judge.classified``); then how many asks and how many other messages the
first step calls on with the threshold alone and with ``asked_here``'s rule. The facts' own floors
(a file or command the message names) are left out: this is the rule for what they do not cover.

    .venv/bin/python bench/ask_probe.py --model ~/.nanobot/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --json bench/results/ask-probe-qwen2.5-coder-1.5b.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import assistant_bench as ab  # noqa: E402
from judge_probe import labelled  # noqa: E402

from nanobot.loop.judge import classifier_prompt  # noqa: E402
from nanobot.tools import firstlook as fl  # noqa: E402
from nanobot.tools import templatecalls as tc  # noqa: E402


class _Decided(Exception):
    """Raised by the wrapped decision once the first step's P(call) is known: the turn goes no further."""


def first_decisions(model_path: str, texts: list[str]):
    """P(call) of each message's first step, each in a session of its own; and the model."""
    ab.use("dev2")
    agent, _ = ab.setup(Path(tempfile.mkdtemp(prefix="ask-probe-")), model_path, 8, 1)
    seen: list[float] = []
    decide = tc.TemplateCalls.decide

    def first(self, agent, msgs, first):
        seen.append(decide(self, agent, msgs, first))
        raise _Decided

    tc.TemplateCalls.decide = first
    out = []
    try:
        for text in texts:
            agent.start_session()
            seen.clear()
            try:
                list(agent.turn(text))
            except _Decided:
                pass
            agent.end_session()
            out.append(seen[0] if seen else 0.0)
    finally:
        tc.TemplateCalls.decide = decide
    return out, agent.model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--json")
    a = ap.parse_args()
    t0, result = time.time(), {"model": Path(a.model).stem, "ask_floor": fl.ASK_FLOOR, "ask_sure": fl.ASK_SURE,
                                   "look_certain": fl.LOOK_CERTAIN}
    sets = {"dev": labelled("look_dev.tsv"), "held": labelled("look_held.tsv")}
    ps, model = first_decisions(a.model, [t for rows in sets.values() for _, t in rows])
    for split, rows in sets.items():
        out = []
        for want, text in rows:
            p = ps.pop(0)
            y, n = model.yes_no_apart(classifier_prompt("look", text))
            look = y / (y + n) if y + n else 0.0
            alone = p >= 0.3
            rule = alone or (p >= fl.ASK_FLOOR and look >= fl.ASK_SURE)  # LOOK_CERTAIN: not on a first message
            out.append({"text": text, "want": want, "p_call": round(p, 3), "p_look": round(look, 3),
                        "threshold": alone, "asked_here": rule})
        asks, others = [r for r in out if r["want"]], [r for r in out if not r["want"]]
        result[split] = {k: f"{sum(r[k] for r in asks)}/{len(asks)} asks, {sum(r[k] for r in others)}/{len(others)} others"
                         for k in ("threshold", "asked_here")} | {"rows": out}
        print(split, {k: result[split][k] for k in ("threshold", "asked_here")}, flush=True)
    result["seconds"] = round(time.time() - t0, 1)
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
