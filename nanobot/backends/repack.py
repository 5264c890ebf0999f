"""Weight repacking (llama.cpp's extra buffer types) per CPU and model: the one place that decides it.

llama.cpp repacks weights into CPU-specific layouts at load (faster matrix products on AVX2/AVX-512).
On builds with AMX kernels the AMX repacking path crashes (SIGSEGV in ``ggml_backend_amx_mul_mat``) on
the first multi-token batch on the VMs this project runs on, so there repacking is off by default.
Every loader decides through here (``backends/batchprobe.repack_for`` adds the first-batch check): the
in-process backend (``backends/llama.py``) and ``nanobot serve`` (``backends/serve.py``). llama-cpp-python has no argument for it, so ``model_params`` sets the field in
the model parameters that ``Llama`` starts from while a model loads.
"""

from __future__ import annotations

import contextlib
import threading
from functools import lru_cache

from nanobot.models import ResolvedModel


@lru_cache(maxsize=1)
def amx_build() -> bool:
    """True when this llama.cpp build carries AMX kernels (compiled with ``-march=native`` on a CPU
    that reports AMX)."""
    import llama_cpp

    return b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info()


def auto_repack() -> bool:
    """Repacking when a model does not say: on, except on AMX builds."""
    return not amx_build()


def chosen_repack(model: ResolvedModel) -> bool:
    """Whether ``model`` loads with weight repacking: its ``repack`` setting, else ``auto_repack()``.
    ``backends/batchprobe.repack_for`` checks the choice on a first batch before a load."""
    return model.settings.repack if model.settings.repack is not None else auto_repack()


_load_lock = threading.Lock()


@contextlib.contextmanager
def model_params(repack: bool):
    """While a ``Llama`` is constructed in this block, its model parameters have ``use_extra_bufts`` =
    ``repack`` (llama-cpp-python has no argument for it; one load at a time)."""
    from llama_cpp import llama as llama_mod

    with _load_lock:
        mod = llama_mod.llama_cpp
        orig = mod.llama_model_default_params

        def patched():
            params = orig()
            params.use_extra_bufts = repack
            return params

        mod.llama_model_default_params = patched
        try:
            yield
        finally:
            mod.llama_model_default_params = orig
