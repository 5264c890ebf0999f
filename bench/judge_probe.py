"""The change judgement (``nanobot.loop.judge``: does a message allow changing a file?) on labelled
messages: P(yes) per message and how many fall on the right side of ``judge.BOUNDS``.

``bench/data/judge/allow_dev.tsv`` is tuned on (hand-written messages and the assistant bench's
requests), and ``allow_dev2.tsv`` too (indirect asks: a state wanted, an entry to write down, seven
languages); ``allow_held.tsv`` and ``allow_held2.tsv`` are only checked (other files, other wording; held2
was written apart from the classifier's prompt, 60 indirect asks and look-only questions in seven languages);
``allow_dev3.tsv`` / ``allow_held3.tsv`` (round 39) hold outcome asks ("make cart.py give the right total")
and scoped ones ("only fix the typo in notes.md, nothing else") against look-only questions;
``allow_dev4.tsv`` / ``allow_held4.tsv`` (round 43) coding asks (add a test, a method, a docstring) against
questions about code and asks to run it; held4 was written blind to the classifier and is only checked.
``--kind remember``: "does the message ask to remember something?" on ``remember_dev.tsv`` and
``remember_dev2.tsv`` (indirect asks, "for the record", six languages), checked on ``remember_held.tsv``;
``remember_dev3.tsv`` / ``remember_held2.tsv`` (round 39) set indirect asks against content requests
(a translation, a synonym, a definition) that the classifier reads as remember asks too;
``--kind create``: "does the message ask for a new file?" on ``create_dev.tsv`` and ``create_dev2.tsv``,
checked on ``create_held.tsv`` (adding to a file in six languages among the no's);
``--kind look``: "does the message ask to show, list, count or run something?" on ``look_dev.tsv`` and
``look_held.tsv`` (indirect asks with nothing named -- "did my last commit go through?" -- against
questions a look does not answer -- "How do I undo a commit in git?"), and on ``named_dev.tsv`` /
``named_held.tsv`` (round 31: messages naming a file, a question answered from it against a mention; the
look classifier does not separate them, a question mark does: ``tools.firstlook.judged_look``), and on
``look_dev2.tsv`` (general-knowledge questions in seven languages, which the classifier once sent to a
look, against local asks) and ``look_held2.tsv`` (written blind to the classifier by a helper; check-only);
``--kind keep``: "does the message say to leave a file as it is?" on ``keep_dev.tsv``, checked on
``keep_held.tsv`` (don't-change asks in six languages against change requests that keep the rest);
``--kind repair``: "does the message report something broken for you to fix?" on ``repair_dev.tsv``, checked
on ``repair_held.tsv`` (bug reports in six languages against questions about code, runs and thanks), and
on ``repair_dev2.tsv`` / ``repair_held2.tsv`` (round 39: outcome asks and reports naming the file to fix);
``--kind claimed``: "does the *reply* say something was kept or changed?" (the message and its reply) on
``claimed_dev.tsv``, checked on ``claimed_held.tsv`` (replies in eight languages: claims, and answers,
explanations, offers and failures); ``claimed_dev2.tsv`` / ``claimed_held2.tsv`` (round 39) add replies
that give what was asked -- a translation, a synonym, a poem -- which the 1.5B once read as claims;
``--kind run``: "does the message ask for a program, the tests or a command to be run?" on ``run_dev.tsv``
(round 48: runs of scripts, tests and commands in eight languages against thanks, questions about code,
changes, reads and how-tos), checked on ``run_held.tsv`` (written blind to the classifier by a helper);
``--kind rename``: "does the message ask to rename OLD to NEW?" (a message and one pair of its names, four
columns) on ``rename_dev.tsv``, checked on ``rename_held.tsv`` (written blind to the classifier by a helper:
renames with the right pair, with a wrong new name, and messages asking something else, six languages);
``--kind repo``: "does the message ask about the repository's state?" on ``repo_dev.tsv`` (round 55: the
command sets' git questions that name no file against their runs and the other sets' questions, thanks and
requests), checked on ``repo_held.tsv`` (written blind to the classifier by a helper).

    .venv/bin/python bench/judge_probe.py --model ~/.nanobot/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --json bench/results/judge-allow-qwen2.5-coder-1.5b.json
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

from nanobot.config import load_settings  # noqa: E402
from nanobot.loop.judge import BOUNDS, _calibrated, claim_text, classifier_prompt, rename_text  # noqa: E402
from nanobot.runtime import load_model  # noqa: E402


def labelled(name: str) -> list[tuple[bool, str]]:
    """(label, text) per line; a line of three columns (label, message, reply) is ``claim_text``'s pair,
    one of four (label, message, old, new) ``rename_text``'s."""
    rows = (line.split("\t") for line in (HERE / "data" / "judge" / name).read_text().splitlines() if line.strip())
    shape = {1: lambda t: t, 2: claim_text, 3: rename_text}
    return [(label.strip() == "yes", shape[len(rest)](*(t.strip() for t in rest))) for label, *rest in rows]


def score(model, rows: list[tuple[bool, str]], kind: str = "change") -> dict:
    no, yes = BOUNDS[kind]
    out, right, unsure = [], 0, 0
    for want, text in rows:
        y, n = model.yes_no_apart(classifier_prompt(kind, text))
        p = y / (y + n) if y + n else 0.5
        said = True if p >= yes else False if p <= no else None  # asks() reads it so
        right += said is want
        unsure += said is None
        out.append({"text": text, "want": want, "p": round(p, 3), "said": said})
    pos, neg = [r["p"] for r in out if r["want"]], [r["p"] for r in out if not r["want"]]
    auc = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / max(1, len(pos) * len(neg))
    return {"n": len(rows), "right": right, "unsure": unsure, "wrong": len(rows) - right - unsure,
            "auc": round(auc, 3), "rows": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--json")
    ap.add_argument("--kind", default="change", choices=["change", "remember", "look", "create", "keep", "repair", "claimed", "run", "diff",
                                                             "rename", "repo", "history"])
    a = ap.parse_args()
    model = load_model(load_settings(Path(tempfile.mkdtemp())), a.model)
    t0, result = time.time(), {"model": Path(a.model).stem, "kind": a.kind, "bounds": BOUNDS[a.kind]}
    result["calibrated"] = _calibrated(model, a.kind)  # False: no check trusts this classifier on this model
    print(f"calibration: {'passes' if result['calibrated'] else 'FAILS (the classifier is not used)'}", flush=True)
    sets = {"change": (("dev", "allow_dev.tsv"), ("dev2", "allow_dev2.tsv"), ("held", "allow_held.tsv"),
                       ("held2", "allow_held2.tsv"), ("dev3", "allow_dev3.tsv"), ("held3", "allow_held3.tsv"),
                       ("dev4", "allow_dev4.tsv"), ("held4", "allow_held4.tsv")),
            "remember": (("dev", "remember_dev.tsv"), ("dev2", "remember_dev2.tsv"), ("held", "remember_held.tsv"),
                         ("dev3", "remember_dev3.tsv"), ("held2", "remember_held2.tsv")),
            "look": (("dev", "look_dev.tsv"), ("held", "look_held.tsv"), ("dev2", "look_dev2.tsv"), ("held2", "look_held2.tsv"),  # and questions vs mentions naming a file:
                     ("named dev", "named_dev.tsv"), ("named held", "named_held.tsv")),  # (tools.firstlook.judged_look)
            "create": (("dev", "create_dev.tsv"), ("dev2", "create_dev2.tsv"), ("held", "create_held.tsv")),
            "keep": (("dev", "keep_dev.tsv"), ("held", "keep_held.tsv")),
            "run": (("dev", "run_dev.tsv"), ("held", "run_held.tsv")),
            "diff": (("dev", "diff_dev.tsv"), ("held", "diff_held.tsv")),
            "rename": (("dev", "rename_dev.tsv"), ("held", "rename_held.tsv")),
            "repo": (("dev", "repo_dev.tsv"), ("held", "repo_held.tsv")),
            "history": (("dev", "history_dev.tsv"), ("held", "history_held.tsv")),
            "repair": (("dev", "repair_dev.tsv"), ("held", "repair_held.tsv"), ("dev2", "repair_dev2.tsv"),
                       ("held2", "repair_held2.tsv")),
            "claimed": (("dev", "claimed_dev.tsv"), ("held", "claimed_held.tsv"), ("dev2", "claimed_dev2.tsv"),
                        ("held2", "claimed_held2.tsv"))}
    for split, name in sets[a.kind]:
        result[split] = score(model, labelled(name), a.kind)
        r = result[split]
        print(f"{split}: {r['right']}/{r['n']} right, {r['unsure']} unsure, {r['wrong']} wrong, AUC {r['auc']}", flush=True)
    result["seconds"] = round(time.time() - t0, 1)
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
