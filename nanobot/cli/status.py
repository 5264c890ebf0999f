"""``nanobot status``: background work of this NANOBOT_HOME: the housekeeping child running now,
sessions queued for it, past sessions still without an observation, its log's last lines, and each
chat's last consolidation with whether tonight's job will read it."""

from __future__ import annotations

import json
from datetime import datetime

import typer

from nanobot.config import load_settings
from nanobot.safe_text import printable


def register(app: typer.Typer) -> None:
    @app.command()
    def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
        """Show pending and running background work (observations, reflection)."""
        from nanobot.chats.nightly import chat_status
        from nanobot.housekeep import report

        settings = load_settings()
        st = report(settings)
        chats = chat_status(settings, datetime.now().astimezone())
        if as_json:
            typer.echo(json.dumps({**st.model_dump(mode="json"),
                                   "chats": [c.model_dump(mode="json") for c in chats]}, indent=1))
            return
        running = f"running (pid {st.running})" if st.running else "idle"
        typer.echo(f"housekeeping: {running}")
        typer.echo(f"queued observations: {len(st.queued)}" + "".join(f"\n  {s}" for s in st.queued))
        typer.echo(f"sessions without an observation: {len(st.pending)}"
                   + "".join(f"\n  {s}" for s in st.pending[-5:]))
        typer.echo(f"log: {st.log}")
        for line in st.last_lines:
            typer.echo(f"  {printable(line, keep='')}")
        typer.echo(f"chats: {len(chats)}" + "".join(f"\n  {printable(c.line(), keep='')}" for c in chats))
