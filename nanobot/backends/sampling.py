"""The sampler chain, with llama.cpp's DRY ("don't repeat yourself") sampler when asked for.

llama-cpp-python 0.3.36 has the DRY sampler in its internals (``LlamaSampler.add_dry`` ->
``llama_sampler_init_dry``) but ``Llama.generate`` never adds it. ``install`` replaces the
``Llama`` instance's ``_init_sampler`` with one that builds the same chain as llama-cpp-python's
(penalties, grammar, then greedy or top-k/typical/top-p/min-p/temperature/dist) with DRY right after
the penalties, whenever ``backend.dry`` holds settings. DRY penalises a token that would extend a
sequence already seen (longer than ``allowed_length`` tokens) by ``multiplier * base ** (n -
allowed_length)``, so a loop gets more expensive with every token it repeats; ``seq_breakers`` end
such a match (line breaks, colons, quotes and asterisks: ``[chat] dry_seq_breakers``). On the
bundled 135M model the measured effect on looping is within run-to-run noise (bench/loop_bench.py,
docs/benchmarks/loops.md); the loop guard is what guarantees no reply ends in a loop.
"""

from __future__ import annotations

from pydantic import BaseModel

SEQ_BREAKERS = ["\n", ":", '"', "*"]  # llama.cpp's defaults


class Dry(BaseModel):
    multiplier: float
    base: float = 1.75
    allowed_length: int = 2
    penalty_last_n: int = -1  # -1: the whole context
    seq_breakers: list[str] = SEQ_BREAKERS


def dry_sampler(chat) -> Dry | None:
    """llama.cpp's DRY sampler settings from ``[chat]``; None when ``dry_multiplier`` is 0."""
    if chat.dry_multiplier <= 0:
        return None
    return Dry(multiplier=chat.dry_multiplier, base=chat.dry_base,
               allowed_length=chat.dry_allowed_length, penalty_last_n=chat.dry_penalty_last_n,
               seq_breakers=chat.dry_seq_breakers)


def install(llm, holder) -> None:
    """Make ``llm`` (a ``llama_cpp.Llama``) build its sampler with ``holder.dry`` (None: unchanged)."""
    original = llm._init_sampler

    def init_sampler(**kw):
        dry: Dry | None = getattr(holder, "dry", None)
        if dry is None or dry.multiplier <= 0 or kw.get("mirostat_mode"):
            return original(**kw)
        return chain(llm, dry, **kw)

    llm._init_sampler = init_sampler


def chain(llm, dry: Dry, *, top_k=40, top_p=0.95, min_p=0.05, typical_p=1.0, temp=0.8,
          repeat_penalty=1.0, frequency_penalty=0.0, presence_penalty=0.0, grammar=None,
          logits_processor=None, **_):
    """llama-cpp-python's chain (``Llama._init_sampler``) with DRY after the penalties."""
    from llama_cpp import _internals

    s = _internals.LlamaSampler()
    if logits_processor:
        s.add_custom(_custom(llm, logits_processor))
    s.add_penalties(n_vocab=llm._n_vocab, penalty_last_n=llm.last_n_tokens_size,
                    penalty_repeat=repeat_penalty, penalty_freq=frequency_penalty,
                    penalty_present=presence_penalty)
    s.add_dry(llm._model, dry.multiplier, dry.base, dry.allowed_length, dry.penalty_last_n,
              dry.seq_breakers)
    if grammar is not None:
        s.add_grammar(llm._model, grammar)
    if temp < 0.0:
        s.add_dist(llm._seed)
    elif temp == 0.0:
        s.add_greedy()
    else:
        s.add_top_k(top_k)
        s.add_typical(typical_p, 1)
        s.add_top_p(top_p, 1)
        s.add_min_p(min_p, 1)
        s.add_temp(temp)
        s.add_dist(llm._seed)
    return s


def _custom(llm, processors):
    """The logits processors as the first sampler of the chain (as ``Llama._init_sampler`` adds them)."""
    import ctypes

    import llama_cpp
    import numpy as np

    def apply(arr):
        size = arr.contents.size
        data = (llama_cpp.llama_token_data * size).from_address(ctypes.addressof(arr.contents.data.contents))
        rec = np.recarray(shape=(size,), dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)],
                                                        align=True), buf=data)
        for proc in processors:
            rec.logit[:] = proc(llm._input_ids, rec.logit)

    return apply
