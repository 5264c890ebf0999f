"""A chat in the foreground comes first: background housekeeping yields to the person.

The interactive chat is *busy* while it loads the model and while a turn runs (Enter to the end of
the reply): ``busy(home)`` holds a file ``$NANOBOT_HOME/state/foreground/<pid>`` for that time. It is
*typing* while a draft is being prefilled (``typing(home)`` touches ``<pid>.typing`` at every draft;
the turn, an emptied draft or ``TYPING_S`` without a keystroke ends it): the child's model streams the
weights through the same memory as the chat's prefill, which ran at half speed beside it. The
``nanobot housekeep`` child (the last sessions' observations, recovery, reflection) runs at idle CPU
priority (``lower_priority``: SCHED_IDLE, so any runnable foreground thread gets the cores first) and
waits while any chat is busy (``wait_while_busy``), before each job and at every token it generates
and between the 32-token chunks of its prompt (``Yielding``): it pauses where it is and goes on
afterwards, so nothing is dropped; its job file
stays until the observation is written. A file whose process is gone (a chat killed mid-turn) counts
for nothing and is removed by the next reader.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TYPING_S = 30.0  # a draft left this long without a keystroke no longer holds housekeeping back
CHUNK = 32  # the child's prompt is evaluated this many tokens at a time, yielding between
NICE = 19  # the housekeeping child's nice value, from its exec on (``observer.handoff.spawn``)


def _dir(home: Path) -> Path:
    return Path(home) / "state" / "foreground"


def typing(home: Path, on: bool = True) -> None:
    """Mark (``on``) or unmark this process's chat as typing a draft (never fails the chat)."""
    path = _dir(home) / f"{os.getpid()}.typing"
    with contextlib.suppress(OSError):
        if on:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        else:
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


@contextlib.contextmanager
def busy(home: Path) -> Iterator[None]:
    """Mark this process's chat busy for the ``with`` block (never fails the chat)."""
    path = _dir(home) / str(os.getpid())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:
        pass
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


def active(home: Path) -> bool:
    """Whether some other live process's chat is busy now."""
    try:
        entries = list(_dir(home).iterdir())
    except OSError:
        return False
    found = False
    for entry in entries:
        pid, _, kind = entry.name.partition(".")
        if not pid.isdigit() or int(pid) == os.getpid() or kind not in ("", "typing"):
            continue
        if not _alive(int(pid)):
            with contextlib.suppress(OSError):
                entry.unlink()
        elif kind == "":
            found = True
        else:
            with contextlib.suppress(OSError):
                found = found or time.time() - entry.stat().st_mtime < TYPING_S
    return found


def wait_while_busy(home: Path, poll: float = 0.2) -> float:
    """Sleep while a chat is busy; returns the seconds waited."""
    start = time.monotonic()
    while active(home):
        time.sleep(poll)
    return time.monotonic() - start


def lower_priority(nice: int = NICE) -> str:
    """Idle CPU priority for this process (threads started later inherit it); what was set."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(max(0, nice - os.nice(0)))
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return "SCHED_IDLE"
    except (OSError, AttributeError):  # not Linux: nice alone
        return f"nice {os.nice(0)}"


class Yielding:
    """``model`` whose ``stream`` waits while a chat is busy: before it starts and at every token."""

    def __init__(self, model: Any, home: Path):
        self._model, self._home = model, home
        self.inner = model  # the model itself (what needs its type: the disk KV cache)
        self.waited = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def stream(self, messages, **kw: Any) -> Iterator[str]:
        self.waited += wait_while_busy(self._home)
        self._prefill(messages, kw)
        pieces = self._model.stream(messages, **kw)
        try:
            for piece in pieces:
                yield piece
                self.waited += wait_while_busy(self._home)
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()

    def _prefill(self, messages, kw: dict) -> None:
        """The prompt evaluated ``CHUNK`` tokens at a time, waiting while a chat is busy before each
        (a model without ``prefill`` evaluates it in ``stream``, as one llama.cpp batch run to its end)."""
        model = self._model
        if not all(hasattr(model, a) for a in ("prefill", "render", "tokenize_prompt")):
            return
        tokens = model.tokenize_prompt(model.render(messages, tools=kw.get("tools")) + kw.get("prefill", ""))
        model.prefill(tokens, _Waiting(self), chunk=CHUNK)


class _Waiting:
    """The ``cancel`` of ``Yielding``'s prefill: never set; while a chat is busy, it waits."""

    def __init__(self, owner: Yielding):
        self.owner = owner

    def is_set(self) -> bool:
        self.owner.waited += wait_while_busy(self.owner._home)
        return False
