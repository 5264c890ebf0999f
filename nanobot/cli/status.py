"""``nanobot status``: background work of this NANOBOT_HOME: the housekeeping child running now,
sessions queued for it, past sessions still without an observation, its log's last lines, and each
chat's last consolidation with whether tonight's job will read it."""

from __future__ import annotations

import json
from datetime import datetime

import typer

from nanobot.base.safe_text import printable
from nanobot.cli.term import echo
from nanobot.config import load_settings


def register(app: typer.Typer) -> None:
    @app.command()
    def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
        """Show pending and running background work (observations, reflection)."""
        from nanobot.chats.nightly import chat_status
        from nanobot.housekeeping.housekeep import report

        settings = load_settings()
        st = report(settings)
        chats = chat_status(settings, datetime.now().astimezone())
        if as_json:
            echo(json.dumps({**st.model_dump(mode="json"),
                                   "chats": [c.model_dump(mode="json") for c in chats]}, indent=1))
            return
        running = f"running (pid {st.running})" if st.running else "idle"
        echo(f"housekeeping: {running}")
        echo(f"queued observations: {len(st.queued)}" + "".join(f"\n  {s}" for s in st.queued))
        echo(f"sessions without an observation: {len(st.pending)}"
                   + "".join(f"\n  {s}" for s in st.pending[-5:]))
        echo(f"log: {st.log}")
        for line in st.last_lines:
            echo(f"  {printable(line, keep='')}")
        echo(f"chats: {len(chats)}" + "".join(f"\n  {printable(c.line(), keep='')}" for c in chats))
