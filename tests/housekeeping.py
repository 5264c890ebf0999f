"""Waiting for the detached housekeeping child (``nanobot/housekeeping/housekeep.py``): a chat's observation is
written by ``nanobot housekeep`` after the chat has exited, so a test that checks it waits here."""

from __future__ import annotations

import re
import time
from pathlib import Path

from nanobot.housekeeping.housekeep import log_path


def spawned(home: Path) -> list[int]:
    """The pids of every child started for ``home`` (the chat logs each as it starts it)."""
    log = log_path(home)
    text = log.read_text(errors="replace") if log.exists() else ""
    return [int(p) for p in re.findall(r"spawned pid (\d+)", text)]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has finished


def wait_housekept(home: Path, timeout: float = 180) -> str:
    """Wait until every housekeeping child of ``home`` has exited (a child paused at a fault point,
    ``NANOBOT_FAULT=...:pause``, is let go on); returns the log's text."""
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in spawned(home)):
        assert time.monotonic() < deadline, f"housekeeping still running after {timeout}s: {log_text(home)}"
        for gate in home.glob("fault-*.paused"):  # a paused child (NANOBOT_FAULT=...:pause) goes on
            gate.unlink(missing_ok=True)
        time.sleep(0.1)
    return log_text(home)


def log_text(home: Path) -> str:
    log = log_path(home)
    return log.read_text(errors="replace") if log.exists() else ""
