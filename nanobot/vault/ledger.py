"""The audit ledger: ``workspace/audit/ledger.jsonl``, one JSON line per change to a knowledge doc.

Append-only: ``append`` writes one line with a single write + fsync (``atomic.append_line``), so a crash
can at worst leave a torn last line, which readers skip with a warning. ``read_backwards`` yields lines
from the end of the file in 64 KiB blocks, so the digest of the last 24 hours reads a few KiB of a
ledger of any length.

>>> e = LedgerEntry(ts=datetime(2026, 1, 2, 9, 5, tzinfo=UTC), actor="model", action="create",
...                 path="knowledge/a.md", reason="asked", change_summary="New doc")
>>> e.line()[:60]
'{"ts":"2026-01-02T09:05:00Z","actor":"model","action":"creat'
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_serializer, field_validator

from nanobot.base.atomic import append_line
from nanobot.base.confine import safe_rel
from nanobot.base.regular import open_regular

BLOCK = 64 * 1024
Actor = Literal["model", "user", "backfill", "unknown"]  # "unknown": a line written without one
REQUIRED = ("ts", "action", "path")  # a line lacking one of these is not an entry
Action = Literal["create", "update", "delete"]


class LedgerEntry(BaseModel):
    ts: datetime  # UTC; written as ISO 8601 with a Z
    actor: Actor = "unknown"  # older tools and scripts may leave it out
    action: Action
    path: str  # workspace-relative: knowledge/projects/a.md
    reason: str = ""
    change_summary: str = ""  # older entries may lack it (the digest falls back to reason)
    sha_before: str | None = None  # sha256 of the doc's bytes before; None: it did not exist
    sha_after: str | None = None  # ... and after; None: deleted
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:  # a line from a file: never a path out of the workspace
        return safe_rel(v)

    @field_validator("ts")
    @classmethod
    def _utc(cls, v: datetime) -> datetime:
        return v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)

    @field_serializer("ts")
    def _iso(self, v: datetime) -> str:
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")

    def line(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_line(cls, raw: bytes | str) -> LedgerEntry | None:
        """The entry of one ledger line; None when it is not a JSON object with a valid ts, action and
        path. Every other field that is missing or unreadable takes its default, so a line an older
        tool or a script appended (``{"ts": ..., "action": "update", "path": ...}``) still reads.

        >>> LedgerEntry.from_line('{"ts":"2026-01-02T09:05:00Z","action":"update","path":"knowledge/a.md",'
        ...                       '"actor":"cron"}').actor
        'unknown'
        """
        try:
            return cls.model_validate_json(raw)
        except ValueError:
            pass
        try:
            obj = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(obj, dict) or any(k not in obj for k in REQUIRED):
            return None
        try:
            entry = cls.model_validate({k: obj[k] for k in REQUIRED})
        except ValueError:
            return None
        for key in cls.model_fields.keys() - set(REQUIRED):
            if key in obj:
                try:
                    setattr(entry, key, cls.model_validate({**{k: obj[k] for k in REQUIRED},
                                                            key: obj[key]}).__dict__[key])
                except ValueError:
                    pass
        return entry


def ledger_path(workspace: Path) -> Path:
    return workspace / "audit" / "ledger.jsonl"


def sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def append(workspace: Path, entry: LedgerEntry) -> None:
    """One durable line (fsynced before this returns)."""
    append_line(ledger_path(workspace), entry.line())


def read_backwards(path: Path, block: int = BLOCK) -> Iterator[tuple[int, bytes, bool]]:
    """(byte offset, line without its newline, terminated?) from the last line to the first.

    Only the file's last line can be unterminated (a torn write); empty lines are skipped.
    """
    try:  # a FIFO or a directory raises NotRegularFile at once (the caller reports it)
        f = os.fdopen(open_regular(path), "rb")
    except (FileNotFoundError, NotADirectoryError):
        return
    with f:
        pos = f.seek(0, os.SEEK_END)
        rest, first, newline_seen = b"", True, False
        while pos > 0:
            size = min(block, pos)
            pos -= size
            f.seek(pos)
            buf = f.read(size) + rest
            parts = buf.split(b"\n")
            newline_seen |= len(parts) > 1
            starts, o = [], pos
            for p in parts:
                starts.append(o)
                o += len(p) + 1
            for i in range(len(parts) - 1, 0, -1):
                if parts[i]:
                    yield starts[i], parts[i], not (first and i == len(parts) - 1)
            if len(parts) > 1:
                first = False
            rest = parts[0]  # continues in the block before
        if rest:
            yield 0, rest, newline_seen


def now_utc() -> datetime:
    return datetime.now(UTC)
