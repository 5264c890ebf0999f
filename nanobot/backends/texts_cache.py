"""Every token's text, kept on disk per model file and llama.cpp build.

Building it takes one detokenize call per token (~150k on Qwen2.5's vocabulary: 0.3-1 s of the
first turn's path when a message arrives with the model still loading); reading it back takes a few
milliseconds. The file is ``$XDG_CACHE_HOME/nanobot/token-texts/<key>.json``, the key a hash of the
model file's identity (resolved path, size, mtime) and the llama-cpp-python version: another file or
build is another entry. A damaged or foreign entry is ignored and rebuilt; a cache that cannot be
written costs nothing but the rebuild next time.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular

LIMIT = 64 << 20  # a vocabulary's texts are ~2 MB; anything far larger is not ours


def cache_file(model_path: Path) -> Path | None:
    """Where ``model_path``'s token texts live; None when the file cannot be identified."""
    import llama_cpp

    try:
        st = model_path.stat()
        ident = f"{model_path.resolve()}:{st.st_size}:{st.st_mtime_ns}|{llama_cpp.__version__}"
    except OSError:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nanobot" / "token-texts" / f"{hashlib.sha256(ident.encode()).hexdigest()[:24]}.json"


def read(model_path: Path) -> object:
    """What is stored for ``model_path`` (unchecked: ``fits`` says whether it is usable), or None.
    Needs no loaded model, so a start reads it while the model loads."""
    path = cache_file(model_path)
    if path is None:
        return None
    try:
        return json.loads(read_regular(path, limit=LIMIT))
    except (OSError, ValueError):
        return None


def fits(texts: object, n_vocab: int) -> list[str] | None:
    """``texts`` when they are a list of ``n_vocab`` strings, else None (damaged, another model)."""
    if not isinstance(texts, list) or len(texts) != n_vocab or not all(isinstance(t, str) for t in texts):
        return None
    return texts


def load(model_path: Path, n_vocab: int) -> list[str] | None:
    """The stored texts of ``model_path``'s ``n_vocab`` tokens, or None (absent, damaged, other size)."""
    return fits(read(model_path), n_vocab)


def save(model_path: Path, texts: list[str]) -> None:
    path = cache_file(model_path)
    if path is None:
        return
    try:
        atomic_write(path, json.dumps(texts, ensure_ascii=False))
    except OSError:
        pass  # no writable cache: built again next time
