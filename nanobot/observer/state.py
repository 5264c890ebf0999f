"""Small JSON state files of the observer and reflector (``$NANOBOT_HOME/state/``), written atomically.

``ObserverState.written`` (nanobot/base/written.py) remembers the mtime nanobot gave each workspace file it wrote (CONTEXT.md,
MEMORY.md), so external change detection can tell the user's edits from nanobot's own.
``ReflectorState`` records which observation parts were crystallized and which MEMORY.md lines the
reflector wrote (lines not listed there are the user's and are never removed).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError

from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.base.written import ObserverState, record_written  # noqa: F401 (re-exported)

M = TypeVar("M", bound=BaseModel)


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
        return cls.model_validate_json(read_regular(path))
    except (OSError, ValidationError, ValueError):
        return cls()


def save_state(path: Path, state: BaseModel) -> None:
    atomic_write(path, state.model_dump_json(indent=1))
