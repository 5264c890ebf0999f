"""The first-batch self-check: a llama.cpp build that crashes on a model's first multi-token batch is
named in one line instead of killing nanobot with SIGSEGV.

``checked_repack`` runs ``python -m nanobot.backends.batchprobe PATH REPACK NGL`` (load the model,
evaluate one 12-token batch) in a child process, once per llama.cpp build, model file and setting:
the verdict is kept in ``$XDG_CACHE_HOME/nanobot/batch-probe.json`` (a property of the machine and
the library, not of one nanobot home). A crash with repacking chosen automatically falls back to no
repacking when that runs; any other crash is a ``ModelError`` naming the setting to change. A probe
that cannot run (timeout, no cache dir) decides nothing: the load goes ahead as chosen.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from nanobot.backends.repack import chosen_repack, model_params
from nanobot.base.atomic import atomic_write
from nanobot.base.errors import ModelError
from nanobot.base.regular import read_regular
from nanobot.models import ResolvedModel

TIMEOUT_S = 120
PROBE_TEXT = b"The quick brown fox jumps over the lazy dog, twice."


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


def _load_verdicts() -> dict:
    try:
        data = json.loads(read_regular(cache_path()))  # a FIFO there: OSError at once, no hang
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_verdict(key: str, verdict: str) -> None:
    verdicts = _load_verdicts() | {key: verdict}
    try:
        atomic_write(cache_path(), json.dumps(verdicts, indent=1))
    except OSError:
        pass  # no writable cache: probe again next time


def probe(model: ResolvedModel, repack: bool) -> str:
    """``"ok"``, ``"crash:SIGNAME"`` (the child died of a signal) or ``"unknown"``; cached per build."""
    key = probe_key(model, repack)
    known = _load_verdicts().get(key)
    if known:
        return known
    cmd = [sys.executable, "-m", "nanobot.backends.batchprobe", str(model.path), str(int(repack)),
           str(model.settings.n_gpu_layers)]
    try:
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=TIMEOUT_S).returncode
    except (subprocess.TimeoutExpired, OSError):
        return "unknown"
    if rc < 0:
        verdict = f"crash:{signal.Signals(-rc).name}"
    else:
        verdict = "ok" if rc == 0 else "unknown"  # a load error is reported by the real load
    if verdict != "unknown":
        _save_verdict(key, verdict)
    return verdict


REBUILD = ("this llama-cpp-python build cannot run it on this CPU; rebuild llama-cpp-python "
           "(see models/README.md) or use another quantization")


def checked_repack(model: ResolvedModel, repack: bool, may_fall_back: bool) -> bool:
    """``repack`` if a first batch runs with it; else ``False`` where allowed and it runs; else a
    one-line ``ModelError``."""
    verdict = probe(model, repack)
    if not verdict.startswith("crash:"):
        return repack
    if not repack:
        how, fix = "off", REBUILD
    elif not may_fall_back:
        how, fix = "on", f"set repack = false under [models.{model.name}] in config.toml"
    elif not probe(model, False).startswith("crash:"):
        return False
    else:
        how, fix = "on or off", REBUILD
    raise ModelError(f"llama.cpp crashed ({verdict[6:]}) evaluating a first batch of {model.path.name} "
                     f"with weight repacking {how}; {fix}")


def repack_for(model: ResolvedModel, probe: bool = True) -> bool:
    """Whether ``model`` loads with weight repacking (``repack.chosen_repack``), with ``probe`` first
    checked on one batch in a child process: a build that crashes there is a one-line ``ModelError``
    instead of this process's death, and an automatic "on" that crashes falls back to "off"."""
    chosen = chosen_repack(model)
    if not probe or model.path is None:
        return chosen
    return checked_repack(model, chosen, may_fall_back=model.settings.repack is None)


def _child(path: str, repack: bool, n_gpu_layers: int) -> None:
    import llama_cpp

    from nanobot.base import faults

    with model_params(repack):
        llm = llama_cpp.Llama(path, n_ctx=256, n_batch=64, n_ubatch=64, n_threads=1, n_threads_batch=1,
                              n_gpu_layers=n_gpu_layers, verbose=False)
    faults.point("batch-probe")
    if repack:
        faults.point("batch-probe-repack")
    llm.eval(llm.tokenize(PROBE_TEXT, add_bos=True))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]))
