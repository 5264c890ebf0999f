"""``nanobot prompt``: the prompt the next turn would use, with tokens per section; a prompt file that is
not UTF-8 is named on stderr with the line of its first bad byte (as the chat's start does)."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nanobot.base.safe_text import printable
from nanobot.cli.term import console, echo
from nanobot.loop.report import prompt_report  # noqa: F401 - /prompt in the chat imports it here
from nanobot.runtime import open_agent
from nanobot.workspace import encoding_warnings


def render_report(data: dict, console: Console) -> None:
    table = Table("section", "tokens", "budget", "trimmed", box=None)
    for s in data["sections"]:
        table.add_row(Text(s["name"]), str(s["tokens"]), str(s["budget"]), str(s["trimmed_tokens"] or ""))
    for name in data["omitted"]:
        table.add_row(Text(name, style="dim"), "[dim]0[/dim]", "", "[dim]empty, not sent[/dim]")
    table.add_row("sections", str(data["total_tokens"]), f"cap {data['cap']}", "")
    sent = data["sent"]
    budgets = {"memory (this turn)": str(data["memory"]["budget"])} if "memory" in data else {}
    for row in sent["rows"][len(data["sections"]):]:  # what the turn sends besides the sections
        table.add_row(Text(row["name"]), str(row["tokens"]), budgets.get(row["name"], ""), "")
    what = "the turn with this message" if "memory" in data else "before your message"
    table.add_row(f"[bold]total sent[/bold] ({what})", f"[bold]{sent['tokens']}[/bold]", "", "")
    console.print(table)
    c = data["conversation"]
    console.print(f"room for the conversation: {c['tokens']} tokens, {c['share']:.0%} of n_ctx {data['n_ctx']} "
                  f"(after the system prompt{' and tools block' if sent['call_format'] == 'template' else ''}, "
                  f"as the chat template renders them, and a {c['reply_reserve']}-token reply reserve)", markup=False)
    block = next((r for r in sent["rows"] if r["name"].startswith("tools block")), None)
    if block is not None:  # template tool calls: the template renders the tools itself
        console.print(f"{block['name']}: {block['tokens']} tokens, as the chat template renders it", markup=False)
    elif "tools" in data:
        t = data["tools"]
        console.print(f"tool index: {t['index_tokens']} tokens (all schemas would cost {t['all_schemas_tokens']})")
    for line in data["trims"]:
        console.print(Text.assemble(("trimmed", "yellow"), " ", printable(line)))
    if data.get("last_turn"):
        lt = data["last_turn"]
        console.print(f"last turn: prompt {lt['prompt_tokens']} tokens, reused {lt['reused_tokens']} from the KV cache, evaluated {lt['evaluated_tokens']}")


def register(app: typer.Typer) -> None:
    @app.command()
    def prompt(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path."),
        query: str = typer.Option(None, "--query", "-q", help="Also show the memory this message would retrieve."),
        show_text: bool = typer.Option(False, "--text", help="Print the prompt text too."),
    ) -> None:
        """Print the system prompt the next turn would use, with tokens per section and the cap."""
        agent = open_agent(model=model, vocab_only=True)
        for warning in encoding_warnings(agent.workspace):  # a prompt file read with U+FFFD: which one, which line
            echo(f"warning: {warning}", err=True)
        data = prompt_report(agent, query)
        if as_json:
            echo(json.dumps(data, indent=2, default=str))
            return
        out = console()
        if show_text:
            echo(printable(data["text"]) + "\n")  # workspace files may hold control characters
        render_report(data, out)
