"""llama-bench style speed rows: prompt eval (pp) and generation (tg) tokens/s per llama setting.

Each variant loads the model with changed settings (through ``LlamaBackend``, so weight repacking is
handled), runs one warm-up, then ``repeat`` timed runs: ``pp`` = evaluate N prompt tokens from an
empty KV cache in batches; ``tg`` = decode M tokens one at a time after that prompt.
"""

from __future__ import annotations

import time
from dataclasses import replace

from nanobot.backends.llama import LlamaBackend
from nanobot.base.errors import NanobotError
from nanobot.bench.figures import Variant, stat
from nanobot.models import ResolvedModel


def variant_plan(cores: int) -> list[tuple[str, dict]]:
    """(label, ModelSettings updates): flash_attn on/off, KV f16 vs q8_0, a thread sweep."""
    plan = [
        ("fa on, kv f16", dict(flash_attn=True, type_k=None, type_v=None, n_threads=cores)),
        ("fa off, kv f16", dict(flash_attn=False, type_k=None, type_v=None, n_threads=cores)),
        ("fa on, kv q8_0", dict(flash_attn=True, type_k="q8_0", type_v="q8_0", n_threads=cores)),
    ]
    sweep = sorted({1, *[2**i for i in range(1, 8) if 2**i < cores]} - {cores})
    plan += [(f"threads {t}", dict(flash_attn=True, type_k=None, type_v=None, n_threads=t))
             for t in sweep]
    return plan


def measure_variant(resolved: ResolvedModel, label: str, updates: dict, prompt: list[int],
                    tg: int, repeat: int) -> Variant:
    """Load the model with ``updates`` and time pp/tg ``repeat`` times (after one warm-up)."""
    threads = updates.get("n_threads") or 1
    ms = resolved.settings.model_copy(update=updates | {"n_threads_batch": updates.get("n_threads")})
    row = dict(label=label, threads=threads, flash_attn=ms.flash_attn, type_k=ms.type_k or "f16",
               type_v=ms.type_v or "f16", pp_tokens=len(prompt), tg_tokens=tg)
    try:
        backend = LlamaBackend(replace(resolved, settings=ms))
    except NanobotError as e:
        return Variant(**row, pp_tps=stat([]), tg_tps=stat([]), error=str(e))
    try:
        llm = backend.llm
        llm.reset()
        llm.eval(prompt[:8])  # warm-up (excluded): page in the weights, build the graphs
        pps, tgs = [], []
        for _ in range(repeat):
            pp_s, tg_s = _run_once(llm, prompt, tg)
            pps.append(len(prompt) / pp_s)
            tgs.append(tg / tg_s)
        return Variant(**row, pp_tps=stat(pps), tg_tps=stat(tgs))
    finally:
        backend.llm.close()


def _run_once(llm, prompt: list[int], tg: int) -> tuple[float, float]:
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(prompt)
    t1 = time.perf_counter()
    token = prompt[-1]
    for _ in range(tg):
        llm.eval([token])
    return t1 - t0, time.perf_counter() - t1
