"""Grounding the model's draft: every item keeps its place only with evidence from the session.

``ground`` runs each item of a ``GroundedDraft`` through the shared verifier
(``nanobot.core.grounding.check``): its quote must occur in what the user said this session, the item
must share content with the quote, and neither may mostly repeat the instructions the model was
given (the observer's instruction and the system prompt; the user's own words, which the prompt
quotes in CONTEXT.md and USER.md, are not the instructions: without that, a session on the same task
as the last had every item dropped and fell back). What passes becomes an
``ObservationDraft`` whose ``evidence`` maps each item to its quote; what fails is listed in
``Grounded.dropped`` with the reason.

>>> from nanobot.observer.observation import GroundedDraft, Said
>>> d = GroundedDraft(focus=Said(text="Ferrum compiler", quote="I work on Ferrum"),
...                   facts=[Said(text="User likes Go", quote="I love Go")])
>>> g = ground(d, "My name is Ada. I work on Ferrum.", "Take notes as JSON.")
>>> g.draft.focus, g.draft.evidence, g.dropped
('Ferrum compiler', {'Ferrum compiler': 'I work on Ferrum'}, ['facts: User likes Go (quote not in transcript)'])
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from nanobot.core.grounding import check
from nanobot.observer.observation import LISTS, GroundedDraft, ObservationDraft

_NUMBERING = re.compile(r"^\s*(\d+[.)](?!\d)|[-*•])\s*")  # "1. x", "- x"; not "2.0 release"


class Grounded(BaseModel):
    draft: ObservationDraft
    dropped: list[str] = Field(default_factory=list)  # "field: item (reason)"


def ground(draft: GroundedDraft, said: str, instructions: str) -> Grounded:
    """Keep the items of ``draft`` whose quotes ground them in ``said`` (see the module docstring)."""
    out: dict = {k: [] for k in LISTS}
    evidence: dict[str, str] = {}
    dropped: list[str] = []
    seen: set[str] = set()
    for field, item in draft.items():
        text = _NUMBERING.sub("", item.text).strip()  # small models number their lists
        if not text or text.lower().rstrip(".") in seen:
            continue
        verdict = check(text, item.quote, said, instructions, spoken=said)  # said: the user's words only
        if not verdict.kept:
            dropped.append(f"{field}: {text} ({verdict.reason})")
            continue
        seen.add(text.lower().rstrip("."))
        evidence[text] = item.quote.strip()
        if field in LISTS:
            out[field].append(text)
        else:
            out[field] = text
    return Grounded(draft=ObservationDraft(**out, evidence=evidence), dropped=dropped)
