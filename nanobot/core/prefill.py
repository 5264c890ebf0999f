"""Prefill while the user types: evaluate the next turn's known prefix in the background.

After the prompt is shown (session start, and after every reply) the next turn's prompt is known up to
the user's words: system prompt + history + the user-message header. ``Prefill.start`` evaluates that
prefix on a background thread, a chunk of tokens at a time. While the user types, the front end passes
the draft (``Agent.prefill(draft)``): after a short pause in typing, the draft's memory block and the
words typed so far are evaluated too, so after Enter only the last words (and the per-turn block, if the
final words changed what memory retrieval finds) are left to evaluate; then the draft's judgements that a
turn's first step asks before the reply (``Agent.judge_draft``), which the turn takes when the message
sent is the draft.

``start`` never blocks the caller (a keystroke): the running prefill is superseded (it stops between
chunks) and the new one is queued behind it. ``stop`` cancels and waits (at most one chunk), so the KV
cache is never touched by two threads: every use of the model goes through ``Agent``, which stops the
prefill first. Models without ``prefill`` (scripted, remote) are left alone.

Idle work (``Feature.idle_work``: the observer's 80% observation) runs on the same thread before the
prefix, so the model still has one user at a time. A newer draft does not stop it (typing is not
sending): only ``cancel``/``stop`` do. A job gets this ``Prefill``: it checks ``cancelled()`` and may
choose to finish what it has started (it sets ``finishing`` to the notice the next turn shows while it
waits; ``abandoned`` says the session is ending).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from nanobot.backends.base import Message, abilities
from nanobot.base import background

PROBES = ("a", "Z 1", "\n")  # user contents whose renderings share exactly the fixed prefix
DEBOUNCE_S = 0.15  # a draft is prefilled once typing pauses this long
SETTLE_S = 0.5  # and judged once it pauses this long (at 60 wpm keys come ~0.2 s apart: a step a key
# supersedes would only delay the next prefill, and an Enter right after the last key)
Job = Callable[["Prefill"], None]
After = Callable[["Prefill", threading.Event], None]  # a draft's judgements, told when to stop


def known_prefix(model, messages: list[Message], lead: str = "", tools: list[dict] | None = None) -> list[int]:
    """Tokens the next turn's prompt starts with whatever the user types after ``lead`` (minus one
    boundary token).

    ``messages`` is [system, *history]; the user message ``lead`` + a few probe contents is appended and
    the common token prefix of their renderings is what any message starting with ``lead`` will share.
    ``tools``: rendered as the turn's first call renders them (template tool calls).
    """
    extra = {"tools": tools} if tools else {}
    runs = [model.tokenize_prompt(model.render([*messages, Message(role="user", content=lead + p)], **extra))
            for p in PROBES]
    n = 0
    while all(n < len(r) for r in runs) and len({r[n] for r in runs}) == 1:
        n += 1
    return runs[0][: max(0, n - 1)]


class Prefill:
    def __init__(self, model):
        self.model = model
        self._hard = threading.Event()  # the user sent / the session ends: idle work stops too
        self._skip = threading.Event()  # the latest run's prefix stops (superseded or cancelled)
        self._thread: threading.Thread | None = None
        self.evaluated = 0  # tokens the last prefill evaluated
        self.seconds = 0.0
        self.error = ""
        self.draft: tuple[object, str] | None = None  # (key, memory block) of the last draft looked up
        self.judged: tuple[object, dict] | None = None  # (key, judgements) of the last draft, set by ``after``
        self.finishing = ""  # set by idle work that finishes after a cancel: what the turn waits for
        self.abandoned = False

    @staticmethod
    def supported(model) -> bool:
        return abilities(model).prefill

    def start(self, messages: list[Message] | Callable[[], list[int]], delay: float = 0.0,
              before: list[Job] | tuple = (), prefix: bool = True, tools: list[dict] | None = None,
              after: After | None = None) -> None:
        """Run the ``before`` jobs, then (``prefix``) prefill ``messages``' known prefix, or the tokens
        ``messages()`` returns (computed on the prefill thread), after ``delay`` s unless superseded, then
        ``after`` (a draft's judgements, given the event that says stop) once typing has paused
        ``SETTLE_S``, unless superseded meanwhile. Returns at once."""
        if not callable(messages):
            self.draft = None  # a new turn's prefix: an earlier draft's lookup is stale
        if before:
            self.finishing, self.abandoned = "", False
        tokens = messages if callable(messages) else (lambda: known_prefix(self.model, messages, tools=tools))
        self._skip.set()  # the running one stops its prefix at the next chunk; the new one waits for it
        skip = self._skip = threading.Event()
        due = time.monotonic() + delay  # the pause counts from the keystroke, not from the chunk's end
        self._thread = background.start(self._run, "nanobot-prefill",  # derived: a cache's warmth
                                        (tokens, skip, self._thread, due, list(before), prefix, after,
                                         due - delay + SETTLE_S), derived=True)

    def _run(self, tokens: Callable[[], list[int]], skip: threading.Event,
             previous: threading.Thread | None, due: float, before: list[Job], prefix: bool,
             after: After | None = None, settled: float = 0.0) -> None:
        if previous is not None:
            previous.join()
        rest = due - time.monotonic()
        if skip.wait(rest) if rest > 0 else skip.is_set():
            return  # superseded (a newer keystroke) or stopped before it began
        for job in before:
            if self._hard.is_set():
                return
            try:
                job(self)
            except Exception as e:  # idle work reports its own failures; this is a last resort
                self.error = f"{type(e).__name__}: {e}"
        if not prefix or skip.is_set():
            return
        t0 = time.perf_counter()
        self.evaluated, self.error = 0, ""
        try:
            wanted = tokens()
            if not skip.is_set():
                self.evaluated = self.model.prefill(wanted, skip)
            rest = settled - time.monotonic()
            if after is not None and not (skip.wait(rest) if rest > 0 else skip.is_set()):
                after(self, skip)
        except Exception as e:  # never the session's problem: the turn evaluates what is missing
            self.error = f"{type(e).__name__}: {e}"
        self.seconds = time.perf_counter() - t0

    def cancelled(self) -> bool:
        return self._hard.is_set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Let the queued prefill finish (tests, benchmarks)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def cancel(self, grace: float = 0.2) -> str:
        """Ask the thread to stop; after ``grace`` s, what it is finishing ("" when it stopped)."""
        if self._thread is None:
            return ""
        self._hard.set()
        self._skip.set()
        self._thread.join(grace)
        return self.finishing if self._thread.is_alive() else ""

    def stop(self, abandon: bool = False, wait: bool = True) -> None:
        """Cancel (between chunks) and wait until the model is free again; ``abandon``: idle work
        must not finish what it started either (the session is ending). ``wait=False`` (the process
        is about to exit): cancel, do not wait; the thread is left to the exit."""
        if self._thread is not None:
            self.abandoned = abandon
            self._hard.set()
            self._skip.set()
            if not wait:
                self._thread = None
                return
            self._thread.join()
            self._thread = None
        self._hard.clear()
