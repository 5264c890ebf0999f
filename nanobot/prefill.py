"""Prefill while the user types: evaluate the next turn's known prefix in the background.

After the prompt is shown (session start, and after every reply) the next turn's prompt is known up to
the user's words: system prompt + history + the user-message header. ``Prefill.start`` evaluates that
prefix on a background thread, a chunk of tokens at a time. While the user types, the front end passes
the draft (``Agent.prefill(draft)``): after a short pause in typing, the draft's memory block and the
words typed so far are evaluated too, so after Enter only the last words (and the per-turn block, if the
final words changed what memory retrieval finds) are left to evaluate.

``start`` never blocks the caller (a keystroke): it cancels the running prefill and queues the new one
behind it. ``stop`` cancels between chunks and waits (at most one chunk), so the KV cache is never touched
by two threads: every use of the model goes through ``Agent``, which stops the prefill first. Models
without ``prefill`` (scripted, remote) are left alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from nanobot import background
from nanobot.backends.base import Message

PROBES = ("a", "Z 1", "\n")  # user contents whose renderings share exactly the fixed prefix
DEBOUNCE_S = 0.15  # a draft is prefilled once typing pauses this long


def known_prefix(model, messages: list[Message], lead: str = "") -> list[int]:
    """Tokens the next turn's prompt starts with whatever the user types after ``lead`` (minus one
    boundary token).

    ``messages`` is [system, *history]; the user message ``lead`` + a few probe contents is appended and
    the common token prefix of their renderings is what any message starting with ``lead`` will share.
    """
    runs = [model.tokenize_prompt(model.render([*messages, Message(role="user", content=lead + p)]))
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
        self.draft: tuple[object, str] | None = None  # (key, memory block) of the last draft looked up

    @staticmethod
    def supported(model) -> bool:
        return callable(getattr(model, "prefill", None))

    def start(self, messages: list[Message] | Callable[[], list[int]], delay: float = 0.0) -> None:
        """Prefill ``messages``' known prefix, or the tokens ``messages()`` returns (computed on the
        prefill thread), after ``delay`` seconds unless superseded; returns at once."""
        if not callable(messages):
            self.draft = None  # a new turn's prefix: an earlier draft's lookup is stale
        tokens = messages if callable(messages) else (lambda: known_prefix(self.model, messages))
        self._cancel.set()  # the running one stops at its next chunk; the new one waits for it
        cancel = self._cancel = threading.Event()
        self._thread = background.start(self._run, "nanobot-prefill", (tokens, cancel, self._thread, delay))

    def _run(self, tokens: Callable[[], list[int]], cancel: threading.Event,
             previous: threading.Thread | None, delay: float) -> None:
        if previous is not None:
            previous.join()
        if cancel.wait(delay) if delay else cancel.is_set():
            return  # superseded (a newer keystroke) or stopped before it began
        t0 = time.perf_counter()
        self.evaluated, self.error = 0, ""
        try:
            wanted = tokens()
            if not cancel.is_set():
                self.evaluated = self.model.prefill(wanted, cancel)
        except Exception as e:  # never the session's problem: the turn evaluates what is missing
            self.error = f"{type(e).__name__}: {e}"
        self.seconds = time.perf_counter() - t0

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Let the queued prefill finish (tests, benchmarks)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """Cancel (between chunks) and wait until the model is free again."""
        if self._thread is not None:
            self._cancel.set()
            self._thread.join()
            self._thread = None
