"""``nanobot housekeep``: the detached child a chat starts at exit (``nanobot/housekeeping/housekeep.py``).

Not meant to be typed: it observes the queued sessions, recovers past ones, reflects when due, and
logs one line per step (the chat sends its output to ``$NANOBOT_HOME/logs/housekeep.log``).
"""

from __future__ import annotations

from datetime import datetime

import typer

from nanobot.base.safe_text import printable
from nanobot.cli.term import echo
from nanobot.config import load_settings


def register(app: typer.Typer) -> None:
    @app.command(hidden=True)
    def housekeep(
        model: str = typer.Option(..., "--model", help="The GGUF the sessions ran (name or path)."),
        exclude: str = typer.Option("", "--exclude", help="A live session id recovery must skip."),
        reflect: bool = typer.Option(False, "--reflect", help="Reflect into MEMORY.md when due."),
    ) -> None:
        """Observe queued sessions, recover past ones, reflect when due (low priority, one at a time)."""
        from nanobot.housekeeping.housekeep import work

        settings = load_settings()

        def say(line: str) -> None:
            echo(f"{datetime.now().astimezone():%Y-%m-%d %H:%M:%S} {printable(line, keep='')}")

        work(settings, model, say, exclude=exclude, reflect=reflect)
