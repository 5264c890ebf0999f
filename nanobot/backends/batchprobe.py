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

import json
import signal
import subprocess
import sys

from nanobot.backends.probekeys import cache_path, probe_key
from nanobot.backends.repack import chosen_repack, model_params
from nanobot.base.atomic import atomic_write
from nanobot.base.errors import ModelError
from nanobot.base.regular import read_regular
from nanobot.models import ResolvedModel

TIMEOUT_S = 120
PROBE_TEXT = b"The quick brown fox jumps over the lazy dog, twice."


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


def repack_for(model: ResolvedModel, probe: bool = True, timed: bool = True) -> bool:
    """Whether ``model`` loads with weight repacking (``repack.chosen_repack``), with ``probe`` first
    checked on one batch in a child process: a build that crashes there is a one-line ``ModelError``
    instead of this process's death, and an automatic "on" that crashes falls back to "off". An
    automatic "on" for a model on the CPU stays on only where it is faster (``repackspeed``, when
    ``timed``: a tokenizer-only load does not time it)."""
    chosen = chosen_repack(model)
    if not probe or model.path is None:
        return chosen
    repack = checked_repack(model, chosen, may_fall_back=model.settings.repack is None)
    if repack and timed and model.settings.repack is None and model.settings.n_gpu_layers == 0:
        from nanobot.backends.repackspeed import repack_pays
        from nanobot.base.cores import default_threads

        return repack_pays(model, default_threads())
    return repack


def _child(path: str, repack: bool, n_gpu_layers: int, threads: int = 0) -> None:
    """Load and evaluate a first batch; with ``threads``, also time the load and a batch
    (``repackspeed.timed_child``) at that many threads."""
    import time

    import llama_cpp

    from nanobot.base import faults

    start = time.perf_counter()
    with model_params(repack):
        llm = llama_cpp.Llama(path, n_ctx=256, n_batch=64, n_ubatch=64, n_threads=threads or 1,
                              n_threads_batch=threads or 1, n_gpu_layers=n_gpu_layers, verbose=False)
    load_s = time.perf_counter() - start
    faults.point("batch-probe")
    if repack:
        faults.point("batch-probe-repack")
    llm.eval(llm.tokenize(PROBE_TEXT, add_bos=True))
    if threads:
        from nanobot.backends.repackspeed import timed_child

        timed_child(llm, PROBE_TEXT, load_s)


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
