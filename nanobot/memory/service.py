"""``MemoryService``: one workspace's memory -- its store, its embedder, refresh, search, add.

The agent, the memory tools and ``nanobot memory`` all go through this. With ``memory.transcripts``
the index also holds past conversations (``$NANOBOT_HOME/sessions``). It is thread-safe (one lock
around the store), and cheap to create: neither torch nor the model is touched until something must
be embedded. ``start_background`` warms the embedder and refreshes the index in a daemon thread, but
only when there is memory to search -- an empty memory never loads torch.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal, NamedTuple, TypeVar

from nanobot.base import background
from nanobot.base.atomic import append_line
from nanobot.base.db import is_damaged
from nanobot.base.errors import ToolError
from nanobot.base.filelock import file_lock
from nanobot.base.nonutf8 import scrub
from nanobot.base.userfile import update_user_file
from nanobot.base.written import record_written
from nanobot.config import Settings
from nanobot.core.provenance import facts_of, restated
from nanobot.memory.embedder import Embedder, get_embedder
from nanobot.memory.indexer import (
    IndexReport,
    Progress,
    backlog,
    has_new_text,
    index_workspace,
)
from nanobot.memory.store import Hit, MemoryStore
from nanobot.memory.transcripts import PREFIX, is_transcript, source_name
from nanobot.workspace import read_text

DB_NAME = "memory.db"
BACKGROUND_NICE = 10
BIG_BACKLOG = 20  # files: an index run this long does not hold up a search (the chat says how far it is)
Mode = Literal["hybrid", "vector", "fts"]
T = TypeVar("T")


class Added(NamedTuple):
    """Where ``MemoryService.add`` kept a text; ``new`` is False when MEMORY.md held it already."""

    path: Path
    line: int
    new: bool


class MemoryService:
    def __init__(self, settings: Settings, *, embedder: Embedder | None = None):
        self.settings = settings
        self.workspace = settings.workspace
        self.db_path = self.workspace / DB_NAME
        self.sessions = settings.sessions_dir if settings.memory.transcripts else None
        self.embedder = embedder or get_embedder(settings)
        self._store: MemoryStore | None = None
        self._lock = threading.RLock()
        self._indexing = threading.Lock()  # one index run at a time; it takes _lock per batch only
        self.running = (0, 0)  # the index run now: (files done, files to do)
        self._thread: threading.Thread | None = None
        self.last_report: IndexReport | None = None
        self.background_error: BaseException | None = None
        self._notices: list[str] = []

    def notices(self) -> list[str]:
        """Things the user should hear about once (e.g. a damaged index rebuilt); drained. Never
        waits for the index lock (a background refresh may hold it for seconds: a session start or
        a turn must not wait on it just to hear there is nothing to say)."""
        out, self._notices = self._notices, []  # one swap: atomic under the GIL
        return out

    def _guard(self, fn: Callable[[], T]) -> T:
        """Run ``fn``; if SQLite says memory.db is damaged, move it aside, rebuild, run again.
        The index is derived data (MEMORY.md, observations/, knowledge/ are the truth)."""
        try:
            return fn()
        except Exception as e:
            if not is_damaged(e):
                raise
            with self._lock:
                self._rebuild(e)
            return fn()

    def _rebuild(self, cause: BaseException) -> None:
        try:
            self.close()
        except Exception:  # a damaged handle may not even close cleanly
            self._store = None
        aside = self.db_path.with_name(self.db_path.name + ".damaged")
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{self.db_path}{suffix}")
            if src.exists():
                os.replace(src, f"{aside}{suffix}")
        first = str(cause).splitlines()[0][:120]
        self._notices.append(f"memory: {self.db_path.name} was damaged ({first}); moved it to "
                             f"{aside.name} and rebuilt the index from your files")

    @property
    def store(self) -> MemoryStore:
        with self._lock:
            if self._store is None:
                self._store = MemoryStore(self.db_path, self.embedder.path.as_posix())
            return self._store

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    # -- indexing ----------------------------------------------------------------------------
    def refresh(self, full: bool = False, *, patient: bool = True,
                progress: Progress | None = None) -> IndexReport:
        """Re-index what changed (a stat per file when nothing did); ``full`` re-chunks every
        file (embeddings still come from the cache when the text is unchanged). While another thread
        indexes, this waits for it. Not ``patient`` (a search, ``add``), it returns at once where that
        run, or its own, would have ``BIG_BACKLOG`` files or more to do (an import): a search then sees
        what is indexed so far, and the background run or ``nanobot memory reindex`` does the rest.
        ``progress(files done, files to do)``: see ``index_workspace``."""
        return self._guard(lambda: self._refresh(full, patient, progress))

    def _refresh(self, full: bool, patient: bool, progress: Progress | None) -> IndexReport:
        while not self._indexing.acquire(timeout=0.05):
            if not patient and self.running[1] >= BIG_BACKLOG:
                return IndexReport()

        def follow(done: int, todo: int) -> None:
            self.running = (done, todo)
            if progress is not None:
                progress(done, todo)
        try:
            with self._lock:
                if full:
                    with self.store.write():
                        self.store.invalidate_sources()
                else:
                    b = backlog(self.workspace, self.store, self.sessions)
                    if not b.changed or (not patient and b.total - b.indexed >= BIG_BACKLOG):
                        return IndexReport(chunks=self.store.count())
                store = self.store
            report = index_workspace(self.workspace, store, self.embedder.embed, self.sessions,
                                     lock=self._lock, progress=follow)
            self.last_report = report
            return report
        finally:
            self.running = (0, 0)
            self._indexing.release()

    def searchable(self) -> tuple[int, int]:
        """(sources indexed as they are now, sources in all): stat only."""
        with self._lock:
            b = backlog(self.workspace, self.store, self.sessions)
        return b.indexed, b.total

    def has_content(self) -> bool:
        """Is there anything to search, or about to be? (No torch involved.)"""
        def check() -> bool:
            with self._lock:
                return self.store.count() > 0 or has_new_text(self.workspace, self.store, self.sessions)
        return self._guard(check)

    def start_background(self) -> None:
        """Warm the embedder and refresh the index off the critical path (idempotent)."""
        if self._thread is not None or not self.has_content():
            return
        self.embedder.start()
        self._thread = background.start(self._background, "nanobot-memory-index", derived=True)

    def _background(self) -> None:
        _yield_cores()
        try:
            self.refresh()
        except BaseException as e:  # surfaced by the next foreground call
            self.background_error = e

    # -- search ------------------------------------------------------------------------------
    def search(self, query: str, k: int | None = None, *, mode: Mode = "hybrid",
               context: str = "", fusion: str | None = None,
               exclude_session: str | None = None) -> list[Hit]:
        """Top ``k`` chunks for ``query``. ``context`` (e.g. the previous user message) joins the
        query for the vector side only, so follow-ups like "and her birthday?" find their topic.
        ``exclude_session``: that session's own turns are never returned (they are in its context)."""
        exclude = (source_name(exclude_session),) if exclude_session else ()
        fusion = fusion or self.settings.memory.fusion
        k = k or self.settings.memory.k
        query, _ = scrub(query)
        self.refresh(patient=False)  # behind a big background run (an import): what is in already

        def run() -> list[Hit]:
            with self._lock:
                if self.store.count() == 0 or not query.strip():
                    return []
                vec_text = f"{context}\n{query}" if context else query
                qvec = self.embedder.embed_query(vec_text)
                return self.store.search(qvec, query, k, mode=mode, fusion=fusion, exclude=exclude,
                                         keyword_weight=self.settings.memory.keyword_weight)
        return [h for h in self._guard(run) if self._still_there(h.source)]

    def _still_there(self, source: str) -> bool:
        """A hit's file still exists: one deleted while a background run holds the index back (a
        session the user removed) is not offered before the run gets to it."""
        if is_transcript(source):
            return self.sessions is not None and (self.sessions / source[len(PREFIX):]).is_file()
        return (self.workspace / source).is_file()

    def stats(self) -> dict:
        def run() -> dict:
            with self._lock:
                return self.store.stats()
        data = self._guard(run)
        data["embedder"] = self.embedder.name
        data["embedder_path"] = str(self.embedder.path)
        return data

    # -- adding ------------------------------------------------------------------------------
    def add(self, text: str, *, kind: Literal["memory", "observation"] = "memory",
            heading: str | None = None) -> Added:
        """Append ``text`` to MEMORY.md (under ``heading``) or today's observation file, then index
        it. Returns (file, line, whether it was added: MEMORY.md holding the same bullet keeps it
        once). MEMORY.md changes by ``update_user_file`` (lock + compare-and-retry), so neither another
        process nor the user's own edit is lost."""
        text = " ".join(text.split())
        if not text:
            raise ToolError("memory text is empty; pass the fact to remember")
        if kind == "observation":
            path = self.workspace / "observations" / f"notes-{datetime.now():%Y-%m-%d}.md"
            with file_lock(path.parent / f".{path.name}.lock"):
                held = _same_line(read_text(path) if path.exists() else "", f"- {text}")
                if held:
                    return Added(path, held, False)
                append_line(path, f"- {text}")
                line = len(read_text(path).splitlines())
        else:
            path = self.workspace / "MEMORY.md"
            where: list[tuple[int, bool]] = []

            def merge(old: str) -> str:
                new, n = insert_bullet(old, text, heading)
                where[:] = [(n, new != old)]
                return new

            update_user_file(path, merge)
            line, added = where[0]
            if not added:
                return Added(path, line, False)
        record_written(self.settings.home, self.workspace, path)
        self.refresh(patient=False)  # behind a big import's index: indexed once that run is done
        return Added(path, line, True)


def _yield_cores() -> None:
    """Lower this thread's priority (Linux: nice is per thread, and the threads it starts inherit it):
    a background index of a big import only fills the time the chat's model leaves idle."""
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        try:  # never raised: a process already at a lower priority (housekeeping) stays there
            os.setpriority(os.PRIO_PROCESS, tid, max(BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, tid)))
        except OSError:
            pass


_services: dict[tuple[Path, Path], MemoryService] = {}
_services_lock = threading.Lock()


def get_service(settings: Settings) -> MemoryService:
    """The process-wide service for this workspace and embedder (agent, tools and CLI share it)."""
    embedder = get_embedder(settings)
    key = (settings.workspace.resolve(), embedder.path)
    with _services_lock:
        svc = _services.get(key)
        if svc is None:
            svc = _services[key] = MemoryService(settings, embedder=embedder)
        return svc


def insert_bullet(doc: str, text: str, heading: str | None) -> tuple[str, int]:
    """``doc`` with ``- text`` added at the end of section ``heading`` (created at the end if
    missing; at the end of the file if None). Returns (new doc, 1-based line of the bullet); a bullet
    that says the same (case and spacing aside) anywhere in ``doc`` leaves it as it is, at that line.

    >>> insert_bullet("# Memory\\n## Work\\n- a\\n## Home\\n- b\\n", "c", "Work")
    ('# Memory\\n## Work\\n- a\\n- c\\n## Home\\n- b\\n', 4)
    """
    lines = doc.splitlines()
    bullet = f"- {text}"
    held = _same_line(doc, bullet) or _same_fact(doc, text)  # kept already (a retry, a recall): not twice
    if held:
        return doc, held
    if heading:
        want = heading.strip().lstrip("#").strip().lower()
        for i, ln in enumerate(lines):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*$", ln)
            if m and m.group(2).lower() == want:
                level, end = len(m.group(1)), len(lines)
                for j in range(i + 1, len(lines)):
                    mj = re.match(r"^(#{1,6})\s", lines[j])
                    if mj and len(mj.group(1)) <= level:
                        end = j
                        break
                while end > i + 1 and not lines[end - 1].strip():
                    end -= 1
                lines.insert(end, bullet)
                return "\n".join(lines) + "\n", end + 1
        lines += ["", f"## {heading.strip().lstrip('#').strip()}"]
    lines.append(bullet)
    return "\n".join(lines) + "\n", len(lines)


def _same_fact(doc: str, text: str) -> int:
    """The 1-based line of a bullet in ``doc`` that already says the fact ``text`` gives, in other
    words (``core.provenance.restated``: its numbers, codes and names, and two thirds of its other
    content words), or 0; a text with no number, code or name is held only word for word
    (``_same_line``). A fact told again (a recall answered with memory_add) is not kept twice.

    >>> _same_fact("# Memory\\n- The code of my bike lock is 6083\\n", "My bike lock code is 6083.")
    2
    >>> _same_fact("# Memory\\n- The code of my bike lock is 6083\\n", "My bike lock code is now 6084.")
    0
    """
    if not facts_of(text):
        return 0
    return next((i for i, line in enumerate(doc.splitlines(), 1)
                 if line.lstrip().startswith("- ") and restated(text, line, 2 / 3)), 0)


def _same_line(doc: str, line: str) -> int:
    """The 1-based line of ``doc`` that says ``line`` (case and spacing aside), or 0."""
    want = " ".join(line.split()).casefold()
    return next((i for i, ln in enumerate(doc.splitlines(), 1) if " ".join(ln.split()).casefold() == want), 0)
