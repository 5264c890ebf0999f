"""``nanobot chats``: the chats (named conversations of many sessions) and where each stands."""

from __future__ import annotations

import typer

from nanobot.base.safe_text import printable
from nanobot.chats.store import list_chats
from nanobot.cli.term import console
from nanobot.config import load_settings


def register(app: typer.Typer) -> None:
    @app.command("chats")
    def chats_cmd() -> None:
        """List chats: sessions, speakers, last active, last consolidated."""
        settings = load_settings()
        out = console(highlight=False, soft_wrap=True)
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
