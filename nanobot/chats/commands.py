"""``nanobot chats`` (the chats, named conversations of many sessions, and where each stands) and
``nanobot consolidate CHAT_ID | --all`` (the three-pass consolidation of a chat's CONTEXT.md). The chats
feature's commands: ``register_commands(app, cli)``, found in this package by
``runtime.register_commands``; ``cli`` (``core.features.Cli``) lends the model loader and the CLI's
printing.

``consolidate --dry-run`` prints the new file and a diff and writes nothing; ``--verbose`` shows each
pass: the windows the suggester read and what it wrote, every item kept or dropped with the reason.
"""

from __future__ import annotations

import typer
from rich.console import Console

from nanobot.base.safe_text import printable
from nanobot.chats.consolidate import Report, consolidate, pending_chats
from nanobot.chats.store import ChatError, check_chat_id, list_chats, load_chat
from nanobot.config import load_settings
from nanobot.core.features import Cli


def register_commands(app: typer.Typer, cli: Cli) -> None:
    @app.command("chats")
    def chats_cmd() -> None:
        """List chats: sessions, speakers, last active, last consolidated."""
        settings = load_settings()
        out = cli.console(highlight=False, soft_wrap=True)
        chats = list_chats(settings.home)
        if not chats:
            out.print("no chats yet: `nanobot chat --chat ID` starts one (default: local)", markup=False)
            return
        out.print(f"{'chat':<20} {'sessions':>8}  {'last active':<16}  {'consolidated':<16}  speakers", markup=False)
        for c in chats:
            active = f"{c.last_active:%Y-%m-%d %H:%M}" if c.last_active else "-"
            done = f"{c.last_consolidated:%Y-%m-%d %H:%M}" if c.last_consolidated else "never"
            who = ", ".join(c.speakers) or "-"
            out.print(printable(f"{c.id:<20} {len(c.sessions):>8}  {active:<16}  {done:<16}  {who}"), markup=False)

    @app.command("consolidate")
    def consolidate_cmd(
        chat_id: str = typer.Argument(None, help="The chat to consolidate (`nanobot chats` lists them)."),
        all_: bool = typer.Option(False, "--all", help="Every chat active since its last consolidation."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the new file and a diff; write nothing."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Show each pass's input and output."),
        model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path."),
    ) -> None:
        """Consolidate a chat's CONTEXT.md: suggest (model), review (quotes checked), commit (2 KB)."""
        settings = load_settings()
        if bool(chat_id) == all_:
            raise ChatError("name one chat (nanobot consolidate CHAT_ID) or pass --all")
        if chat_id and load_chat(settings.home, check_chat_id(chat_id)) is None:
            raise ChatError(f"no chat named {chat_id!r}; `nanobot chats` lists them")
        ids = [chat_id] if chat_id else pending_chats(settings)
        out = cli.console(highlight=False, soft_wrap=True)
        if not ids:
            out.print("no chat has been active since its last consolidation", markup=False)
            return
        backend = cli.load_model(settings, model)
        for cid in ids:
            render(consolidate(settings, cid, backend, dry_run=dry_run), out, verbose)


def render(rep: Report, out: Console, verbose: bool) -> None:
    def say(text: str) -> None:
        out.print(printable(text), markup=False)

    for w in rep.warnings:
        say(f"warning: {w}")
    if verbose:
        since = f"{rep.since:%Y-%m-%d %H:%M}" if rep.since else "the start"
        say(f"== pass A (suggester): {rep.messages} message(s) since {since}, {len(rep.windows)} window(s)")
        for i, w in enumerate(rep.windows, 1):
            say(f"-- window {i}: messages {w.first + 1}-{w.last + 1}, {w.prompt_tokens} prompt tokens")
            say(w.text)
            say(f"-- output: {w.output}")
        say("== pass B (reviewer)")
        for d in rep.decisions:
            say(f"{d.outcome:<8} [{d.category}] {d.item}" + (f"  quote: {d.quote!r}" if d.quote else "")
                + (f"  ({d.reason})" if d.reason else ""))
        say(f"== pass C (committer): {len(rep.text.encode())} bytes")
        for item in rep.cap_dropped:
            say(f"cut for size [{item.category}] {item.text} [{item.date}]")
        say(f"timings: {rep.seconds}")
    if rep.dry_run:
        say(rep.text.rstrip("\n"))
        say(rep.diff().rstrip("\n") or "(no change)")
    say(rep.summary())
