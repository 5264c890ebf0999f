"""``nanobot tools``: list the tools (name + one line); ``nanobot tools NAME`` prints its schema."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from nanobot.config import load_settings
from nanobot.errors import ConfigError
from nanobot.tools.registry import all_tools, enabled_tools


def register(app: typer.Typer) -> None:
    @app.command()
    def tools(
        name: str = typer.Argument(None, help="A tool name: print its JSON schema."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """List the tools the model can call, or print one tool's JSON schema."""
        settings = load_settings()
        known = all_tools()
        if name:
            if name not in known:
                raise ConfigError(f"no tool '{name}'; `nanobot tools` lists them")
            typer.echo(json.dumps(known[name].schema(), indent=2))
            return
        enabled = enabled_tools(settings)
        rows = [{"name": n, "description": c.description, "enabled": n in enabled}
                for n, c in known.items()]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        table = Table("name", "description", box=None)
        for r in rows:
            mark = "" if r["enabled"] else " [dim](disabled)[/dim]"
            table.add_row(r["name"] + mark, r["description"])
        Console().print(table)
