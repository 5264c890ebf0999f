"""The memory store on real SQLite + sqlite-vec: KNN, FTS, hybrid, transactions, two writers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from nanobot.memory.chunker import Chunk
from nanobot.memory.store import MemoryStore, SourceState, fts_query

DIM = 8
ROOT = Path(__file__).resolve().parent.parent


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def fill(store: MemoryStore, source: str, texts: list[str], vecs: np.ndarray) -> None:
    with store.write():
        store.replace_chunks(source, [Chunk(text=t, line=i + 1) for i, t in enumerate(texts)], vecs)
        store.set_source(source, SourceState(mtime_ns=1, size=1, sha="x"))


def test_vector_search_finds_nearest_and_reports_cosine(tmp_path):
    rng = np.random.default_rng(0)
    store = MemoryStore(tmp_path / "m.db", "test-embedder")
    vecs = unit(rng, 50)
    fill(store, "MEMORY.md", [f"fact {i}" for i in range(50)], vecs)
    hits = store.search(vecs[17], "", 3, mode="vector")
    assert hits[0].text == "fact 17" and hits[0].where == "MEMORY.md:18"
    assert hits[0].cosine == pytest.approx(1.0, abs=1e-4)
    brute = np.argsort(-(vecs @ vecs[17]))[:3]
    assert [h.text for h in hits] == [f"fact {i}" for i in brute]


def test_fts_query_is_safe_and_hybrid_uses_keywords(tmp_path):
    assert fts_query('what "is" AND (the) port*?') == '"port"'
    assert fts_query("the of and") == ""
    rng = np.random.default_rng(1)
    store = MemoryStore(tmp_path / "m.db", "test-embedder")
    texts = [f"host node-{i} runs service on port {4000 + i}" for i in range(30)]
    same = np.repeat(unit(rng, 1), 30, axis=0)  # look-alikes: every chunk equally similar
    fill(store, "MEMORY.md", texts, same)
    q = same[0]
    assert store.search(q, "node-7", 1, mode="fts")[0].text == texts[7]
    hybrid = store.search(q, "which port is node-7 on", 3)
    assert hybrid[0].text == texts[7] and hybrid[0].fts_rank == 1
    assert hybrid[0].score == pytest.approx(hybrid[0].cosine + 0.1, abs=1e-3)
    assert hybrid[1].score < hybrid[0].score
    assert store.search(q, "", 3, mode="fts") == []


def test_replace_and_remove_keep_tables_in_step(tmp_path):
    rng = np.random.default_rng(2)
    store = MemoryStore(tmp_path / "m.db", "e")
    fill(store, "a.md", ["alpha one", "alpha two"], unit(rng, 2))
    fill(store, "b.md", ["beta"], unit(rng, 1))
    fill(store, "a.md", ["alpha three"], unit(rng, 1))
    assert store.count() == 2
    with store.write():
        assert store.remove_source("b.md") == 1
    n_vec = store.conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    n_fts = store.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert (store.count(), n_vec, n_fts) == (1, 1, 1)
    assert store.search(unit(rng, 1)[0], "alpha", 5, mode="fts")[0].text == "alpha three"


def test_failed_transaction_leaves_previous_index(tmp_path):
    rng = np.random.default_rng(3)
    store = MemoryStore(tmp_path / "m.db", "e")
    fill(store, "a.md", ["kept fact"], unit(rng, 1))
    with pytest.raises(RuntimeError), store.write():
        store.remove_source("a.md")
        raise RuntimeError("crash mid-index")
    assert [h.text for h in store.search(unit(rng, 1)[0], "kept", 5)] == ["kept fact"]


def test_killed_writer_leaves_previous_index(tmp_path):
    """A process that dies inside its transaction (os._exit) loses only its own changes."""
    rng = np.random.default_rng(4)
    db = tmp_path / "m.db"
    store = MemoryStore(db, "e")
    fill(store, "a.md", ["survivor"], unit(rng, 1))
    script = textwrap.dedent(f"""
        import os, numpy as np
        from nanobot.memory.store import MemoryStore
        from nanobot.memory.chunker import Chunk
        s = MemoryStore({str(db)!r}, "e")
        cm = s.write()
        cm.__enter__()
        s.remove_source("a.md")
        s.replace_chunks("b.md", [Chunk(text="half-written")], np.ones((1, {DIM}), np.float32))
        os._exit(9)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    fresh = MemoryStore(db, "e")
    assert [h.text for h in fresh.search(unit(rng, 1)[0], "survivor", 5)] == ["survivor"]
    assert fresh.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_other_embedder_resets_vectors(tmp_path):
    rng = np.random.default_rng(5)
    fill(MemoryStore(tmp_path / "m.db", "model-a"), "a.md", ["x"], unit(rng, 1))
    store = MemoryStore(tmp_path / "m.db", "model-b")
    assert store.count() == 0 and store.sources() == {} and store.dim is None


WRITER = textwrap.dedent("""
    import sys, numpy as np
    from nanobot.memory.store import MemoryStore, SourceState
    from nanobot.memory.chunker import Chunk
    db, name = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    s = MemoryStore(db, "e")
    for i in range(40):
        v = rng.normal(size=(3, 8)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        with s.write():
            s.replace_chunks(f"{name}-{i % 5}.md", [Chunk(text=f"{name} {i} {j}") for j in range(3)], v)
            s.set_source(f"{name}-{i % 5}.md", SourceState(mtime_ns=i, size=3, sha=str(i)))
        s.search(v[0], name, 3)
    print("done")
""")


def test_two_processes_write_one_database(tmp_path):
    db = tmp_path / "m.db"
    MemoryStore(db, "e").close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), name], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("p1", "p2")]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == "done", err
    store = MemoryStore(db, "e")
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.count() == 2 * 5 * 3  # each process: 5 sources x 3 chunks, replaced in place
    n_vec = store.conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    n_fts = store.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert n_vec == n_fts == 30


def test_big_store_knn_runs_in_numpy_exactly_and_sees_every_write(tmp_path, monkeypatch):
    """From MATRIX_FROM chunks the KNN is one product over an in-memory matrix: it must equal the
    brute-force answer, and neither this connection's writes nor another process's may go unseen."""
    from nanobot.memory import matrix

    monkeypatch.setattr(matrix, "MATRIX_FROM", 100)
    rng = np.random.default_rng(5)
    a = MemoryStore(tmp_path / "m.db", "test-embedder")
    vecs = unit(rng, 300)
    fill(a, "MEMORY.md", [f"fact {i}" for i in range(300)], vecs)
    q = unit(rng, 1)[0]
    hits = a.search(q, "", 5, mode="vector")
    assert a._matrix.cache is not None, "the numpy path was not taken"
    assert [h.text for h in hits] == [f"fact {i}" for i in np.argsort(-(vecs @ q))[:5]]

    mine = unit(rng, 1)
    fill(a, "mine.md", ["written by this connection"], mine)
    assert a.search(mine[0], "", 1, mode="vector")[0].text == "written by this connection"

    b = MemoryStore(tmp_path / "m.db", "test-embedder")
    theirs = unit(rng, 1)
    fill(b, "theirs.md", ["written by another process"], theirs)
    assert a.search(theirs[0], "", 1, mode="vector")[0].text == "written by another process"
    with b.write():
        b.remove_source("theirs.md")
    assert a.search(theirs[0], "", 1, mode="vector")[0].text != "written by another process"
    a.close()
    b.close()
