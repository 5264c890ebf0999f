"""Helpers for tests that run the real model: they check what the runtime guarantees about its
output (grammar held, fallback taken and reported) and never which words came out."""

from __future__ import annotations

import json

from nanobot.observer.evidence import ground
from nanobot.observer.observation import (
    DRAFT_SCALARS,
    LISTS,
    GroundedDraft,
    whole_quotes,
    whole_texts,
)
from nanobot.observer.observer import instructions_of, read_draft


class Recorder:
    """Wraps a real model and keeps messages, grammar, prefill, text and finish reason of every ``stream``
    call, so a test can check what came out under a grammar whatever the words are."""

    def __init__(self, model):
        self._model = model
        self.calls: list[dict] = []

    def __getattr__(self, name):  # name, n_ctx, last, settings, count_tokens, render, ...
        return getattr(self._model, name)

    def __setattr__(self, name, value):  # e.g. the agent resetting ``model.last``
        if name in ("_model", "calls"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._model, name, value)

    def stream(self, messages, **kw):
        try:
            yield from self._model.stream(messages, **kw)
        finally:  # a stream closed early too (a pick stops once the name is decided)
            self._record(messages, kw)

    def _record(self, messages, kw):
        last = self._model.last
        self.calls.append({"messages": list(messages), "grammar": kw.get("grammar"),
                           "prefill": kw.get("prefill", ""), "max_tokens": kw.get("max_tokens"),
                           "text": last.text, "finish_reason": last.finish_reason})

    def constrained(self) -> list[dict]:
        """The calls made under a grammar (with tools off: the observer's drafts)."""
        return [c for c in self.calls if c["grammar"]]


# A grammar that admits only the empty draft: the real model, run by llama.cpp under it, always
# writes an unusable draft, so the fallback path is taken on every machine.
EMPTY_DRAFT_GRAMMAR = "root ::= " + json.dumps(json.dumps(
    {k: [] if k in LISTS else {"text": "", "quote": ""} for k in GroundedDraft.model_fields}))


def grammar_held(raw: str) -> dict:
    """The draft JSON ``raw`` parses to, with exactly the draft's keys in order (what the grammar
    admits); fails the test otherwise."""
    data = json.loads(raw)
    assert list(data) == list(GroundedDraft.model_fields), raw
    GroundedDraft.model_validate(data)
    return data


def draft_closed(call: dict) -> None:
    """What the runtime guarantees of a recorded draft: it either closed under the grammar within its
    budget, or (digits and symbols cost a token per character, so a bounded number of characters does
    not bound tokens) it was cut: closed by the parser, or the reported fallback. A draft is cut by its
    time too (``observer.draft_seconds``, 90 s: the 1.5B on two cores the suite's workers share)."""
    if call["finish_reason"] == "stop":
        grammar_held(call["text"])
    else:
        # cut by max_tokens or by time: the parser closes it when it can, else the extractive fallback
        # is taken and reported (``expected_generator`` checks which part was written)
        assert call["finish_reason"] in ("length", "interrupted"), call


def expected_generator(call: dict) -> str:
    """Which part the runtime must write for the recorded draft ``call``: "model" when any item of the
    draft is grounded in what the user said (the user turns the model saw), else "fallback"."""
    msgs = call["messages"]
    draft = read_draft(call["text"], msgs, call["max_tokens"])
    if draft is None:
        return "fallback"
    said = "\n".join(m.content for m in msgs[:-1] if m.role == "user")
    if msgs and msgs[-1].content.startswith("Conversation:\n"):  # the observer's compact rendering
        said = "\n".join(line[6:] for line in msgs[-1].content.splitlines() if line.startswith("User: "))
    lines = said.splitlines()  # as the observer reads the draft: quotes and copies widened, then grounded
    kept = ground(whole_texts(whole_quotes(draft, lines), lines), said, instructions_of(msgs)).draft
    return "model" if any(getattr(kept, k) for k in (*DRAFT_SCALARS, *LISTS)) else "fallback"


def llama_accepts(model, gbnf: str) -> bool:
    """Whether llama.cpp's own GBNF parser accepts ``gbnf`` for ``model``'s vocabulary. (A grammar it
    rejects gives a NULL sampler: generation would run unconstrained, or crash.)"""
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(model.llm._model.vocab, gbnf.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True
