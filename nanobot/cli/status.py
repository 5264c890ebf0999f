"""``nanobot status``: background work of this NANOBOT_HOME: the housekeeping child running now,
sessions queued for it, past sessions still without an observation, and its log's last lines."""

from __future__ import annotations

import typer

from nanobot.cli.term import echo
from nanobot.config import load_settings
from nanobot.safe_text import printable


def register(app: typer.Typer) -> None:
    @app.command()
    def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
        """Show pending and running background work (observations, reflection)."""
        from nanobot.housekeep import report

        st = report(load_settings())
        if as_json:
            echo(st.model_dump_json(indent=1))
            return
        running = f"running (pid {st.running})" if st.running else "idle"
        echo(f"housekeeping: {running}")
        echo(f"queued observations: {len(st.queued)}" + "".join(f"\n  {s}" for s in st.queued))
        echo(f"sessions without an observation: {len(st.pending)}"
                   + "".join(f"\n  {s}" for s in st.pending[-5:]))
        echo(f"log: {st.log}")
        for line in st.last_lines:
            echo(f"  {printable(line, keep='')}")
