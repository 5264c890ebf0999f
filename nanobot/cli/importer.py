"""``nanobot import FILE``: bring a conversation history from another assistant into sessions, then
index it for memory.

Formats (``nanobot/importing/``): ChatGPT's and Claude's data exports (``conversations.json``),
OpenAI-style message lists as JSON or JSONL, and a simple text format (``## 2026-03-01 10:00`` starts a
session, ``user: ...`` / ``assistant: ...`` lines). All sessions are written or none; then memory
indexes them (``--no-index``: the next chat or ``nanobot memory reindex`` does). On a terminal both
steps show a progress bar; piped, only their result lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from nanobot.base.safe_text import printable
from nanobot.config import load_settings

FORMATS = ("A ChatGPT or Claude export (conversations.json), a .json/.jsonl of OpenAI-style messages, "
           "or a text file ('## 2026-03-01 10:00', then 'user: ...' / 'assistant: ...' lines).")


def register(app: typer.Typer) -> None:
    @app.command(name="import")
    def import_(path: Path = typer.Argument(..., help=FORMATS),
                dry_run: bool = typer.Option(False, "--dry-run", help="Check the file; write nothing."),
                observe: bool = typer.Option(False, "--observe", help="Also have the model observe these sessions "
                                             "(a few per session end, or all at `nanobot reflect`); slow for many."),
                no_index: bool = typer.Option(False, "--no-index", help="Leave indexing to the next chat "
                                              "(it searches what is indexed while it goes on) or `nanobot memory reindex`.")) -> None:
        """Import conversations with their dates and titles as sessions, then index them for memory.
        ChatGPT exports: each conversation's active branch (edits and regenerations left out, counted)."""
        from nanobot.cli.term import console
        from nanobot.importing.detect import Skipped, read_sessions
        from nanobot.importing.importer import import_file

        skipped = Skipped()
        shown = sys.stdout.isatty() and sys.stderr.isatty()
        err = console(stderr=True)
        if dry_run:
            sessions = n = 0
            with _bytes_bar(err, "reading", shown) as follow:
                for s in read_sessions(path, skipped, follow):
                    sessions, n = sessions + 1, n + len(s.messages)
            typer.echo(f"{printable(str(path))}: {sessions} sessions, {n} messages{_left_out(skipped)}; "
                       "nothing written")
            return
        with _bytes_bar(err, "importing", shown) as follow:
            written = import_file(load_settings(), path, observe=observe, skipped=skipped, progress=follow)
        typer.echo(f"imported {len(written)} sessions from {printable(str(path))}: "
                   f"{written[0].stem} .. {written[-1].stem}{_left_out(skipped)}")
        typer.echo("they are searched as past conversations; the model observes them "
                   + ("at the next session ends or `nanobot reflect`" if observe
                      else "only if imported with --observe"))
        if no_index:
            return
        from nanobot.memory.commands import reindex_imported

        r = reindex_imported(err)
        if r is not None:
            typer.echo(f"indexed: {r.chunks:,} chunks in memory ({r.embedded:,} embedded) in {r.seconds:.1f}s")


def _left_out(skipped) -> str:
    if not skipped.branches:
        return ""
    return (f" ({skipped.messages:,} messages on {skipped.branches:,} other branches -- edits and "
            "regenerations -- left out)")


class _bytes_bar:
    """A rich bar in bytes on ``console`` when ``shown``; yields ``follow(done, total)``."""

    def __init__(self, console, label: str, shown: bool):
        self.console, self.label, self.shown = console, label, shown
        self.bar = None

    def __enter__(self):
        if not self.shown:
            return lambda done, total: None
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn(self.label), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                            console=self.console, transient=True)
        task = self.bar.add_task(self.label, total=None)
        self.bar.start()
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
