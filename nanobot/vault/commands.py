"""``nanobot vault toc|digest|check`` and ``nanobot backfill-summaries``: the knowledge vault from the
command line (the library in ``nanobot.vault`` does the work; this parses and renders). The vault
feature's commands: ``register_commands(app, cli)``, found in this package by
``runtime.register_commands``; ``cli`` (``core.features.Cli``) lends the model loader and the CLI's
printing."""

from __future__ import annotations

import sys
from datetime import datetime

import typer

from nanobot.base.safe_text import printable
from nanobot.config import Settings, load_settings
from nanobot.core.features import Cli
from nanobot.workspace import init_workspace


def _settings() -> Settings:
    settings = load_settings()
    init_workspace(settings.workspace)
    return settings


def register_commands(app: typer.Typer, cli: Cli) -> None:
    vault_app = typer.Typer(help="The knowledge vault: table of contents, recent changes, summary checks.",
                            no_args_is_help=True)
    app.add_typer(vault_app, name="vault")

    def _warn(lines: list[str]) -> None:
        for line in lines:
            cli.echo(f"warning: {printable(line, keep='')}", err=True)

    @vault_app.command()
    def toc(budget: int = typer.Option(None, "--budget", min=0,
                                       help="Token budget (default: vault.toc, else a share of the model's n_ctx).")) -> None:
        """Print "Your Knowledge" as the system prompt shows it (within its budget)."""
        from nanobot.vault.build import knowledge

        settings = _settings()
        model = cli.load_model(settings, vocab_only=True)
        built = knowledge(settings, settings.workspace, model.n_ctx, model.count_tokens, budget)
        _warn(built.warnings)
        cli.echo(printable(built.text) if built.text else "no knowledge docs (add markdown files to workspace/knowledge/)")

    @vault_app.command()
    def digest(hours: float = typer.Option(None, "--hours", min=0.01, help="Window (default vault.hours)."),
               budget: int = typer.Option(None, "--budget", min=0, help="Token budget (default vault.digest).")) -> None:
        """Print "Recent Changes": ledger entries of the last hours, newest first."""
        from nanobot.vault.build import recent_changes

        settings = _settings()
        count = cli.load_model(settings, vocab_only=True).count_tokens
        built = recent_changes(settings, settings.workspace, datetime.now().astimezone(), count, hours, budget)
        _warn(built.warnings)
        cli.echo(printable(built.text))

    @vault_app.command()
    def check() -> None:
        """List docs with a missing, too long or multi-line summary, or unreadable frontmatter (exit 1 if any)."""
        from nanobot.vault.check import problems

        found = problems(_settings().workspace)
        for path, what in found:
            cli.echo(f"knowledge/{printable(path)}: {printable(what)}")
        if found:
            cli.echo(f"{len(found)} doc(s) need attention (`nanobot backfill-summaries` writes missing summaries)",
                     err=True)
            raise typer.Exit(1)
        cli.echo("all knowledge docs have a good summary")

    def backfill_summaries(
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the summaries; write nothing."),
        limit: int = typer.Option(None, "--limit", min=1, help="At most this many docs."),
        model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path."),
    ) -> None:
        """Have the model write a one-line summary for every knowledge doc without one."""
        from nanobot.vault.backfill import Backfill

        settings = _settings()
        run = Backfill(settings, cli.load_model(settings, model), limit=limit, dry_run=dry_run)
        if not run.docs:
            cli.echo("every knowledge doc has a summary")
            return
        items = run.run()
        if sys.stdout.isatty():
            from rich.progress import track

            items = track(items, total=len(run.docs), description="summarising", transient=True)
        for item in items:
            where = f"knowledge/{printable(item.path)}"
            if item.status == "skipped":
                cli.echo(f"{where}: skipped, {printable(item.why)}", err=True)
            else:
                cli.echo(f"{where}: {printable(item.summary)}")
        if dry_run:
            cli.echo("dry run: nothing written")
            return
        sha = run.commit()
        done = f"{len(run.written)} summar{'y' if len(run.written) == 1 else 'ies'} written"
        cli.echo(f"{done}; committed {sha[:12]}" if sha else done)

    app.command("backfill-summaries")(backfill_summaries)
