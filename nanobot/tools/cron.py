"""cron: schedules in the workspace database, fired by the running chat or ``nanobot daemon``.

An entry has a message and either ``every_minutes`` (repeats) or ``at`` (once, "YYYY-MM-DD HH:MM",
local time). Firing an entry delivers its message to the user (a Notice in chat, a line from the
daemon) and moves ``next_run`` on; a one-shot entry is removed. Claiming an entry is one UPDATE
guarded by its old ``next_run``, so a chat and a daemon never fire the same run twice.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from nanobot.base.errors import ToolError
from nanobot.config import Settings
from nanobot.core.events import Notice
from nanobot.tools.base import ToolArgs, ToolContext
from nanobot.tools.dbtool import DbTool, workspace_db
from nanobot.tools.effects import Effect, arg

SCHEMA = """CREATE TABLE IF NOT EXISTS tool_cron (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL, every_s REAL NOT NULL DEFAULT 0,
    next_run REAL NOT NULL, created REAL NOT NULL, fired INTEGER NOT NULL DEFAULT 0)"""


class Fired(BaseModel):
    id: int
    message: str
    due: datetime
    repeats: bool


def open_db(settings: Settings):
    return workspace_db(settings.workspace, SCHEMA)


def fire_due(settings: Settings, now: float | None = None) -> list[Fired]:
    """Claim and return every entry due at ``now`` (default: the current time)."""
    now = time.time() if now is None else now
    conn = open_db(settings)
    fired: list[Fired] = []
    try:
        rows = conn.execute("SELECT id, message, every_s, next_run FROM tool_cron WHERE next_run <= ? "
                            "ORDER BY next_run", (now,)).fetchall()
        for cid, message, every, due in rows:
            with conn:
                if every > 0:
                    nxt = due + every * max(1, int((now - due) // every) + 1)  # skip missed runs
                    cur = conn.execute("UPDATE tool_cron SET next_run = ?, fired = fired + 1 "
                                       "WHERE id = ? AND next_run = ?", (nxt, cid, due))
                else:
                    cur = conn.execute("DELETE FROM tool_cron WHERE id = ? AND next_run = ?", (cid, due))
            if cur.rowcount == 1:
                fired.append(Fired(id=cid, message=message, due=datetime.fromtimestamp(due).astimezone(),
                                   repeats=every > 0))
    finally:
        conn.close()
    return fired


def notices(settings: Settings) -> list[Notice]:
    return [Notice(text=f"⏰ reminder #{f.id}: {f.message}") for f in fire_due(settings)]


class CronArgs(ToolArgs):
    action: Literal["add", "list", "remove"] = Field(description="what to do")
    message: str = Field("", description="what to tell the user when it fires (add)", max_length=300)
    every_minutes: int = Field(0, ge=0, description="repeat interval in minutes (add; 0 = once)")
    at: str = Field("", description="first run, 'YYYY-MM-DD HH:MM' local time (add; empty = now + interval)", max_length=40)
    id: int = Field(0, ge=0, description="entry id (remove)")


class Cron(DbTool):
    name = "cron"
    description = "Schedule reminders: once at a time, or every N minutes."
    Args = CronArgs

    def effects_for(self, args) -> frozenset[Effect]:
        """add and remove change the jobs that run later; list only looks them up."""
        return frozenset({Effect.CHANGES if arg(args, "action") in ("add", "remove") else Effect.SEARCHES})

    def connect(self, ctx: ToolContext):
        return open_db(ctx.settings)

    def _add(self, conn, args: CronArgs) -> str:
        if not args.message.strip():
            raise ToolError("cron add needs a message")
        now = time.time()
        if args.at.strip():
            first = _parse_at(args.at)
        elif args.every_minutes > 0:
            first = now + args.every_minutes * 60
        else:
            raise ToolError("cron add needs 'at' (YYYY-MM-DD HH:MM) or every_minutes > 0")
        cur = conn.execute("INSERT INTO tool_cron (message, every_s, next_run, created) VALUES (?, ?, ?, ?)",
                           (args.message.strip(), args.every_minutes * 60.0, first, now))
        when = datetime.fromtimestamp(first).strftime("%Y-%m-%d %H:%M")
        rep = f", then every {args.every_minutes} min" if args.every_minutes else ""
        return f"scheduled #{cur.lastrowid} for {when}{rep}: {args.message.strip()}"

    def _list(self, conn, args: CronArgs) -> str:
        rows = conn.execute("SELECT id, message, every_s, next_run FROM tool_cron ORDER BY next_run").fetchall()
        if not rows:
            return "no schedules"
        return "\n".join(
            f"#{i} next {datetime.fromtimestamp(n):%Y-%m-%d %H:%M}"
            + (f" every {int(e // 60)} min" if e else " once") + f": {m}" for i, m, e, n in rows)

    def _remove(self, conn, args: CronArgs) -> str:
        if conn.execute("DELETE FROM tool_cron WHERE id = ?", (args.id,)).rowcount == 0:
            raise ToolError(f"no schedule #{args.id}; cron list shows the ids")
        return f"removed schedule #{args.id}"


def _parse_at(text: str) -> float:
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(text.strip(), fmt).timestamp()
        except ValueError:
            continue
    raise ToolError(f"cannot read time '{text}'; use 'YYYY-MM-DD HH:MM' (local time)")
