"""Weight repacking only where it pays: an automatic "on" is timed against "off" once per machine.

Repacked layouts are not faster on every CPU: on some (an AVX-512 EPYC, measured in docs/install.md)
a repacked model loads and evaluates a batch slower, which costs every start and every prefill. So where repacking is chosen automatically (``repack.chosen_repack``),
the model runs on the CPU and the first-batch check passed, one child per setting loads the model and
times a batch of ``TOKENS`` tokens (after a first, untimed one); repacking stays on only when its load
plus ``BATCHES`` such batches (a start and a first turn's prefill) is shorter. The timings are kept in
``$XDG_CACHE_HOME/nanobot/repack-speed.json`` per llama.cpp build and model file (``probekeys.probe_key``);
a child that fails or times out decides nothing (the choice stays as it was).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from nanobot.backends.probekeys import cache_path, probe_key
from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.models import ResolvedModel

TOKENS = 64
BATCHES = 4
TIMEOUT_S = 180


def cache_file() -> Path:
    return cache_path().with_name("repack-speed.json")


def _kept() -> dict:
    try:
        data = json.loads(read_regular(cache_file()))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def timing(model: ResolvedModel, repack: bool, threads: int) -> dict | None:
    """``{"load": s, "batch": s}`` for ``model`` loaded with ``repack`` (a child process), kept per build."""
    key = probe_key(model, repack)
    if isinstance(known := _kept().get(key), dict):
        return known
    cmd = [sys.executable, "-m", "nanobot.backends.batchprobe", str(model.path), str(int(repack)),
           str(model.settings.n_gpu_layers), str(threads)]
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT_S)
        measured = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else None
    except (subprocess.TimeoutExpired, OSError, ValueError, IndexError):
        return None
    if not (isinstance(measured, dict) and {"load", "batch"} <= measured.keys()):
        return None
    try:
        atomic_write(cache_file(), json.dumps(_kept() | {key: measured}, indent=1))
    except OSError:
        pass  # no writable cache: timed again next time
    return measured


def cost(t: dict) -> float:
    return t["load"] + BATCHES * t["batch"]


def repack_pays(model: ResolvedModel, threads: int) -> bool:
    """Whether repacking ``model`` is faster here than not (True when either timing is missing)."""
    off = timing(model, False, threads)
    on = timing(model, True, threads) if off else None
    return not (on and off) or cost(on) < cost(off)


def timed_child(llm, text: bytes, load_s: float) -> None:
    """In the probe's child, after its first batch: time a ``TOKENS``-token batch, print both timings."""
    tokens = (llm.tokenize(text, add_bos=False) * TOKENS)[:TOKENS]
    start = time.perf_counter()
    llm.eval(tokens)
    print(json.dumps({"load": round(load_s, 4), "batch": round(time.perf_counter() - start, 4)}))
