"""Drafted tokens for a reply, from text its context already holds (prompt lookup decoding).

A reply often repeats its context: a line of a file read, a command's output, a path or a name from
the message. When the last tokens generated also stand earlier in the prompt or the reply, the tokens
that followed them there are a likely continuation. ``Drafting.steps`` hands them to llama-cpp-
python's ``Llama.generate`` (the value sent into the generator), which evaluates them in one batch
with the token just drawn; the sampler then draws at each position as it would have, and the first
draw that differs from the draft ends it (its KV entries are dropped). A right draft of ``n`` tokens
costs one batch instead of ``n`` decode steps; a wrong one costs a batch wider than a step (on a CPU
much more than a step: docs/benchmarks/performance.md), so a draft is offered only on a match of
``min_ngram`` tokens or more, and its length follows how the last one fared.

llama.cpp computes logits only for a batch's last token unless told otherwise; ``Drafting`` makes
every position's logits count while the reply is generated, never while the prompt is evaluated (a
prompt's logits for every position would cost a vocabulary-wide product per token), and undoes that
at ``close``: the backend's judgements read the first row of logits as the prompt's last.

>>> draft([5, 6, 7, 8, 9, 5, 6], 3)
[7, 8, 9]
>>> draft([5, 6, 7, 8, 5, 9], 3)   # a one-token match is no draft
[]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def draft(seq: list[int], n: int, ngram: int = 3, min_ngram: int = 2) -> list[int]:
    """Up to ``n`` tokens that followed the latest earlier occurrence of ``seq``'s last tokens
    (the longest of ``ngram`` .. ``min_ngram`` tokens that occurs)."""
    arr = np.asarray(seq, dtype=np.int64)
    for g in range(min(ngram, len(arr) - 1), min_ngram - 1, -1):
        windows = np.lib.stride_tricks.sliding_window_view(arr[:-1], g)
        hits = np.nonzero((windows == arr[-g:]).all(axis=1))[0]
        if len(hits):
            start = int(hits[-1]) + g
            return arr[start:start + n].tolist()
    return []


class Drafting:
    """One reply's drafting over ``llm`` (a ``llama_cpp.Llama``): ``steps(generator, prompt)``.

    A draft's length adapts to how the last one fared: twice as long (up to ``n``) after one drawn
    whole, as long as its drawn part after one cut short, half as long after one wrong from its first
    token. Replies that copy their context get long drafts; the others, drafts of a token or two, whose
    batch costs little more than the step it replaces."""

    def __init__(self, llm, n: int, start: int = 2):
        self.llm, self.n, self.k, self.on = llm, n, min(start, n), False
        self.drafted = self.accepted = 0
        batch = llm._batch
        self._set = batch.set_batch

        def set_batch(batch, n_past, logits_all):  # every position's logits, while on
            return self._set(batch=batch, n_past=n_past, logits_all=logits_all or self.on)

        batch.set_batch = set_batch

    def resize(self, offered: int, drawn: int) -> None:
        if offered:
            self.k = min(self.n, 2 * self.k) if drawn == offered else max(1, drawn or self.k // 2)

    def steps(self, tokens: Iterator[int], prompt: list[int]) -> Iterator[int]:
        """``tokens`` (a ``Llama.generate`` generator) with a draft sent at every step."""
        seq = list(prompt)
        pending: list[int] = []  # drafted tokens in the KV cache, not yet drawn
        offered = drawn = 0
        token = next(tokens)
        self.on = True  # the prompt is evaluated: from here every batch is a draft to check
        while True:
            yield token
            seq.append(token)
            if pending and pending[0] == token:  # drawn as drafted: generate draws at the next one
                pending = pending[1:]
                drawn += 1
                self.accepted += 1
                offer = None
            else:  # the draft is used up or was wrong: generate evaluates this token and what is sent
                self.resize(offered, drawn)
                pending = offer = draft(seq, self.k)
                offered, drawn = len(offer), 0
                self.drafted += offered
            try:
                token = tokens.send(offer or None)
            except StopIteration:
                return

    def close(self) -> None:
        self.on = False
        self.llm._batch.set_batch = self._set
