"""``nanobot status``: background work of this NANOBOT_HOME: the housekeeping child running now,
sessions queued for it, past sessions still without an observation, and its log's last lines."""

from __future__ import annotations

import typer

from nanobot.config import load_settings
from nanobot.safe_text import printable


def register(app: typer.Typer) -> None:
    @app.command()
    def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
        """Show pending and running background work (observations, reflection)."""
        from nanobot.housekeep import report

        st = report(load_settings())
        if as_json:
            typer.echo(st.model_dump_json(indent=1))
            return
        running = f"running (pid {st.running})" if st.running else "idle"
        typer.echo(f"housekeeping: {running}")
        typer.echo(f"queued observations: {len(st.queued)}" + "".join(f"\n  {s}" for s in st.queued))
        typer.echo(f"sessions without an observation: {len(st.pending)}"
                   + "".join(f"\n  {s}" for s in st.pending[-5:]))
        typer.echo(f"log: {st.log}")
        for line in st.last_lines:
            typer.echo(f"  {printable(line, keep='')}")
