"""Bulk batches (indexing) take the cores no other process keeps busy; queries stay on one thread,
and the thread count is put back after a bulk batch (the real torch model, the bundled MiniLM)."""

from __future__ import annotations

import numpy as np
import pytest

from nanobot.memory import embedder as embedder_mod
from nanobot.memory.embedder import BULK, EMBED_THREADS, Embedder, bundled_embedder_path

pytestmark = pytest.mark.slow


def test_bulk_batches_use_the_free_cores_and_queries_one(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(embedder_mod, "bulk_threads", lambda: 2)
    emb = Embedder(bundled_embedder_path(), "auto")
    seen: list[int] = []
    emb.wait()
    bulk = emb._for(BULK + 1)  # "auto": the torch model for a bulk batch
    assert bulk.backend == "torch"
    real = bulk.model.encode

    def spy(*a, **kw):
        seen.append(torch.get_num_threads())
        return real(*a, **kw)

    monkeypatch.setattr(bulk.model, "encode", spy)
    texts = [f"turn {i} about the flat in Porto" for i in range(BULK + 8)]
    vecs = emb.embed(texts)
    assert vecs.shape == (len(texts), 384) and np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    assert seen == [2]                              # the bulk batch ran on the free cores
    assert torch.get_num_threads() == EMBED_THREADS  # and put the count back
    emb.embed(["a query"])                           # a query: the numpy model, no torch call
    assert seen == [2]


def test_a_failing_bulk_batch_still_puts_the_thread_count_back(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(embedder_mod, "bulk_threads", lambda: 2)
    emb = Embedder(bundled_embedder_path(), "torch")

    def boom(*a, **kw):
        raise RuntimeError("out of memory")

    emb.wait()
    monkeypatch.setattr(emb._model.model, "encode", boom)
    with pytest.raises(RuntimeError):
        emb.embed(["x"] * (BULK + 1))
    assert torch.get_num_threads() == EMBED_THREADS


def test_bulk_threads_count_what_other_processes_do_now_not_the_load_average(monkeypatch):
    """Right after other work the 1-minute load average still says a core is busy (0.8 on an idle
    machine gave a 10k-turn import one thread: 80.9 s instead of ~52 s); what /proc/stat shows other
    processes doing now decides, and a core that is really busy still costs a thread."""
    from nanobot.base import cores

    monkeypatch.setattr(cores, "default_threads", lambda: 2)
    monkeypatch.setattr(cores.os, "getloadavg", lambda: (1.2, 1.0, 0.9))
    monkeypatch.setattr(cores, "busy_now", lambda since=None, window=cores.WINDOW_S: 0.1)
    assert embedder_mod.bulk_threads() == 2
    monkeypatch.setattr(cores, "busy_now", lambda since=None, window=cores.WINDOW_S: 1.0)
    assert embedder_mod.bulk_threads() == 1


def test_an_index_run_looks_up_its_threads_once_per_interval_not_per_batch(monkeypatch):
    """Each look waits a window (0.2 s) while this process rests: an index run's batches reuse the
    count for ``THREADS_FOR_S`` and look again after it."""
    looks: list[int] = []
    monkeypatch.setattr(embedder_mod, "bulk_threads", lambda: looks.append(1) or 1)
    emb = Embedder(bundled_embedder_path(), "auto")
    texts = [f"turn {i} about the boiler in Lyon" for i in range(BULK + 1)]
    emb.embed(texts)
    emb.embed(texts)
    assert len(looks) == 1
    monkeypatch.setattr(embedder_mod, "THREADS_FOR_S", 0.0)
    emb.embed(texts)
    assert len(looks) == 2
