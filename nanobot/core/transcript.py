"""Session transcripts: one JSONL file per session, appended (and fsynced) as things happen.

A crash loses nothing already said. Text that cannot be written as UTF-8 (lone surrogates) is
stored with U+FFFD in its place, never refused. On read, a torn or corrupt line is skipped and reported as a
warning naming the file and line; it is never "repaired" by rewriting the file.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from nanobot.base import faults
from nanobot.base.atomic import append_line
from nanobot.base.errors import StorageError
from nanobot.base.nonutf8 import scrub
from nanobot.base.regular import open_append, read_regular


class Record(BaseModel):
    ts: datetime
    role: str  # "session" | "user" | "assistant" | "tool" | "event"
    content: str = ""
    sent: str | None = None  # what the model actually saw, when it differs (e.g. with memory)
    meta: dict[str, Any] = Field(default_factory=dict)


def new_session_id(now: datetime) -> str:
    return now.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class Transcript:
    """A session's JSONL file. Records before the first user message (the session header, events)
    are held back until it comes, so a session where nothing was said leaves no file behind."""

    def __init__(self, path: Path):
        self.path = path
        self._held: list[str] | None = None  # None: writing through
        self.user_meta: dict[str, Any] = {}  # added to every user record (a group chat's speaker)

    @classmethod
    def create(cls, sessions_dir: Path, now: datetime, **meta: Any) -> Transcript:
        sid = new_session_id(now)
        try:  # fail at the start, with the cause, rather than at the user's first message
            sessions_dir.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=sessions_dir).close()
        except OSError as e:
            raise StorageError.from_os(e, sessions_dir) from None
        t = cls(sessions_dir / f"{sid}.jsonl")
        t._held = []
        t.append("session", "", now=now, id=sid, **meta)
        return t

    @property
    def id(self) -> str:
        return self.path.stem

    def append(self, role: str, content: str, *, now: datetime | None = None,
               sent: str | None = None, **meta: Any) -> Record:
        if role == "user":
            meta = {**self.user_meta, **meta}
        meta = {k: scrub(v)[0] if isinstance(v, str) else v for k, v in meta.items()}
        rec = Record(ts=now or datetime.now().astimezone(), role=role, content=scrub(content)[0],
                     sent=scrub(sent)[0] if sent is not None else None, meta=meta)
        line = rec.model_dump_json(exclude_none=True)
        if role == "assistant" and faults.active("transcript-append"):  # half a record, then the crash
            with open_append(self.path) as f:
                f.write(line[: len(line) // 2].encode("utf-8"))
            faults.point("transcript-append")
        if self._held is not None:
            if role != "user":
                self._held.append(line)
                return rec
            for held in self._held:
                append_line(self.path, held)
            self._held = None
        append_line(self.path, line)
        return rec


def read_transcript(path: Path) -> tuple[list[Record], list[str]]:
    """Records of a transcript plus warnings for lines that could not be read."""
    records: list[Record] = []
    warnings: list[str] = []
    try:
        raw = read_regular(path)
    except OSError as e:
        return [], [f"cannot read {path}: {e.strerror}"]
    for i, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append(Record.model_validate(json.loads(line.decode("utf-8"))))
        except (UnicodeDecodeError, json.JSONDecodeError, ValidationError):
            warnings.append(f"{path}:{i}: skipped a corrupt or torn line (the rest of the transcript is intact)")
    return records, warnings


def list_transcripts(sessions_dir: Path) -> list[Path]:
    """Transcripts oldest first (session ids sort by start time)."""
    if not sessions_dir.is_dir():
        return []
    return sorted(sessions_dir.glob("*.jsonl"))
