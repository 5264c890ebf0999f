"""Bulk batches (indexing) in bfloat16 where the CPU has matrix units for it (Intel AMX).

MiniLM's forward pass is matrix products. On a CPU with AMX tiles torch runs them in bfloat16
(``torch.autocast``; layer norms, softmax and the pooling stay float32) several times faster than in
float32, and each vector keeps a cosine of 0.9999 or more to its float32 self, so queries (numpy,
float32: ``npbert.py``) find what they found before. Without AMX, bfloat16 goes through AVX-512 or
is emulated, slower than float32, so the batch stays float32. Only the "auto" backend's bulk batches
come here: a model chosen with ``embedder_backend = "torch"`` runs as it is.

A batch's token width is padded up to a multiple of ``PAD_TO`` (the attention mask leaves the
padding out of every vector): oneDNN builds and keeps a kernel per shape, and with every width
its own, the process grows with each new width the export brings; with few widths, the kernels are
reused, so both the time and the memory stay flat. A sentence-transformers too old to pad
(``processing_kwargs``) keeps float32.
"""

from __future__ import annotations

import inspect
from contextlib import AbstractContextManager, nullcontext
from functools import lru_cache

PAD_TO = 16  # AMX's tile is 16 rows


@lru_cache(maxsize=1)
def native() -> bool:
    """Does torch see AMX tiles on this CPU? (False where torch cannot say.)"""
    import torch

    check = getattr(getattr(torch, "cpu", None), "_is_amx_tile_supported", None)
    try:
        return bool(check()) if check is not None else False
    except Exception:  # an old or odd build: float32, as before
        return False


def encode_kwargs(model) -> dict | None:
    """``SentenceTransformer.encode``'s extra arguments for a bfloat16 batch of ``model``, or None:
    float32 (no AMX, or a sentence-transformers that cannot pad)."""
    if not native():
        return None
    first = model[0] if len(model) else None
    if first is None or "processing_kwargs" not in inspect.signature(type(first).__init__).parameters:
        return None
    return {"processing_kwargs": {"text": {"pad_to_multiple_of": PAD_TO}}}


def autocast(on: bool) -> AbstractContextManager:
    """bfloat16 matrix products inside the block where ``on``; else nothing."""
    if not on:
        return nullcontext()
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16)
