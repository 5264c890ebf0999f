"""``nanobot init``."""

from __future__ import annotations

import typer

from nanobot.config import load_settings
from nanobot.workspace import init_workspace


def register(app: typer.Typer) -> None:
    @app.command()
    def init() -> None:
        """Create the workspace (SOUL.md, USER.md, CONTEXT.md, MEMORY.md, ...); never overwrites."""
        settings = load_settings()
        created = init_workspace(settings.workspace)
        for p in created:
            typer.echo(f"created {p}")
        typer.echo(f"workspace ready: {settings.workspace}" + ("" if created else " (nothing to create)"))
