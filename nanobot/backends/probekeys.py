"""Where the per-machine model probes keep what they learn, and the key they keep it under: the
llama.cpp build (version, kernels, libraries), the model file's identity, the repacking setting and
the GPU layers (``batchprobe``: the first-batch verdict; ``repackspeed``: the timings).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from nanobot.models import ResolvedModel


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nanobot" / "batch-probe.json"


def build_id() -> str:
    """This llama.cpp build: the package version, its kernels and its shared libraries' identity."""
    import llama_cpp

    libs = sorted(Path(llama_cpp.__file__).parent.glob("lib/*"))
    parts = [llama_cpp.__version__, llama_cpp.llama_print_system_info().decode("utf-8", "replace")]
    parts += [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in libs if p.is_file()]
    return "|".join(parts)


def probe_key(model: ResolvedModel, repack: bool) -> str:
    st = model.path.stat()
    ident = f"{build_id()}|{model.path.resolve()}:{st.st_size}:{st.st_mtime_ns}|{repack}|{model.settings.n_gpu_layers}"
    return hashlib.sha256(ident.encode()).hexdigest()[:24]
