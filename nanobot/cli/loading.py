"""The interactive chat's start-up off the person's path: the prompt is shown first, the model loads
behind it.

``Loading(build)`` runs ``build()`` (load the GGUF, build the agent, start the session: seconds for a
1.5B model) on a background thread, started by ``start()`` once the prompt is on the screen (before
that, its imports would hold the interpreter lock against the prompt's own); the person types while
it runs. Whatever needs the agent (Enter, a slash command, Ctrl-D) calls ``get()``, which waits for the
thread and hands back the agent or raises what ``build`` raised (a bad model file: the usual one-line
error). Events ``build`` produced (session-start notices) are kept for the chat to show.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Loading:
    def __init__(self, build: Callable[[], Any]):
        self._build = build
        self._agent: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nanobot-load", daemon=True)

    def start(self) -> None:
        """Begin building (idempotent)."""
        if not self._thread.is_alive() and not self._done.is_set():
            try:
                self._thread.start()
            except RuntimeError:  # already started
                pass

    def _run(self) -> None:
        try:
            self._agent = self._build()
        except BaseException as e:  # handed to the main thread by get()
            self._error = e
        finally:
            self._done.set()

    @property
    def ready(self) -> bool:
        """True once the agent is built (or building it failed)."""
        return self._done.is_set()

    def get(self) -> Any:
        """The agent, once built (waits for it; starts it if the prompt never did); re-raises the
        build's error."""
        self.start()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._agent
