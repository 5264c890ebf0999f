"""``nanobot models``."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from nanobot.cli.term import console, echo
from nanobot.config import load_settings
from nanobot.models import list_models


def register(app: typer.Typer) -> None:
    @app.command()
    def models(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """List configured models: name, path or server URL, size on disk, and whether the file exists
        or the server answers (1.5 s probe)."""
        rows = list_models(load_settings())
        if as_json:
            echo(json.dumps(rows, indent=2))
            return
        table = Table("", "name", "path", "size", "exists", box=None)
        for r in rows:
            if r.get("url"):
                where = f"{r['url']} (served as {r['served_model']}) · {r['server']}"
                table.add_row("*" if r["default"] else "", r["name"], where, "-", "yes" if r["exists"] else "NO")
                continue
            size = f"{r['size_mb']} MB" if r["size_mb"] is not None else "-"
            table.add_row("*" if r["default"] else "", r["name"], r["path"] or "-", size,
                          "yes" if r["exists"] else "NO")
        console().print(table)
