"""The vector side of a big store: every chunk's float vector as one in-memory matrix.

vec0 scans rows one by one (57 ms CPU at 100k chunks); one matrix-vector product over the same vectors
takes ~20 ms and is exact. ``Matrix.get`` gives ``(ids, matrix)`` for a store of ``MATRIX_FROM``
chunks or more (None below: vec0 is fast enough there), kept until this or another connection
commits (``PRAGMA data_version`` plus the store's own commit count); 1.5 KB per chunk (150 MB at 100k).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import numpy as np

MATRIX_FROM = 20_000  # chunks: from here on the KNN is a numpy product over an in-memory matrix


class Matrix:
    def __init__(self):
        self.cache: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None

    def get(self, conn: sqlite3.Connection, writes: int, count: Callable[[], int]) -> tuple[np.ndarray, np.ndarray] | None:
        key = (conn.execute("PRAGMA data_version").fetchone()[0], writes)
        if self.cache is not None and self.cache[0] == key:
            return self.cache[1], self.cache[2]
        self.cache = None
        if count() < MATRIX_FROM:  # counted only when the snapshot is stale
            return None
        _one_blas_thread()
        rows = conn.execute("SELECT c.id, e.embedding FROM chunks c JOIN embed_cache e ON e.hash = c.hash").fetchall()
        ids = np.fromiter((cid for cid, _ in rows), dtype=np.int64, count=len(rows))
        mat = np.frombuffer(b"".join(b for _, b in rows), dtype=np.float32).reshape(len(rows), -1)
        self.cache = (key, ids, mat)
        return ids, mat


def _one_blas_thread() -> None:
    """One BLAS thread for the matrix product, as the embedder does: on 2 shared cores, BLAS
    threads that spin after each product made a 100k-chunk query 73 ms of CPU instead of 42."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except ImportError:
        pass
