"""``nanobot init``: config.toml (every setting, commented) and the workspace; nothing overwritten."""

from __future__ import annotations

import typer

from nanobot.cli.term import echo
from nanobot.config import load_settings
from nanobot.configfile import write_default
from nanobot.workspace import init_workspace


def register(app: typer.Typer) -> None:
    @app.command()
    def init() -> None:
        """Create config.toml (every setting, commented) and the workspace (SOUL.md, USER.md, CONTEXT.md,
        MEMORY.md, ...); never overwrites."""
        settings = load_settings()
        created = init_workspace(settings.workspace)
        config = write_default(settings)  # a commented config.toml with every setting, never overwritten
        created = ([config] if config else []) + created
        for p in created:
            echo(f"created {p}")
        echo(f"workspace ready: {settings.workspace}" + ("" if created else " (nothing to create)"))
