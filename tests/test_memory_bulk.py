"""Bulk indexing with the real MiniLM and sqlite-vec: on AMX a bulk batch runs in bfloat16, its token
widths padded to few shapes, and finds what float32 finds; elsewhere it stays float32; a batch's new
texts go in even parts, none small enough for the one-thread query path; the database is read
unmapped while a run writes."""

from __future__ import annotations

import numpy as np
import pytest

from nanobot.memory import bf16, indexer
from nanobot.memory.embedder import BULK, Embedder, bundled_embedder_path
from nanobot.memory.npbert import NumpyBert
from nanobot.memory.store import MMAP_BYTES

pytestmark = pytest.mark.slow
PEOPLE = ["my sister Ana", "our neighbour Tom", "my boss Rui", "the plumber", "my friend Lea"]
DOINGS = ["moved to Lyon last spring and loves the markets there",
          "fixed the boiler on Friday; the invoice was 240 euros",
          "runs the Porto marathon in October, training every morning",
          "adopted a beagle called Biscuit who eats carrots",
          "paints sunsets at the beach and sells them at the festival",
          "is learning the guitar for a concert in the library",
          "signed the lease for a flat with two rooms and a balcony",
          "bakes sourdough bread and gave us the recipe"]
TEXTS = [f"{i % 28 + 1} March 2026: User: {p} {d}" for i, (p, d) in
         enumerate((p, d) for d in DOINGS for p in PEOPLE)]  # 40 texts: one bulk batch
QUERIES = ["who moved to Lyon", "how much was the boiler invoice", "the marathon in Porto",
           "the beagle that eats carrots", "who plays the guitar", "the flat with a balcony"]


@pytest.fixture
def amx():
    if not bf16.native():
        pytest.skip("no AMX on this CPU: bulk batches stay float32 (the next test)")


def test_a_bulk_batch_on_amx_runs_in_bfloat16_and_finds_what_float32_finds(amx):
    assert len(TEXTS) > BULK
    emb = Embedder(bundled_embedder_path(), "auto")
    bulk = emb.embed(TEXTS)
    exact = NumpyBert(emb.path).encode(TEXTS)
    assert np.abs(bulk - exact).max() > 1e-5                   # bfloat16 ran (float32 agrees to 1e-6)
    assert (bulk * exact).sum(1).min() > 0.999                 # and kept each vector's direction
    queries = emb.embed(QUERIES)                               # a query: numpy, float32
    assert ((queries @ bulk.T).argmax(1) == (queries @ exact.T).argmax(1)).all()


def test_a_bulk_batch_without_amx_stays_float32(monkeypatch):
    monkeypatch.setattr(bf16, "native", lambda: False)
    emb = Embedder(bundled_embedder_path(), "auto")
    bulk = emb.embed(TEXTS)
    assert emb._for(len(TEXTS)).half is None
    assert np.abs(bulk - NumpyBert(emb.path).encode(TEXTS)).max() < 1e-5


def test_a_bfloat16_batch_pads_its_width_to_a_multiple_of_the_tile(amx, monkeypatch):
    emb = Embedder(bundled_embedder_path(), "auto")
    emb.wait()
    model = emb._for(len(TEXTS)).model
    lengths = sorted((len(ids) for ids in model.tokenizer(TEXTS)["input_ids"]), reverse=True)
    assert any(n % bf16.PAD_TO for n in lengths[::16])  # unpadded, a batch's width would be another shape
    widths: list[int] = []
    real = model.forward

    def spy(features, *a, **kw):
        widths.append(features["input_ids"].shape[1])
        return real(features, *a, **kw)

    monkeypatch.setattr(model, "forward", spy)
    emb.embed(TEXTS)
    assert widths and all(w % bf16.PAD_TO == 0 for w in widths)


def test_a_batch_is_embedded_in_even_parts_with_the_file_read_unmapped(svc):
    """270 new chunks go as 135 + 135, not 256 + 14 (14 would run on the query path's one thread,
    and load its model as well); the run reads memory.db unmapped, and search maps it again after."""
    bullets = "".join(f"- Fact {i}: the locker {i} code is {1000 + i}.\n" for i in range(270))
    (svc.workspace / "MEMORY.md").write_text(f"# Memory\n{bullets}", encoding="utf-8")
    sizes: list[int] = []
    mapped: list[int] = []

    def spy(texts):
        sizes.append(len(texts))
        mapped.append(svc.store.conn.execute("PRAGMA mmap_size").fetchone()[0])
        return svc.embedder.embed(texts)

    r = indexer.index_workspace(svc.workspace, svc.store, spy, svc.sessions)
    assert r.chunks == 270 and sorted(sizes) == [135, 135]
    assert mapped == [0, 0] and svc.store.conn.execute("PRAGMA mmap_size").fetchone()[0] == MMAP_BYTES
    assert "1207" in svc.search("what is the code of locker 207", 1)[0].text
