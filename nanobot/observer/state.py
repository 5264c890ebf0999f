"""Small JSON state files of the observer and reflector (``$NANOBOT_HOME/state/``), written atomically.

``ObserverState.written`` remembers the mtime nanobot gave each workspace file it wrote (CONTEXT.md,
MEMORY.md), so external change detection can tell the user's edits from nanobot's own.
``ReflectorState`` records which observation parts were crystallized and which MEMORY.md lines the
reflector wrote (lines not listed there are the user's and are never removed).
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError

from nanobot.atomic import atomic_write

_lock = threading.Lock()
M = TypeVar("M", bound=BaseModel)


class ObserverState(BaseModel):
    written: dict[str, int] = Field(default_factory=dict)  # workspace-relative path -> mtime_ns


class ReflectorState(BaseModel):
    processed: dict[str, int] = Field(default_factory=dict)  # observation file -> parts reflected
    lines: list[str] = Field(default_factory=list)  # MEMORY.md bullets the reflector wrote
    last_run: datetime | None = None


def state_path(home: Path, name: str) -> Path:
    return home / "state" / f"{name}.json"


def load_state(path: Path, cls: type[M]) -> M:
    """The state in ``path``; a missing or unreadable file gives a fresh state (it is a cache of
    facts that can be rebuilt, never the only copy of user data)."""
    try:
        return cls.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return cls()


def save_state(path: Path, state: BaseModel) -> None:
    atomic_write(path, state.model_dump_json(indent=1))


def record_written(home: Path, workspace: Path, *files: Path) -> None:
    """Remember the mtime of files nanobot just wrote (thread-safe read-modify-write)."""
    with _lock:
        path = state_path(home, "observer")
        state = load_state(path, ObserverState)
        for f in files:
            try:
                state.written[str(f.relative_to(workspace))] = f.stat().st_mtime_ns
            except (OSError, ValueError):
                continue
        save_state(path, state)
