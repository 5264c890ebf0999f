"""The judgements' example prompts made ready for the next start, by the housekeeping child.

A turn asks the model's few-shot classifiers (``loop.judge.CLASSIFIERS``) and, for a tool without an
index line, the fit check (``tools.fitcheck``); each is a prompt of a few hundred tokens of examples
scored apart from the conversation. The disk store (``kvcache.apart``) keeps each prompt's evaluated
prefix, and ``judged.json`` each classifier's calibration, but only once some turn has asked it: until
then the first turn that needs one evaluates its examples while the person waits (seconds on two
cores). The child has the model loaded after observing a session: ``warm`` asks each classifier and
the fit prompt of each tool it judges (the examples and that tool's line) once on a probe message, so
every prefix is on disk. A prefix on disk is
read, not evaluated again; the child waits while a chat in the same home is busy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nanobot.base import foreground
from nanobot.base.errors import ModelError

PROBE = "a"  # the message judged: the prefix before it is what is kept


def warm(agent: Any, home: Path) -> int:
    """Ask every classifier and, for each tool judged, the fit prompt of ``agent`` once (their prefixes,
    the tool's line with the fit check's examples, then on disk) and each classifier's calibration (then in ``judged.json``); returns how many prompts were
    asked. Nothing without a disk store on the model (no KV cache, a server)."""
    from nanobot.loop.judge import CLASSIFIERS, classifier_prompt, trusted
    from nanobot.tools.callgrammar import tool_specs
    from nanobot.tools.fitcheck import fit_lead, fit_prompt, judged

    model = agent.model
    if getattr(model, "apart_store", None) is None or not callable(getattr(model, "yes_no_apart", None)):
        return 0
    tools = agent.tool_runner.tools if agent.tool_runner is not None else {}
    prompts = [(classifier_prompt(kind, PROBE), "") for kind in CLASSIFIERS]
    prompts += [(fit_prompt(s["function"], PROBE), fit_lead(s["function"]))
                for s in tool_specs({n: t for n, t in tools.items() if judged(t)})]
    asked = 0
    for kind in CLASSIFIERS:
        foreground.wait_while_busy(home)
        try:
            trusted(model, kind)
        except ModelError:
            return asked
    for messages, lead in prompts:
        foreground.wait_while_busy(home)
        try:
            model.yes_no_apart(messages, lead=lead)
        except ModelError:
            return asked
        asked += 1
    return asked
