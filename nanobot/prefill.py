"""Prefill while the user types: evaluate the next turn's known prefix in the background.

After the prompt is shown (session start, and after every reply) the next turn's prompt is known up to
the user's words: system prompt + history + the user-message header. ``Prefill.start`` evaluates that
prefix on a background thread, a chunk of tokens at a time, so after Enter only the per-turn block and
the user's words are left to evaluate. ``stop`` cancels between chunks and waits (at most one chunk),
so the KV cache is never touched by two threads: every use of the model goes through ``Agent``, which
stops the prefill first. Models without ``prefill`` (scripted, remote) are left alone.

Idle work (``Feature.idle_work``: the observer's 80% observation) runs on the same thread before the
prefix, so the model still has one user at a time. A job gets this ``Prefill``: it checks ``cancelled()``
and may choose to finish what it has started (it sets ``finishing`` to the notice the next turn shows
while it waits).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from nanobot import background
from nanobot.backends.base import Message

PROBES = ("a", "Z 1", "\n")  # user contents whose renderings share exactly the fixed prefix


def known_prefix(model, messages: list[Message]) -> list[int]:
    """Tokens the next turn's prompt starts with whatever the user types (minus one boundary token).

    ``messages`` is [system, *history]; the user message is appended with a few probe contents and
    the common token prefix of their renderings is what any message will share.
    """
    runs = [model.tokenize_prompt(model.render([*messages, Message(role="user", content=p)]))
            for p in PROBES]
    n = 0
    while all(n < len(r) for r in runs) and len({r[n] for r in runs}) == 1:
        n += 1
    return runs[0][: max(0, n - 1)]


class Prefill:
    def __init__(self, model):
        self.model = model
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.evaluated = 0  # tokens the last prefill evaluated
        self.seconds = 0.0
        self.error = ""
        self.finishing = ""  # set by idle work that finishes after a cancel: what the turn waits for
        self.abandoned = False

    @staticmethod
    def supported(model) -> bool:
        return callable(getattr(model, "prefill", None))

    def start(self, messages: list[Message], before: list[Callable[[Prefill], None]] = (),
              prefix: bool = True) -> None:
        """Run the ``before`` jobs, then (``prefix``) evaluate the next turn's known prefix."""
        self.stop()
        self._cancel.clear()
        self.evaluated, self.seconds, self.error, self.finishing = 0, 0.0, "", ""
        self.abandoned = False
        self._thread = background.start(self._run, "nanobot-prefill", (messages, list(before), prefix))

    def _run(self, messages: list[Message], before: list, prefix: bool) -> None:
        for job in before:
            if self._cancel.is_set():
                return
            try:
                job(self)
            except Exception as e:  # idle work reports its own failures; this is a last resort
                self.error = f"{type(e).__name__}: {e}"
        if not prefix or self._cancel.is_set():
            return
        t0 = time.perf_counter()
        try:
            self.evaluated = self.model.prefill(known_prefix(self.model, messages), self._cancel)
        except Exception as e:  # never the session's problem: the turn evaluates what is missing
            self.error = f"{type(e).__name__}: {e}"
        self.seconds = time.perf_counter() - t0

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, abandon: bool = False) -> None:
        """Cancel (between chunks) and wait until the model is free again; ``abandon``: idle work
        must not finish what it started either (the session is ending)."""
        if self._thread is not None:
            self.abandoned = abandon
            self._cancel.set()
            self._thread.join()
            self._thread = None

    def cancel(self, grace: float = 0.2) -> str:
        """Ask the thread to stop; after ``grace`` s, what it is finishing ("" when it stopped)."""
        if self._thread is None:
            return ""
        self._cancel.set()
        self._thread.join(grace)
        return self.finishing if self._thread.is_alive() else ""
