"""``nanobot reflect``: observe sessions that have no observation, then fold observations into MEMORY.md.
The observer feature's command: ``register_commands(app, cli)``, found in this package by
``runtime.register_commands``; ``cli`` (``core.features.Cli``) lends the model loader and the CLI's printing."""

from __future__ import annotations

import json
from datetime import datetime

import typer

from nanobot.base.safe_text import printable
from nanobot.config import load_settings
from nanobot.core.features import Cli
from nanobot.observer.catchup import catch_up
from nanobot.workspace import init_workspace


def register_commands(app: typer.Typer, cli: Cli) -> None:
    @app.command("reflect")
    def reflect_cmd(
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the MEMORY.md diff; write nothing."),
        observe: bool = typer.Option(True, "--observe/--no-observe", help="First observe past sessions that have no observation (loads the chat model)."),
        model: str = typer.Option(None, "--model", "-m", help="Model for those observations."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Crystallize new observations into MEMORY.md (near-duplicates merged, your lines kept)."""
        settings = load_settings()
        init_workspace(settings.workspace)
        done = catch_up(settings, lambda: cli.load_model(settings, model), datetime.now().astimezone(),
                        observe=observe, reflect="always", dry_run=dry_run)
        observed, context_note, report = [str(o.path) for o in done.observed], done.context, done.reflection
        if as_json:
            data = report.model_dump(mode="json") | {"observed": observed, "context": context_note}
            cli.echo(json.dumps(data, indent=2))
            return
        out = cli.console(highlight=False, soft_wrap=True)
        for path in observed:
            out.print(f"observed an earlier session: {path}", markup=False)
        if context_note:
            out.print(context_note, markup=False)
        if not report.observations:
            out.print("nothing new to reflect: every observation is already in MEMORY.md")
            return
        verb = "would add" if dry_run else "added"
        out.print(f"reflected {len(report.observations)} observation(s): {len(report.added)} fact(s) {verb}, "
                  f"{len(report.merged)} merged with existing lines"
                  + (f" ({report.similarity} similarity)" if report.similarity else ""), markup=False)
        for fact in report.added:
            out.print(printable(f"  + {fact}"), markup=False)
        for pair in report.merged:
            out.print(printable(f"  = {pair}"), markup=False)
        for fact in report.ungrounded:
            out.print(printable(f"  not grounded, not added: {fact}"), style="dim", markup=False)
        if dry_run and report.diff:
            out.print(printable(report.diff), markup=False)
        elif report.backup:
            out.print(f"previous MEMORY.md kept in {report.backup} (unified diff beside it)", markup=False)
