"""Changing a knowledge doc and its ledger line together, crash-consistent (knowledge_apply, backfill).

The order, under one lock (``audit/.ledger.lock``, taken by every vault writer):

1. ``recover`` any change a crash left half-done (below).
2. Read the doc, compute the new text, and write the intent -- the complete ledger entry, with the
   sha256 of the doc before and after -- to ``audit/pending.json`` (atomic, fsynced).
3. Write the doc atomically (temp file, fsync, rename, fsync the folder), or delete it. If the doc
   changed under us since step 2 (an editor that takes no lock), start again from step 2.
4. Append the entry to ``audit/ledger.jsonl`` (one fsynced line).
5. Remove ``pending.json``.

``recover`` decides from the doc itself: if the doc still has its "before" hash, step 3 never happened
and the intent is dropped (no doc change, no ledger line); otherwise the doc was written, so the entry
is appended unless the ledger's tail already holds its ``id`` (a crash between 4 and 5). So after a
crash at any point the doc and the ledger agree: either both show the change or neither does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from nanobot.base import faults
from nanobot.base.atomic import atomic_write
from nanobot.base.confine import inside
from nanobot.base.errors import WorkspaceError
from nanobot.base.filelock import file_lock
from nanobot.base.regular import read_regular
from nanobot.base.written import record_written
from nanobot.vault.ledger import LedgerEntry, append, ledger_path, now_utc, read_backwards, sha

RETRIES = 5
TAIL_LINES = 1000  # how far back recovery looks for an entry's id


def pending_path(workspace: Path) -> Path:
    return workspace / "audit" / "pending.json"


def lock(workspace: Path) -> file_lock:
    """The vault writers' lock; audit/.gitignore keeps it and the pending intent out of a git workspace."""
    audit = workspace / "audit"
    audit.mkdir(parents=True, exist_ok=True)
    if not (audit / ".gitignore").exists():
        atomic_write(audit / ".gitignore", ".ledger.lock\npending.json\n")
    return file_lock(audit / ".ledger.lock")


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def _in_ledger(workspace: Path, entry_id: str) -> bool:
    for n, (_, raw, _) in enumerate(read_backwards(ledger_path(workspace))):
        if n >= TAIL_LINES:
            return False
        if entry_id.encode() in raw:
            return True
    return False


def _ledger_writable(workspace: Path) -> None:
    path = ledger_path(workspace)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise WorkspaceError(f"{path} is not a regular file (a FIFO, directory or device); move it "
                             "aside (the vault starts a new ledger) before changing knowledge docs")


def recover(workspace: Path, home: Path | None = None) -> list[str]:
    """Finish or drop a change a crash interrupted (call under ``lock``); returns what it did."""
    path = pending_path(workspace)
    raw = _read(path)
    if raw is None:
        return []
    try:
        entry = LedgerEntry.model_validate_json(raw)
    except (ValidationError, ValueError):
        path.unlink(missing_ok=True)
        return ["vault: dropped an unreadable pending change (audit/pending.json)"]
    try:  # the intent is a file anyone could have written: its path must name a doc in knowledge/
        doc = inside(workspace / "knowledge", entry.path.removeprefix("knowledge/"))
    except ValueError:
        path.unlink(missing_ok=True)
        return [f"vault: dropped a pending change whose path leaves knowledge/ ({entry.path!r})"]
    current = sha(_read(doc))
    if current == entry.sha_before and entry.sha_before != entry.sha_after:
        path.unlink(missing_ok=True)
        return [f"vault: an interrupted change to {entry.path} was never written; dropped it"]
    note = []
    if not _in_ledger(workspace, entry.id):
        append(workspace, entry)
        note = [f"vault: an interrupted change to {entry.path} was written; added its ledger line"]
    if home is not None:
        record_written(home, workspace, ledger_path(workspace))
    path.unlink(missing_ok=True)
    return note


def apply_change(workspace: Path, rel: str, make: Callable[[str | None], str | None], *,
                 actor: str, reason: str, change_summary: str, home: Path | None = None,
                 now: Callable[[], datetime] = now_utc) -> tuple[LedgerEntry | None, list[str]]:
    """Set ``knowledge/<rel>`` to ``make(old text or None)`` (None deletes) and log it.

    Returns (the ledger entry, recovery notes); the entry is None when nothing changed.
    """
    doc = workspace / "knowledge" / rel
    with lock(workspace):
        _ledger_writable(workspace)  # before the doc changes: the two must never disagree
        notes = recover(workspace, home)
        for _ in range(RETRIES + 1):
            old = _read(doc)
            new_text = make(old.decode("utf-8", errors="replace") if old is not None else None)
            new = new_text.encode("utf-8") if new_text is not None else None
            if new == old:
                return None, notes
            action = "create" if old is None else ("delete" if new is None else "update")
            entry = LedgerEntry(ts=now(), actor=actor, action=action, path=f"knowledge/{rel}",
                                reason=reason, change_summary=change_summary,
                                sha_before=sha(old), sha_after=sha(new))
            atomic_write(pending_path(workspace), entry.line())
            faults.point("vault-intent")
            if _read(doc) != old:  # edited meanwhile by a writer that takes no lock: redo
                continue
            if new is None:
                doc.unlink()
            else:
                atomic_write(doc, new)
            faults.point("vault-doc-written")
            append(workspace, entry)
            faults.point("vault-ledger-appended")
            pending_path(workspace).unlink(missing_ok=True)
            if home is not None:
                record_written(home, workspace, *([doc] if new is not None else []),
                               ledger_path(workspace))
            return entry, notes
    pending_path(workspace).unlink(missing_ok=True)
    raise WorkspaceError(f"knowledge/{rel} kept changing while nanobot tried to update it; try again")
