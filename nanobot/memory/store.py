"""The memory database: chunks, their vectors (sqlite-vec ``vec0``), an FTS5 index, and the
embedding cache, in one SQLite file opened through ``nanobot.base.db.connect`` (WAL, busy timeout).

Search is hybrid: the vector KNN (``embedding MATCH ? AND k = ?`` over int8-quantized vectors,
candidates rescored exactly) and BM25 over FTS5 (porter stemming, stopwords dropped) each give
``DEPTH`` candidates; ``fusion.blend`` ranks their union on normalised cosine and BM25, and
``fusion.spread`` lifts the chunks next to good candidates. On LoCoMo (bench/locomo_bench.py) this
took hybrid hit@5 from 0.52 to 0.67 on the held-back conversations, above both single modes; the
old cosine + keyword bonus (``fusion="score"``) and RRF stay selectable for comparison. From
``MATRIX_FROM`` chunks the vector side is an exact numpy product over an in-memory matrix instead of
the vec0 scan (``matrix.py``: 100k-chunk hybrid query 85 -> 48 ms CPU, bench/memory_fusion_latency.py).

Writers use ``with store.write():`` -- one ``BEGIN IMMEDIATE`` transaction, so a crash mid-index
rolls back and the previous index stays usable; a second process waits on the busy timeout.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from nanobot.base.db import connect
from nanobot.memory import fusion as fusion_mod
from nanobot.memory.chunker import Chunk
from nanobot.memory.matrix import Matrix

KEYWORD_WEIGHT = 0.1  # hybrid: the best BM25 match adds this much to its cosine (the floor's score)
DEPTH = 30  # candidates taken from each side before fusing (chosen on LoCoMo dev, with fusion.ALPHA)
SCHEMA_VERSION = "4"
MMAP_BYTES = 1 << 30  # read the vector index through mmap: ~25% faster KNN at 100k chunks
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, sha TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, line INTEGER NOT NULL, heading TEXT NOT NULL,
    text TEXT NOT NULL, hash TEXT NOT NULL, weight REAL NOT NULL DEFAULT 1.0);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source);
CREATE TABLE IF NOT EXISTS embed_cache (hash TEXT PRIMARY KEY, embedding BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, heading, tokenize='porter unicode61');
"""
_STOPWORDS = frozenset(
    "a an and are as at be but by can could did do does for from had has have he her him his how i "
    "if in into is it its me my of on or our she so than that the their them then there these they "
    "this to was we were what when where which who whom why will with would you your".split()
)


class Hit(BaseModel):
    id: int
    text: str
    source: str
    line: int
    heading: str
    score: float  # relevance: cosine + keyword bonus (hybrid), what the floor applies to
    cosine: float  # cosine similarity to the query, in [-1, 1]
    vec_rank: int | None = None  # 1-based rank in the vector list, None if absent
    fts_rank: int | None = None

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


class SourceState(BaseModel):
    mtime_ns: int
    size: int
    sha: str


def fts_query(text: str) -> str:
    """An FTS5 OR-query of the text's words, stopwords dropped, each quoted (no syntax errors).

    >>> fts_query("What is the port of Zephyr?")
    '"port" OR "zephyr"'
    """
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in _STOPWORDS]
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


class MemoryStore:
    """One memory database. ``embedder_id`` names the model whose vectors it holds: opening it
    with another model drops the vectors and the cache, so everything is re-embedded once."""

    def __init__(self, path: Path | str, embedder_id: str):
        self.path = Path(path)
        self.embedder_id = embedder_id
        self.conn = connect(path)
        self.conn.isolation_level = None  # autocommit; transactions are explicit
        self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        self._matrix = Matrix()  # the vector side from MATRIX_FROM chunks (``matrix.py``)
        self._writes = 0  # own commits (PRAGMA data_version counts only other connections')
        if self._ready(embedder_id):
            return
        with self.write():
            for statement in _statements():
                self.conn.execute(statement)
            self._migrate()
            if self._meta("embedder") != embedder_id or self._meta("schema") != SCHEMA_VERSION:
                self._reset(embedder_id)

    def _migrate(self) -> None:
        """Schema 3 -> 4: chunks gain ``weight`` (vectors kept: nothing is re-embedded)."""
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(chunks)")}
        if "weight" not in cols:
            self.conn.execute("ALTER TABLE chunks ADD COLUMN weight REAL NOT NULL DEFAULT 1.0")
        if self._meta("schema") == "3":
            self._set_meta("schema", SCHEMA_VERSION)

    def _ready(self, embedder_id: str) -> bool:
        try:
            return (self._meta("embedder") == embedder_id and self._meta("schema") == SCHEMA_VERSION)
        except Exception:  # no tables yet
            return False

    def close(self) -> None:
        self.conn.close()

    # -- transactions ------------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[None]:
        """One IMMEDIATE transaction (nested calls join the outer one)."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        self._writes += 1

    @contextmanager
    def unmapped(self, lock: AbstractContextManager) -> Iterator[None]:
        """The file read with read(), not mmap, inside the block (an index run; ``lock`` guards
        the connection): each mapped page a run touches counts in this process's RSS, and a big
        run touches the whole file, so its RSS would grow with the export."""
        with lock:
            self.conn.execute("PRAGMA mmap_size = 0")
        try:
            yield
        finally:
            with lock:
                self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def _reset(self, embedder_id: str) -> None:
        for table in ("chunks", "sources", "embed_cache", "chunks_fts"):
            self.conn.execute(f"DELETE FROM {table}")
        self.conn.execute("DROP TABLE IF EXISTS chunks_vec")
        self._set_meta("embedder", embedder_id)
        self._set_meta("schema", SCHEMA_VERSION)
        self.conn.execute("DELETE FROM meta WHERE key = 'dim'")

    @property
    def dim(self) -> int | None:
        d = self._meta("dim")
        return int(d) if d else None

    def _ensure_vec(self, dim: int) -> None:
        """The KNN index: int8-quantized vectors in vec0 (a quarter of the bytes to scan, ~1.4x
        faster at 100k chunks than float); exact float vectors live in embed_cache and rescore."""
        if self.dim == dim:
            return
        self.conn.execute("DROP TABLE IF EXISTS chunks_vec")
        self.conn.execute(f"CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding int8[{dim}])")
        self._set_meta("dim", str(dim))

    # -- sources and chunks ------------------------------------------------------------------
    def sources(self) -> dict[str, SourceState]:
        rows = self.conn.execute("SELECT path, mtime_ns, size, sha FROM sources").fetchall()
        return {p: SourceState(mtime_ns=m, size=s, sha=h) for p, m, s, h in rows}

    def set_source(self, path: str, state: SourceState) -> None:
        self.conn.execute("INSERT OR REPLACE INTO sources(path, mtime_ns, size, sha) VALUES (?,?,?,?)",
                          (path, state.mtime_ns, state.size, state.sha))

    def invalidate_sources(self) -> None:
        """Make every source look changed, so the next index re-reads and re-chunks it."""
        self.conn.execute("UPDATE sources SET mtime_ns = -1, sha = ''")

    def remove_source(self, path: str) -> int:
        """Delete a source and its chunks; returns how many chunks went."""
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE source = ?", (path,))]
        self._delete_chunks(ids)
        self.conn.execute("DELETE FROM sources WHERE path = ?", (path,))
        return len(ids)

    def _delete_chunks(self, ids: list[int]) -> None:
        has_vec = self.dim is not None
        for i in ids:
            self.conn.execute("DELETE FROM chunks WHERE id = ?", (i,))
            self.conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (i,))
            if has_vec:
                self.conn.execute("DELETE FROM chunks_vec WHERE rowid = ?", (i,))

    def replace_chunks(self, source: str, chunks: list[Chunk], vecs: np.ndarray) -> None:
        """Swap a source's chunks for ``chunks`` (rows of ``vecs`` are their embeddings)."""
        assert len(chunks) == len(vecs)
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE source = ?", (source,))]
        self._delete_chunks(ids)
        if not chunks:
            return
        self._ensure_vec(vecs.shape[1])
        for c, v in zip(chunks, vecs, strict=True):
            cur = self.conn.execute(
                "INSERT INTO chunks(source, line, heading, text, hash, weight) VALUES (?,?,?,?,?,?)",
                (source, c.line, c.heading, c.text, c.hash, c.weight))
            rowid = cur.lastrowid
            self.conn.execute("INSERT INTO chunks_fts(rowid, text, heading) VALUES (?,?,?)",
                              (rowid, c.text, c.heading))
            self.conn.execute("INSERT INTO chunks_vec(rowid, embedding) VALUES (?, vec_int8(?))",
                              (rowid, _int8(v)))
            self.conn.execute("INSERT OR IGNORE INTO embed_cache(hash, embedding) VALUES (?, ?)",
                              (c.hash, _blob(v)))

    # -- embedding cache ---------------------------------------------------------------------
    def cached(self, hashes: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(hashes), 500):
            part = hashes[i:i + 500]
            marks = ",".join("?" * len(part))
            for h, blob in self.conn.execute(
                    f"SELECT hash, embedding FROM embed_cache WHERE hash IN ({marks})", part):
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def cache(self, items: dict[str, np.ndarray]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO embed_cache(hash, embedding) VALUES (?, ?)",
                              [(h, _blob(v)) for h, v in items.items()])

    def prune_cache(self) -> int:
        """Drop cached embeddings no chunk uses (kept while the cache is small)."""
        n_cache = self.conn.execute("SELECT count(*) FROM embed_cache").fetchone()[0]
        if n_cache <= 2 * self.count() + 1000:
            return 0
        cur = self.conn.execute("DELETE FROM embed_cache WHERE hash NOT IN (SELECT hash FROM chunks)")
        return cur.rowcount

    # -- reading -----------------------------------------------------------------------------
    def count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def stats(self) -> dict:
        per_source = dict(self.conn.execute("SELECT source, count(*) FROM chunks GROUP BY source"))
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return {"chunks": self.count(), "sources": per_source, "db": str(self.path),
                "db_bytes": size, "embedder": self.embedder_id, "dim": self.dim,
                "cached_embeddings": self.conn.execute("SELECT count(*) FROM embed_cache").fetchone()[0]}

    def vector_search(self, qvec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """``[(chunk id, cosine similarity)]``, best first: KNN over the int8 index, then the
        candidates rescored with their exact float vectors."""
        if self.dim is None or k <= 0:
            return []
        if (big := self._matrix.get(self.conn, self._writes, self.count)) is not None:
            ids_arr, mat = big
            sims = mat @ np.asarray(qvec, dtype=np.float32)
            top = np.argpartition(-sims, k)[:k] if len(sims) > k else np.arange(len(sims))
            return sorted(((int(ids_arr[i]), float(sims[i])) for i in top), key=lambda item: -item[1])
        ids = [r for r, _ in self.conn.execute(
            "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH vec_int8(?) AND k = ?",
            (_int8(qvec), k))]
        sims = self._exact(qvec, ids)
        return sorted(sims.items(), key=lambda item: -item[1])

    def _exact(self, qvec: np.ndarray, ids: list[int]) -> dict[int, float]:
        """Exact cosines of chunks (every chunk's float vector is in embed_cache, a B-tree)."""
        out: dict[int, float] = {}
        if not ids:
            return out
        marks = ",".join("?" * len(ids))
        rows = self.conn.execute(
            "SELECT c.id, e.embedding FROM chunks c JOIN embed_cache e ON e.hash = c.hash "
            f"WHERE c.id IN ({marks})", ids).fetchall()
        if rows:
            mat = np.frombuffer(b"".join(b for _, b in rows), dtype=np.float32).reshape(len(rows), -1)
            out = dict(zip((cid for cid, _ in rows), (mat @ qvec).tolist(), strict=True))
        return out

    def fts_search(self, text: str, k: int) -> list[tuple[int, float]]:
        """``[(chunk id, bm25)]``, best (lowest bm25) first."""
        q = fts_query(text)
        if not q or k <= 0:
            return []
        return self.conn.execute(
            "SELECT rowid, bm25(chunks_fts) AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY r LIMIT ?", (q, k)).fetchall()

    def search(self, qvec: np.ndarray, text: str, k: int, mode: str = "hybrid",
               fusion: str = "blend", keyword_weight: float = KEYWORD_WEIGHT,
               candidates: int | None = None, alpha: float | None = None,
               exclude: tuple[str, ...] = ()) -> list[Hit]:
        """Top ``k`` chunks for a query. ``mode``: "hybrid", "vector" or "fts".

        Hybrid ranks the union of both candidate lists (``DEPTH`` each) by ``fusion``: "blend"
        (default; ``fusion.blend``: normalised cosine and BM25, weighted by ``alpha``), "rrf"
        (reciprocal rank fusion) or "score" (cosine + keyword bonus, the old default). A chunk's
        ``weight`` (an assistant's reply in a past conversation: less than 1) scales its rank.
        ``score`` -- what the retriever's floor applies to -- is always the cosine plus
        ``keyword_weight`` times the chunk's BM25 relative to the best match. Chunks whose source
        is in ``exclude`` (the current session's transcript) are never returned.
        """
        n = max(candidates or DEPTH, k) + (4 * k if exclude else 0)
        vec = self.vector_search(qvec, n) if mode in ("hybrid", "vector") else []
        fts = self.fts_search(text, n) if mode in ("hybrid", "fts") else []
        if exclude:
            gone = self._in_sources([c for c, _ in vec] + [c for c, _ in fts], exclude)
            vec = [(c, s) for c, s in vec if c not in gone]
            fts = [(c, s) for c, s in fts if c not in gone]
        sims = self._cosines(qvec, vec, fts)
        best = -fts[0][1] if fts and fts[0][1] < 0 else 1.0
        keyword = {cid: max(0.0, -bm) / best for cid, bm in fts}
        scores = {c: sims[c] + keyword_weight * keyword.get(c, 0.0) for c in sims}
        if mode == "fts":
            order = dict(keyword)
        elif mode == "vector":
            order = dict(vec)
        elif fusion == "rrf":
            order = fusion_mod.rrf([c for c, _ in vec], [c for c, _ in fts])
        elif fusion == "score":
            order = scores
        else:
            a = fusion_mod.ALPHA if alpha is None else alpha
            order = fusion_mod.blend(sims, dict(fts), a)
            order = self._spread(order, sims, scores, qvec, a)
        weights = self._weights(list(order))
        ranked = sorted(order, key=lambda c: -_weighted(order[c], weights.get(c, 1.0)))[:k]
        return self._hits(ranked, sims, scores, vec, fts)

    def _spread(self, order: dict[int, float], sims: dict[int, float], scores: dict[int, float],
                qvec: np.ndarray, alpha: float) -> dict[int, float]:
        """``fusion.spread`` over the candidates' neighbours (the chunk before and after in the same
        source: a source's chunks have consecutive ids, and an excluded source has no candidate);
        new ones get their cosine and score."""
        if not order:
            return order
        near = {c + d for c in order for d in (-1, 1)} - set(order)
        marks = ",".join("?" * len(order | dict.fromkeys(near)))
        rows = self.conn.execute(f"SELECT id, source, instr(text, '?') > 0 FROM chunks WHERE id IN ({marks})",
                                 [*order, *near]).fetchall()
        src = {c: s for c, s, _ in rows}
        asks = {c for c, _, q in rows if q}
        near = {n for n in near if n in src}
        neighbours = {c: [n for n in (c - 1, c + 1) if n in src and src[n] == src.get(c)] for c in order}
        replies = {c: c + 1 for c in order if c in asks and c + 1 in neighbours[c]}
        fresh = self._exact(qvec, list(near))
        sims.update(fresh)
        scores.update(fresh)
        own = {n: fusion_mod.vector_part(sims[n], {c: sims[c] for c in order}, alpha) for n in fresh}
        return fusion_mod.spread(order, neighbours, own, replies=replies)

    def _in_sources(self, ids: list[int], sources: tuple[str, ...]) -> set[int]:
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        smarks = ",".join("?" * len(sources))
        return {r[0] for r in self.conn.execute(
            f"SELECT id FROM chunks WHERE id IN ({marks}) AND source IN ({smarks})", [*ids, *sources])}

    def _weights(self, ids: list[int]) -> dict[int, float]:
        """Weights other than 1 (only past conversations' replies have one)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        return dict(self.conn.execute(
            f"SELECT id, weight FROM chunks WHERE id IN ({marks}) AND weight != 1.0", ids).fetchall())

    def _cosines(self, qvec: np.ndarray, vec: list[tuple[int, float]],
                 fts: list[tuple[int, float]]) -> dict[int, float]:
        """Cosine similarity for every candidate (FTS-only ones from their stored vectors)."""
        sims = dict(vec)
        sims.update(self._exact(qvec, [c for c, _ in fts if c not in sims]))
        for c, _ in fts:
            sims.setdefault(c, 0.0)
        return sims

    def _hits(self, ids: list[int], sims: dict[int, float], scores: dict[int, float],
              vec: list[tuple[int, float]], fts: list[tuple[int, float]]) -> list[Hit]:
        if not ids:
            return []
        vrank = {c: i for i, (c, _) in enumerate(vec, 1)}
        frank = {c: i for i, (c, _) in enumerate(fts, 1)}
        marks = ",".join("?" * len(ids))
        rows = {r[0]: r for r in self.conn.execute(
            f"SELECT id, text, source, line, heading FROM chunks WHERE id IN ({marks})", ids)}
        return [Hit(id=c, text=rows[c][1], source=rows[c][2], line=rows[c][3], heading=rows[c][4],
                    score=round(scores[c], 4), cosine=round(sims[c], 4), vec_rank=vrank.get(c),
                    fts_rank=frank.get(c)) for c in ids if c in rows]


def _weighted(value: float, weight: float) -> float:
    """Scale a rank value by a weight below 1 whatever its sign (RRF and FTS ranks can be <= 0)."""
    return value * weight if value >= 0 else value / weight


def _statements() -> list[str]:
    return [s.strip() for s in _SCHEMA.split(";") if s.strip()]


def _blob(v: np.ndarray) -> bytes:
    return np.ascontiguousarray(v, dtype=np.float32).tobytes()


def _int8(v: np.ndarray) -> bytes:
    """A unit vector quantized to int8: components are ~N(0, 1/dim), so +-4 sigma maps to +-127
    (rarer outliers clip; the exact rescoring makes up for it)."""
    v = np.asarray(v, dtype=np.float32)
    scale = 127.0 * np.sqrt(v.shape[-1]) / 4.0
    return np.clip(np.rint(v * scale), -127, 127).astype(np.int8).tobytes()
