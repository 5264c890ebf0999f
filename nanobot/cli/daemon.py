"""``nanobot daemon``: fire due cron entries (the chat fires them too, while it runs)."""

from __future__ import annotations

import time
from datetime import datetime

import typer

from nanobot.config import load_settings
from nanobot.db import explain, is_damaged
from nanobot.safe_text import printable
from nanobot.tools.cron import fire_due
from nanobot.workspace import init_workspace


def register(app: typer.Typer) -> None:
    @app.command()
    def daemon(
        interval: float = typer.Option(30.0, "--interval", min=0.1, help="Seconds between checks."),
        once: bool = typer.Option(False, "--once", help="Check once, fire what is due, and exit."),
    ) -> None:
        """Fire due cron entries: print each reminder with its time. Ctrl-C stops."""
        settings = load_settings()
        init_workspace(settings.workspace)
        if not once:
            typer.echo(f"nanobot daemon: checking {settings.workspace / 'nanobot.db'} every {interval:g}s", err=True)
        while True:
            try:
                due = fire_due(settings)
            except Exception as e:  # nanobot.db holds the user's reminders: name it, never rebuild it
                if not is_damaged(e):
                    raise
                raise explain(e, settings.workspace / "nanobot.db", derived=False) from None
            for f in due:
                now = datetime.now().astimezone()
                typer.echo(f"{now:%Y-%m-%d %H:%M:%S} reminder #{f.id}: {printable(f.message)}")
            if once:
                return
            try:
                time.sleep(interval)
            except KeyboardInterrupt:
                return
