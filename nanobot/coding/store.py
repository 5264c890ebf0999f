"""Where a coding session lives: ``$NANOBOT_HOME/sessions/<root id>/`` holds ``meta.json`` (backend,
repository, root id, changes, status) and ``transcript.jsonl`` (one per root, appended across
checkpoints; every record names the change it belongs to).

Ordinary chat transcripts are ``sessions/<id>.jsonl`` files in the same folder; a coding session is
a subfolder, so the two never collide (``session.list_transcripts`` only globs ``*.jsonl``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from nanobot.base.atomic import atomic_write
from nanobot.base.confine import safe_id
from nanobot.base.filelock import file_lock
from nanobot.base.regular import read_regular
from nanobot.coding.vcs import CodingError
from nanobot.core.transcript import Record, Transcript, read_transcript


class SessionMeta(BaseModel):
    root: str  # the change id the session is keyed to (a folder name: checked, never a path)
    task: str
    backend: Literal["git", "jj"]
    repo: str
    changes: list[str] = Field(default_factory=list)  # root first, one per checkpoint
    current: str = ""
    status: Literal["active", "ended", "broken"] = "active"
    reason: str = ""  # why it is broken (shown by `session list`)
    started: datetime
    last_active: datetime

    @field_validator("root")
    @classmethod
    def _plain(cls, v: str) -> str:
        return safe_id(v)

    @field_validator("changes")
    @classmethod
    def _plain_ids(cls, v: list[str]) -> list[str]:
        return [safe_id(c) for c in v]


def session_dir(sessions_dir: Path, root: str) -> Path:
    return sessions_dir / safe_id(root)


def save_meta(sessions_dir: Path, meta: SessionMeta) -> None:
    atomic_write(session_dir(sessions_dir, meta.root) / "meta.json", meta.model_dump_json(indent=2) + "\n")


def meta_lock(sessions_dir: Path, root: str) -> file_lock:
    """The session's one-writer lock (``.meta.lock`` beside meta.json): every change to the
    metadata, and the VCS step it records, happens under it."""
    return file_lock(session_dir(sessions_dir, safe_id(root)) / ".meta.lock")


def update_meta(sessions_dir: Path, root: str, fn: Callable[[SessionMeta], SessionMeta],
                fallback: SessionMeta) -> SessionMeta:
    """Re-read meta.json, apply ``fn``, write it back (call under ``meta_lock``): a writer that
    finished meanwhile is never overwritten with an older copy. ``fallback`` when it is unreadable."""
    current = load_meta(session_dir(sessions_dir, root)) or fallback
    new = fn(current)
    save_meta(sessions_dir, new)
    return new


def load_meta(folder: Path) -> SessionMeta | None:
    try:
        return SessionMeta.model_validate_json(read_regular(folder / "meta.json"))
    except (OSError, ValidationError, UnicodeDecodeError):
        return None


def list_sessions(sessions_dir: Path) -> list[SessionMeta]:
    """Every coding session, most recently active first."""
    if not sessions_dir.is_dir():
        return []
    metas = [m for d in sessions_dir.iterdir() if d.is_dir() and (m := load_meta(d)) is not None]
    return sorted(metas, key=lambda m: m.last_active, reverse=True)


def find_session(sessions_dir: Path, prefix: str) -> SessionMeta:
    """The session that ``prefix`` names: a unique prefix of its root id or of any of its changes (a
    checkpoint's id resumes the session it belongs to); else a one-line CodingError.

    ``find_session(home / "sessions", "Ia3f")`` finds the root, or checkpoint 3 of the same session.
    """
    prefix = prefix.strip()
    metas = list_sessions(sessions_dir)
    hits = [m for m in metas if m.root.startswith(prefix)] if prefix else []
    if prefix and not hits:
        hits = [m for m in metas if any(c.startswith(prefix) for c in m.changes)]
    if not hits:
        raise CodingError(f"{prefix!r} is not a change of any coding session (neither a session's first change "
                          "nor one of its checkpoints); `nanobot session list` shows the ids")
    if len(hits) > 1:
        raise CodingError(f"{prefix!r} matches {len(hits)} sessions; give more of the id")
    return hits[0]


def change_named(meta: SessionMeta, prefix: str) -> str:
    """The change of ``meta`` that ``prefix`` names (the root when it names the session itself)."""
    prefix = prefix.strip()
    if meta.root.startswith(prefix):
        return meta.root
    return next((c for c in meta.changes if c.startswith(prefix)), meta.root)


def transcript(sessions_dir: Path, root: str) -> Transcript:
    """The session's transcript, appending straight through (nothing held back)."""
    folder = session_dir(sessions_dir, root)
    folder.mkdir(parents=True, exist_ok=True)
    return Transcript(folder / "transcript.jsonl")


def records(sessions_dir: Path, root: str) -> list[Record]:
    return read_transcript(session_dir(sessions_dir, root) / "transcript.jsonl")[0]


def touch(meta: SessionMeta, now: datetime | None = None) -> SessionMeta:
    return meta.model_copy(update={"last_active": now or datetime.now().astimezone()})
