"""Replies that cannot end early, for the tests that interrupt a reply (Ctrl-C, a server killed
mid-reply): a plain reply (one asked for without a grammar) is sampled under ``GRAMMAR``, which
admits no end before ``MIN_CHARS`` characters, so the interruption always lands mid-reply whatever
the model would have said. Everything else (the real model, the real CLI) is untouched.

In process: ``LongReplies(model)``. A CLI subprocess: ``[*CLI, "chat"]`` instead of
``[sys.executable, "-m", "nanobot", "chat"]`` (run with cwd = the repository root). Turn the loop
guard off too (``NANOBOT_CHAT__LOOP_GUARD=false``): a forced reply may repeat itself.
"""

from __future__ import annotations

import sys

MIN_CHARS = 400
GRAMMAR = f'root ::= [A-Za-z] [A-Za-z ,.]{{{MIN_CHARS - 1},}}'
CLI = [sys.executable, "-c", "from tests.longreply import cli; cli()"]


def _forced(kw: dict) -> dict:
    return kw if kw.get("grammar") else kw | {"grammar": GRAMMAR}


class LongReplies:
    """Wraps a backend; its plain replies are at least ``MIN_CHARS`` long (or cut by max_tokens)."""

    def __init__(self, model):
        object.__setattr__(self, "_model", model)

    def __getattr__(self, name):
        return getattr(self._model, name)

    def __setattr__(self, name, value):
        setattr(self._model, name, value)

    def stream(self, messages, **kw):
        return self._model.stream(messages, **_forced(kw))


def cli() -> None:
    """``python -m nanobot`` with the bundled backend's plain replies forced long."""
    from nanobot.backends.llama import LlamaBackend

    stream = LlamaBackend.stream
    LlamaBackend.stream = lambda self, messages, **kw: stream(self, messages, **_forced(kw))
    sys.argv = ["nanobot", *sys.argv[1:]]
    from nanobot.cli import main

    main()
