"""SIGHUP (terminal closed) and SIGTERM (shutdown, systemd, kill) end a chat like /quit.

``install`` makes both raise ``SessionSignal`` in the main thread, wherever it is (the prompt, a
streaming reply): a ``KeyboardInterrupt`` subclass, so asyncio (prompt_toolkit) and ``Agent.turn``
treat it like Ctrl-C (a partial reply is recorded) while ``ChatUI`` ends the session with reason
"hangup" / "terminate". ``watchdog`` bounds what follows: the observer's model gets ``soft_s``
seconds (then it is interrupted and the extractive fallback draft is written); at ``hard_s`` the
transcript gets its "session end" record and the process exits 0, whatever is still running.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

from nanobot.base import interruptible

REASONS = {signal.SIGHUP: "hangup", signal.SIGTERM: "terminate"}
SOFT_S = 20.0  # the observer's model may run this long after the signal
HARD_S = 40.0  # then everything: transcript closed, process gone


class SessionSignal(KeyboardInterrupt):
    """The session must end now (a signal); ``reason`` is what the transcript records."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def install() -> None:
    for sig in REASONS:
        signal.signal(sig, _raise)
    # Ctrl-C is part of the chat's interface (stop a reply, end the session): a SIGINT the parent left
    # ignored (a job started in the background of a script, a test runner's worker) would leave the
    # chat deaf to it, and an ignored disposition is inherited across exec
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _raise(signum, frame) -> None:
    for sig in REASONS:  # one is enough: a second must not cut the session end short
        signal.signal(sig, signal.SIG_IGN)
    if signum == signal.SIGHUP:  # the terminal is gone: writing to it would fail (EIO)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    raise SessionSignal(REASONS[signal.Signals(signum)])


def watchdog(close: Callable[[], None], soft_s: float = SOFT_S, hard_s: float = HARD_S) -> Callable[[], None]:
    """Bound the session end; returns ``cancel``. At ``soft_s`` a model still drafting the
    observation is interrupted (SIGALRM raises KeyboardInterrupt inside an ``interruptible()``
    region only: the observer's draft, which falls back); at ``hard_s`` ``close()`` runs and the process exits 0. ``cancel`` stops the
    soft bound only."""
    def alarm(signum, frame) -> None:
        if interruptible.now():
            raise KeyboardInterrupt
        signal.setitimer(signal.ITIMER_REAL, 0.2)  # not drafting now: look again shortly

    def hard() -> None:
        try:
            close()
        finally:
            os._exit(0)

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, soft_s)
    timer = threading.Timer(hard_s, hard)
    timer.daemon = True
    timer.start()

    def cancel(hard: bool = False) -> None:  # the hard bound stays by default: it covers the exit too
        signal.setitimer(signal.ITIMER_REAL, 0)
        if hard:
            timer.cancel()
    return cancel
