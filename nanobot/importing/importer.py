"""``nanobot import``'s library: parsed sessions -> session transcripts, all or nothing.

Sessions are written as they are read (``detect.read_sessions``), record by record: memory holds one
conversation whatever the file's size. Each ``ImportedSession`` becomes ``sessions/<id>.jsonl`` (the id from its start time, as a live
session's), records stamped with the imported times; the session record notes the file it came
from and the file's sha256, so the same file is not imported twice. Every transcript is written in
a hidden staging folder first (fsynced), then each is renamed into place; if any step fails, the
ones already moved are removed again: nothing is ever half-imported. Memory indexes the new
transcripts on its next refresh (past conversations, ``memory/transcripts.py``). The observer's
catch-up leaves imported sessions alone (``find_pending``) unless ``observe=True`` (``--observe``)
notes in the session record that they should be observed like a missed live session.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from nanobot.base import faults
from nanobot.base.atomic import _fsync_dir, atomic_write
from nanobot.base.errors import StorageError
from nanobot.base.regular import NotRegularFile, open_regular, open_write, read_regular
from nanobot.config import Settings
from nanobot.core.transcript import Record, list_transcripts, new_session_id
from nanobot.importing.chatgpt import Skipped
from nanobot.importing.detect import read_sessions
from nanobot.importing.formats import ImportedSession, ImportFormatError


def import_file(settings: Settings, path: Path, *, observe: bool = False, skipped: Skipped | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Import every session of ``path``; returns the transcripts written (oldest first).
    ``observe``: the observer's catch-up observes them too (else they are past conversations only);
    ``skipped`` counts what the file's format leaves out (ChatGPT's other branches); ``progress(bytes
    read, file size)`` follows the read."""
    recover(settings.sessions_dir)
    sha = _sha256(path)
    if already := _imported(settings.sessions_dir, sha):
        raise ImportFormatError(f"{path} was already imported (session {already}); delete those sessions "
                                "first to import it again")
    return import_sessions(settings, read_sessions(path, skipped, progress), source=path.name, sha=sha,
                           observe=observe)


def import_sessions(settings: Settings, sessions: Iterable[ImportedSession], *, source: str = "",
                    sha: str = "", observe: bool = False) -> list[Path]:
    """Write ``sessions`` as transcripts, atomically as a set (see the module docstring); returns
    them oldest first (sessions that started together: in the order given)."""
    target = settings.sessions_dir
    try:
        target.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=target))
    except OSError as e:
        raise StorageError.from_os(e, target) from None
    moved: list[Path] = []
    try:
        taken = {p.stem for p in list_transcripts(target)}
        staged: list[tuple[datetime, Path, Path]] = []
        for s in sessions:
            sid = new_session_id(s.started)
            while sid in taken:
                sid = new_session_id(s.started)
            taken.add(sid)
            tmp = staging / f"{sid}.jsonl"
            _write(tmp, s, sid, source, sha, observe)
            staged.append((s.started, tmp, target / f"{sid}.jsonl"))
        staged.sort(key=lambda t: t[0])
        journal = target / f"{staging.name}.journal"
        atomic_write(journal, "\n".join(final.name for _, _, final in staged) + "\n")
        for _, tmp, final in staged:
            os.rename(tmp, final)
            moved.append(final)
            faults.point("import-moved")
        _fsync_dir(target)
        journal.unlink()
        return moved
    except BaseException as e:
        for p in moved:
            p.unlink(missing_ok=True)
        Path(f"{staging}.journal").unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise StorageError.from_os(e, target) from None
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def recover(sessions_dir: Path) -> int:
    """Undo imports a crash interrupted (their journal is still there); returns sessions removed."""
    removed = 0
    for journal in sessions_dir.glob(".import-*.journal"):
        try:
            names = read_regular(journal).decode("utf-8", "replace").split()
        except NotRegularFile as e:
            raise StorageError(f"{e}; nanobot import cannot undo the interrupted import it names") from None
        for name in names:
            p = sessions_dir / Path(name).name
            if p.exists():
                p.unlink()
                removed += 1
        shutil.rmtree(sessions_dir / journal.stem, ignore_errors=True)
        journal.unlink()
    return removed


def _write(path: Path, s: ImportedSession, sid: str, source: str, sha: str, observe: bool) -> None:
    """One staged transcript, record by record, durably (a new file: O_EXCL)."""
    meta = {"id": sid, "imported": source or "import", **({"import_sha": sha} if sha else {}),
            **({"observe": True} if observe else {}),
            **({"title": s.title} if s.title else {})}
    with os.fdopen(open_write(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as f:
        f.write(_line(Record(ts=s.started, role="session", meta=meta)))
        for m in s.messages:
            f.write(_line(Record(ts=m.ts, role=m.role, content=m.content,
                                 meta={"speaker": m.speaker} if m.speaker else {})))
        f.flush()
        os.fsync(f.fileno())


def _line(r: Record) -> bytes:
    return (r.model_dump_json(exclude_none=True) + "\n").encode("utf-8")


def _sha256(path: Path) -> str:
    """The file's sha256, read in blocks; an unreadable file (a FIFO, a folder) is one line."""
    h = hashlib.sha256()
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
    except OSError as e:
        raise ImportFormatError(f"cannot read {path}: {e.strerror}") from None
    return h.hexdigest()


def _imported(sessions_dir: Path, sha: str) -> str | None:
    """The id of a session imported from a file with this sha256, if any (reads first lines only)."""
    for p in list_transcripts(sessions_dir):
        try:
            with os.fdopen(open_regular(p), "r", encoding="utf-8", errors="replace") as f:
                head = json.loads(f.readline() or "{}")  # a FIFO as a transcript: skipped, no hang
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(head, dict) and head.get("meta", {}).get("import_sha") == sha:
            return p.stem
    return None
