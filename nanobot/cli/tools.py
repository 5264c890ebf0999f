"""``nanobot tools``: list the tools (name + one line); ``nanobot tools NAME`` prints its schema;
``nanobot tools run NAME 'JSON'`` runs one call exactly as the model's would be run.

MCP servers' tools (``[mcp.servers.NAME]``) are listed with their server (starting the servers);
a server that cannot start is reported on stderr and its tools are left out.

``run`` uses the runner's own ``validate`` and ``execute`` (same pydantic checks, confinement and
permissions) with no way to ask the user, like a piped chat: exec runs only allow-listed commands.
The result is printed with control characters escaped. Exit 0 on success, 1 when the tool reports an
error (one line on stderr), 2 for an unknown or disabled tool or arguments that are not valid.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table
from rich.text import Text

from nanobot.base.errors import ConfigError
from nanobot.base.safe_text import printable
from nanobot.cli.term import console, echo
from nanobot.config import Settings, load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.runner import execute, validate
from nanobot.workspace import init_workspace

USAGE = "usage: nanobot tools [NAME] | nanobot tools run NAME 'JSON'"


def every_tool(settings: Settings) -> tuple[dict, dict]:
    """(every tool by name, the enabled ones), through the features (``runtime.every_tool``)."""
    from nanobot.runtime import every_tool as listed

    known, enabled, notices = listed(settings)
    for note in notices:
        echo(printable(f"warning: {note}", keep=""), err=True)
    return known, enabled


def run_tool(settings: Settings, name: str, raw: str) -> int:
    """Run one call of ``name`` with JSON ``raw``; print the outcome; return the exit code."""
    known, tools = every_tool(settings)
    if name not in tools:
        why = "does not exist"
        if name in known and known[name].group == "coding session":
            why = "works in a coding session only (`nanobot session`)"
        elif name in known:
            off = not getattr(known[name], "available", lambda s: True)(settings)
            why = ("is not offered: it needs configuration (web tools: tools.web_search_url or web_allow_hosts; "
                   "memory tools: memory.enabled)") if off else (
                   "is disabled (tools.enabled)" if known[name].default else "is off unless tools.enabled names it")
        raise ConfigError(f"tool '{name}' {why}; `nanobot tools` lists them")
    args, error = validate(tools[name], raw)
    if args is None:
        raise ConfigError(f"{error}; `nanobot tools {name}` prints the schema")
    init_workspace(settings.workspace)  # as a chat would have made it
    ok, text, notices = execute(tools[name], args, ToolContext(settings=settings, confirm=None))
    for note in notices:
        echo(printable(note), err=True)
    if not ok:
        echo(f"Error: {printable(text, keep='')}", err=True)
        return 1
    echo(printable(text))
    return 0


def register(app: typer.Typer) -> None:
    @app.command()
    def tools(
        words: list[str] = typer.Argument(None, help="NAME: print its JSON schema. run NAME 'JSON': run one call.",
                                          metavar="NAME | run NAME JSON"),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """List the tools the model can call, print one tool's JSON schema, or run one call."""
        settings = load_settings()
        words = words or []
        if words and words[0] == "run":
            if len(words) != 3:
                raise ConfigError(f"tools run takes a tool name and one JSON argument; {USAGE}")
            raise typer.Exit(run_tool(settings, words[1], words[2]))
        if len(words) > 1:
            raise ConfigError(f"too many arguments; {USAGE}")
        known, enabled = every_tool(settings)
        if words:
            if words[0] not in known:
                raise ConfigError(f"no tool '{words[0]}'; `nanobot tools` lists them")
            echo(json.dumps(known[words[0]].schema(), indent=2))
            loose = getattr(known[words[0]], "unsupported", None)
            if loose:
                echo(f"note: checked after generation, not by the grammar: {', '.join(loose)}", err=True)
            return
        rows = [{"name": n, "description": c.description, "enabled": n in enabled,
                 "server": c.group or None} for n, c in known.items()]
        if as_json:
            echo(json.dumps(rows, indent=2))
            return
        table = Table("name", "server", "description", box=None)
        for r in rows:
            name = Text(r["name"]) + (Text("") if r["enabled"] else Text(" (disabled)", style="dim"))
            table.add_row(name, Text(r["server"] or "built-in", style="dim"),
                          Text(printable(r["description"], keep="")))
        console().print(table)
