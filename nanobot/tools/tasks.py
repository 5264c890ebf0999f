"""task_board: a persistent to-do list (tasks with a status) in the workspace database.

Statuses: todo, doing, blocked (waiting on something), done. ``board_now`` gives what CONTEXT.md's
Now section shows: the active item (the most recently updated ``doing`` one, else the first ``todo``)
and the blocked items.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.tools.base import ToolArgs, ToolContext
from nanobot.tools.dbtool import DbTool, workspace_db
from nanobot.tools.effects import Effect, arg

Status = Literal["todo", "doing", "blocked", "done"]

SCHEMA = """CREATE TABLE IF NOT EXISTS tool_tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'todo',
    created REAL NOT NULL, updated REAL NOT NULL)"""


def open_db(ctx: ToolContext):
    return workspace_db(ctx.workspace, SCHEMA)


def board_now(workspace: Path) -> tuple[str, list[str]]:
    """(active task title or "", titles of blocked tasks); ("", []) when there is no board."""
    if not (workspace / "nanobot.db").exists():
        return "", []
    conn = workspace_db(workspace, SCHEMA)
    try:
        active = conn.execute(
            "SELECT title FROM tool_tasks WHERE status IN ('doing', 'todo') ORDER BY "
            "CASE status WHEN 'doing' THEN 0 ELSE 1 END, "
            "CASE status WHEN 'doing' THEN -updated ELSE id END LIMIT 1").fetchone()
        blocked = [t for (t,) in conn.execute(
            "SELECT title FROM tool_tasks WHERE status = 'blocked' ORDER BY id").fetchall()]
    finally:
        conn.close()
    return (active[0] if active else ""), blocked


class TaskArgs(ToolArgs):
    action: Literal["add", "list", "update", "remove"] = Field(description="what to do")
    title: str = Field("", description="task text (add)", max_length=300)
    id: int = Field(0, ge=0, description="task id (update, remove)")
    status: Status = Field("todo", description="new status (update)")


class TaskBoard(DbTool):
    name = "task_board"
    description = "Add, list, update or remove tasks (todo/doing/blocked/done)."
    Args = TaskArgs

    def effects_for(self, args) -> frozenset[Effect]:
        """add, update and remove change the user's board; list only looks it up."""
        return frozenset({Effect.CHANGES if arg(args, "action") in ("add", "update", "remove") else Effect.SEARCHES})

    def connect(self, ctx: ToolContext):
        return open_db(ctx)

    def _add(self, conn, args: TaskArgs) -> str:
        if not args.title.strip():
            raise ToolError("task_board add needs a title")
        now = time.time()
        cur = conn.execute("INSERT INTO tool_tasks (title, status, created, updated) VALUES (?, ?, ?, ?)",
                           (args.title.strip(), args.status, now, now))
        return f"added task #{cur.lastrowid}: {args.title.strip()} [{args.status}]"

    def _list(self, conn, args: TaskArgs) -> str:
        rows = conn.execute("SELECT id, title, status FROM tool_tasks ORDER BY "
                            "CASE status WHEN 'doing' THEN 0 WHEN 'blocked' THEN 1 WHEN 'todo' THEN 2 ELSE 3 END, id").fetchall()
        if not rows:
            return "no tasks"
        return "\n".join(f"#{i} [{s}] {t}" for i, t, s in rows)

    def _update(self, conn, args: TaskArgs) -> str:
        title = args.title.strip()
        cur = conn.execute("UPDATE tool_tasks SET status = ?, title = COALESCE(NULLIF(?, ''), title), "
                           "updated = ? WHERE id = ?", (args.status, title, time.time(), args.id))
        if cur.rowcount == 0:
            raise ToolError(f"no task #{args.id}; task_board list shows the ids")
        return f"task #{args.id} is now [{args.status}]"

    def _remove(self, conn, args: TaskArgs) -> str:
        if conn.execute("DELETE FROM tool_tasks WHERE id = ?", (args.id,)).rowcount == 0:
            raise ToolError(f"no task #{args.id}; task_board list shows the ids")
        return f"removed task #{args.id}"
