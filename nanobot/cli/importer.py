"""``nanobot import FILE``: bring a conversation history from another assistant into sessions.

Formats (``nanobot/importing/formats.py``): OpenAI-style message lists as JSON or JSONL, and a simple text
format (``## 2026-03-01 10:00`` starts a session, ``user: ...`` / ``assistant: ...`` lines). All
sessions are written or none; memory then finds them as past conversations.
"""

from __future__ import annotations

from pathlib import Path

import typer

from nanobot.base.safe_text import printable
from nanobot.config import load_settings


def register(app: typer.Typer) -> None:
    @app.command(name="import")
    def import_(path: Path = typer.Argument(..., help="A .json, .jsonl or text file of conversations."),
                dry_run: bool = typer.Option(False, "--dry-run", help="Check the file; write nothing."),
                observe: bool = typer.Option(False, "--observe", help="Also have the model observe these sessions "
                                             "(a few per session end, or all at `nanobot reflect`); slow for many.")) -> None:
        """Import conversations (with their dates) as sessions: JSON/JSONL message lists or the text format
        ('## 2026-03-01 10:00', then 'user: ...' / 'assistant: ...' lines)."""
        from nanobot.importing.detect import parse_file
        from nanobot.importing.importer import import_file

        if dry_run:
            sessions = parse_file(path)
            n = sum(len(s.messages) for s in sessions)
            typer.echo(f"{printable(str(path))}: {len(sessions)} sessions, {n} messages; nothing written")
            return
        written = import_file(load_settings(), path, observe=observe)
        typer.echo(f"imported {len(written)} sessions from {printable(str(path))}: "
                   f"{written[0].stem} .. {written[-1].stem}")
        typer.echo("they are searched as past conversations; the model observes them "
                   + ("at the next session ends or `nanobot reflect`" if observe
                      else "only if imported with --observe"))
