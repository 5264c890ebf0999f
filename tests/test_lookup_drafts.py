"""A reply's tokens drafted from its context (``backends/lookup.py``), on the real bundled model."""

from __future__ import annotations

import itertools

from nanobot.backends.base import Message
from nanobot.backends.scored import Scored

LINE = "The lighthouse keeper on Varnholm logs the tide at 04:17 and again at 16:42 every day."
COPY = [Message(role="user", content=f"Repeat this line exactly, nothing else:\n{LINE}")]
ASK = [Message(role="user", content="Is the sea salty? Answer yes or no.")]


def reply(model, monkeypatch, n: int, max_tokens: int = 40) -> str:
    monkeypatch.setattr(model.settings, "draft_tokens", n)
    return "".join(model.stream(COPY, max_tokens=max_tokens, temperature=0.0))


def test_a_reply_that_repeats_its_context_is_drafted_from_it_and_drawn_as_sampling_would(model, monkeypatch):
    plain = reply(model, monkeypatch, 0)
    assert model.last.drafted_tokens == 0
    drafted = reply(model, monkeypatch, 8)
    assert model.last.accepted_tokens >= 10, model.last  # the line's tokens came from the prompt
    assert drafted == plain  # the sampler drew each token as it would have one at a time


def test_a_judgement_after_a_drafted_reply_reads_its_own_prompts_logits(model, monkeypatch):
    model.scored = Scored()
    before = model.prefix_probability(ASK, ("Yes", "yes"))
    monkeypatch.setattr(model.settings, "draft_tokens", 8)
    stream = model.stream(COPY, max_tokens=40, temperature=0.0)
    "".join(itertools.islice(stream, 12))  # the reader stops mid-reply, drafts pending
    stream.close()
    model.scored = Scored()
    assert abs(model.prefix_probability(ASK, ("Yes", "yes")) - before) < 1e-4
