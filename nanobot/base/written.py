"""The record of files nanobot itself wrote (``$NANOBOT_HOME/state/observer.json``: ``written``).

Every writer of workspace files (the file tools, memory_add, the observer, the reflector) calls
``record_written`` after a successful write, so start-up change detection reports only what the user
or other programs changed. It lives low in the layer stack (atomic + pydantic only) so tools need not
import the observer.
"""

from __future__ import annotations

import threading
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular

_lock = threading.Lock()


class ObserverState(BaseModel):
    written: dict[str, int] = Field(default_factory=dict)  # workspace-relative path -> mtime_ns


def written_path(home: Path) -> Path:
    return home / "state" / "observer.json"


def load_written(home: Path) -> dict[str, int]:
    """Relative path -> the mtime_ns nanobot gave it; a missing or unreadable file gives {}."""
    try:
        return ObserverState.model_validate_json(read_regular(written_path(home))).written
    except (OSError, ValidationError, ValueError):
        return {}


def record_written(home: Path, workspace: Path, *files: Path) -> None:
    """Remember the mtime of files nanobot just wrote (thread-safe read-modify-write); files
    outside ``workspace`` are skipped."""
    with _lock:
        state = ObserverState(written=load_written(home))
        changed = False
        for f in files:
            try:
                rel = str(Path(f).resolve().relative_to(workspace.resolve()))
                state.written[rel] = Path(f).stat().st_mtime_ns
                changed = True
            except (OSError, ValueError):
                continue
        if changed:
            atomic_write(written_path(home), state.model_dump_json(indent=1))
