"""The features' own commands (``nanobot memory``, ``reflect``, ``vault``, ``backfill-summaries``,
``chats``, ``consolidate``, ``session``): each feature package's ``commands.register_commands(app,
cli)``, found through ``runtime.FEATURES`` (``runtime.register_commands``), so the CLI imports no
feature's internals. ``Lent`` is the ``cli`` they get (``core.features.Cli``)."""

from __future__ import annotations

import typer

from nanobot.cli.term import console, echo


class Lent:
    """What the CLI lends a feature's commands: the model loader, the chat loop, safe printing."""

    echo = staticmethod(echo)
    console = staticmethod(console)

    @staticmethod
    def load_model(settings, model: str | None = None, vocab_only: bool = False):
        from nanobot.runtime import load_model

        return load_model(settings, model, vocab_only=vocab_only)

    @staticmethod
    def chat(settings, model: str | None, verbose: bool, *, coding_session: str = "") -> None:
        from nanobot.cli.chat import run_chat

        run_chat(settings, model, verbose, coding_session=coding_session)


def register(app: typer.Typer) -> None:
    from nanobot.runtime import register_commands

    register_commands(app, Lent())
