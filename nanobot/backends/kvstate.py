"""A llama.cpp sequence's KV state in memory: taken (``seq_state``) and put back (``restore``). The
disk KV cache (``nanobot.kvcache``) stores it across starts; ``LlamaBackend.yes_no_apart`` keeps the
conversation's state aside while a prompt of its own is scored."""

from __future__ import annotations

import ctypes
from typing import Any


class StateError(Exception):
    """llama.cpp gave no state, or would not take one back."""


def _llama_cpp():
    import llama_cpp

    return llama_cpp


def seq_state(llm: Any, n_tokens: int) -> bytes:
    """Sequence 0's llama.cpp state (KV cells), cut back to its first ``n_tokens`` tokens."""
    llama_cpp = _llama_cpp()
    llm._ctx.kv_cache_seq_rm(-1, n_tokens, -1)
    llm.n_tokens = min(llm.n_tokens, n_tokens)
    size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
    buf = (ctypes.c_uint8 * size)()
    n = llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, buf, size, 0)
    if n == 0 or n > size:
        raise StateError("llama.cpp returned no state for sequence 0")
    return bytes(buf)[:n]


def restore(llm: Any, tokens: list[int], state: bytes) -> None:
    """Load ``state`` into ``llm`` as sequence 0 and record ``tokens`` as evaluated."""
    llama_cpp = _llama_cpp()
    llm.reset()
    llm._ctx.kv_cache_clear()
    buf = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buf, len(state), 0) == 0:
        llm._ctx.kv_cache_clear()
        raise StateError("llama.cpp rejected the saved state (another model or settings?)")
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    llm._requires_eval = True  # logits are not restored: the next decode refreshes them
