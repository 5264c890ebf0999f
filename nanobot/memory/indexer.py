"""Workspace files -> the memory store, incrementally.

Sources: ``MEMORY.md``, ``observations/*.md`` and ``knowledge/**/*.md``, and -- when a sessions
folder is given (``memory.transcripts``) -- past conversations, ``sessions/*.jsonl`` outside the
workspace (``transcripts.py``; a deleted transcript leaves the index with its chunks). A run compares each file's
(mtime, size) with what the store recorded; only files that changed are read, hashed, re-chunked, and
only chunks whose text is new are embedded (the rest come from the embedding cache). Changed files go
in batches of about ``BATCH_CHUNKS`` chunks, each committed with its files' new (mtime, size): a crash
or Ctrl-C keeps the batches done, and the next run starts where it stopped (a file is never half
indexed: its chunks and its state change in one transaction). Nothing changed costs one ``stat`` per
file and one query, so it runs every turn.

Embedding happens before a batch's transaction opens: a second process is never blocked behind the
model, and a search in this one (``lock``) runs between batches.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, Field

from nanobot.base import faults
from nanobot.base.regular import read_regular
from nanobot.memory.chunker import Chunk, chunk_markdown
from nanobot.memory.store import MemoryStore, SourceState
from nanobot.memory.transcripts import PREFIX, is_transcript, transcript_chunks
from nanobot.workspace import utf8_problem

Embed = Callable[[list[str]], np.ndarray]
Progress = Callable[[int, int], None]
BATCH_CHUNKS = 256  # chunks embedded, then committed, together: what an interrupted run keeps


class IndexReport(BaseModel):
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # files skipped (not UTF-8, binary, unreadable)
    chunks: int = 0  # chunks in the index afterwards
    embedded: int = 0  # texts sent to the embedder
    cached: int = 0  # chunk embeddings taken from the cache
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


class _Pending(BaseModel):
    path: str
    state: SourceState
    chunks: list[Chunk] | None  # None: unchanged text (only the stat moved) or skipped


def source_files(workspace: Path, sessions: Path | None = None) -> dict[str, Path]:
    """Indexable files by workspace-relative path (forward slashes), sorted; transcripts of
    ``sessions`` as ``sessions/<id>.jsonl``."""
    found: list[Path] = []
    memory = workspace / "MEMORY.md"
    if memory.is_file():
        found.append(memory)
    found += sorted((workspace / "observations").glob("*.md"))
    found += sorted((workspace / "knowledge").rglob("*.md"))
    out = {p.relative_to(workspace).as_posix(): p for p in found if p.is_file()}
    if sessions is not None and sessions.is_dir():
        out |= {f"{PREFIX}{p.name}": p for p in sorted(sessions.glob("*.jsonl")) if p.is_file()}
    return out


def has_new_text(workspace: Path, store: MemoryStore, sessions: Path | None = None) -> bool:
    """Does a new or changed source hold any chunk? (Reads and chunks; never embeds.)"""
    known = store.sources()
    for rel, path in source_files(workspace, sessions).items():
        old = known.get(rel)
        try:
            st = path.stat()
            if old is not None and (st.st_mtime_ns, st.st_size) == (old.mtime_ns, old.size):
                continue
            raw = read_regular(path)
        except OSError:
            continue
        text = _decode(rel, raw)
        if text and _chunks(rel, path, raw, text):
            return True
    return False


class Backlog(NamedTuple):
    indexed: int  # sources indexed as they are now
    total: int  # sources in all
    removed: int  # sources indexed that are gone

    @property
    def changed(self) -> bool:
        return self.indexed < self.total or self.removed > 0


def backlog(workspace: Path, store: MemoryStore, sessions: Path | None = None) -> Backlog:
    """What the index lacks, by stat only: "N of M searchable so far", and whether a run has work."""
    known = store.sources()
    files = source_files(workspace, sessions)
    indexed = sum(1 for rel, path in files.items() if _same(path, known.get(rel)))
    return Backlog(indexed, len(files), sum(1 for rel in known if rel not in files))


def index_workspace(workspace: Path, store: MemoryStore, embed: Embed, sessions: Path | None = None, *,
                    lock: AbstractContextManager = nullcontext(),
                    progress: Progress | None = None) -> IndexReport:
    """Bring the store in line with the workspace files; see the module docstring. ``lock`` is held
    around each use of the store (never while embedding), so searches run between batches;
    ``progress(files done, files to do)`` follows the run."""
    t0 = time.perf_counter()
    report = IndexReport()
    with lock:
        known = store.sources()
    files = source_files(workspace, sessions)
    todo = [(rel, path) for rel, path in files.items() if not _same(path, known.get(rel))]
    removed = [rel for rel in known if rel not in files]
    if removed:
        with lock, store.write():
            for rel in removed:
                store.remove_source(rel)
        report.removed = removed
    if progress is not None:
        progress(0, len(todo))
    with store.unmapped(lock):
        _index(todo, known, store, embed, report, lock, progress)
        if todo or removed:
            with lock, store.write():
                store.prune_cache()
    with lock:
        report.chunks = store.count()
    report.seconds = round(time.perf_counter() - t0, 4)
    return report


def _index(todo: list[tuple[str, Path]], known: dict[str, SourceState], store: MemoryStore, embed: Embed,
           report: IndexReport, lock: AbstractContextManager, progress: Progress | None) -> None:
    """The changed files in batches of about ``BATCH_CHUNKS`` chunks, each committed."""
    batch: list[_Pending] = []
    for done, (rel, path) in enumerate(todo, start=1):
        if (p := _scan(rel, path, known.get(rel), report)) is not None:
            batch.append(p)
        if done == len(todo) or sum(len(b.chunks or []) for b in batch) >= BATCH_CHUNKS:
            _commit(batch, store, embed, report, lock)
            batch = []
            if progress is not None:
                progress(done, len(todo))


def _commit(batch: list[_Pending], store: MemoryStore, embed: Embed, report: IndexReport,
            lock: AbstractContextManager) -> None:
    """One batch: its new texts embedded (outside the lock), then its files' chunks and states in one
    transaction -- what a later crash or Ctrl-C keeps, so the next run goes on after it."""
    if not batch:
        return
    vectors = _embed_pending(batch, store, embed, report, lock)
    with lock, store.write():
        for p in batch:
            if p.chunks is not None:
                store.replace_chunks(p.path, p.chunks, _stack(p.chunks, vectors))
            store.set_source(p.path, p.state)
        faults.point("reindex-write")


def _same(path: Path, old: SourceState | None) -> bool:
    """Is the file as the store last saw it (mtime and size)? A file gone since the listing: no."""
    try:
        st = path.stat()
    except OSError:
        return False
    return old is not None and (st.st_mtime_ns, st.st_size) == (old.mtime_ns, old.size)


def _scan(rel: str, path: Path, old: SourceState | None, report: IndexReport) -> _Pending | None:
    """What to do with one file: None if unchanged since the last index."""
    try:
        st = path.stat()
        if old is not None and (st.st_mtime_ns, st.st_size) == (old.mtime_ns, old.size):
            return None
        raw = read_regular(path)
    except OSError as e:
        report.warnings.append(f"{rel}: cannot read ({e.strerror}); skipped")
        return None
    sha = hashlib.sha256(raw).hexdigest()
    state = SourceState(mtime_ns=st.st_mtime_ns, size=st.st_size, sha=sha)
    if old is not None and old.sha == sha:
        return _Pending(path=rel, state=state, chunks=None)
    text = _decode(rel, raw)
    if text is None:
        report.warnings.append(f"{rel}: binary (holds NUL bytes); skipped")
        chunks: list[Chunk] = []  # drop what it used to hold
    else:
        if problem := utf8_problem(raw, rel):  # indexed anyway: never lose a file over one byte
            report.warnings.append(problem)
        chunks = _chunks(rel, path, raw, text)
    (report.updated if old is not None else report.added).append(rel)
    return _Pending(path=rel, state=state, chunks=chunks)


def _chunks(rel: str, path: Path, raw: bytes, text: str) -> list[Chunk]:
    if is_transcript(rel):
        return transcript_chunks(path, raw)
    return chunk_markdown(text)


def _decode(rel: str, raw: bytes) -> str | None:
    """Text of a source file; invalid UTF-8 becomes U+FFFD. None for binary (NUL bytes) -- except a
    transcript, whose NUL bytes are a torn tail (a power cut mid-append): its intact lines count."""
    if b"\x00" in raw and not is_transcript(rel):
        return None
    return raw.decode("utf-8", errors="replace")


def _embed_pending(pending: list[_Pending], store: MemoryStore, embed: Embed, report: IndexReport,
                   lock: AbstractContextManager) -> dict[str, np.ndarray]:
    """Embeddings for every chunk to write: cached ones looked up, the rest embedded (in parts of at
    most ``BATCH_CHUNKS``, each cached at once: a big file cut short keeps what was embedded)."""
    texts = {c.hash: c.embed_text for p in pending for c in (p.chunks or [])}
    if not texts:
        return {}
    with lock:
        vectors = store.cached(list(texts))
    report.cached += sum(1 for p in pending for c in (p.chunks or []) if c.hash in vectors)
    todo = [h for h in texts if h not in vectors]
    for part in even_parts(todo, BATCH_CHUNKS):
        new = dict(zip(part, embed([texts[h] for h in part]), strict=True))
        with lock, store.write():
            store.cache(new)
        vectors |= new
        report.embedded += len(part)
    return vectors


def even_parts(items: list[str], most: int) -> list[list[str]]:
    """``items`` in the fewest parts of at most ``most``, of equal size: 300 as 150 + 150, not
    256 + 44, so no part is left small enough (``embedder.BULK``) to go to the one-thread query path.

    >>> [len(p) for p in even_parts(["x"] * 300, 256)]
    [150, 150]
    """
    n = -(-len(items) // most)
    size = -(-len(items) // n) if n else 0
    return [items[i:i + size] for i in range(0, len(items), size)] if n else []


def _stack(chunks: list[Chunk], vectors: dict[str, np.ndarray]) -> np.ndarray:
    if not chunks:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([vectors[c.hash] for c in chunks])
