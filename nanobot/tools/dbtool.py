"""Tools that keep their state in the workspace database (task_board, cron): ``workspace_db`` opens
``workspace/nanobot.db`` with the tool's table created, and ``DbTool.run`` calls the method the
call's ``action`` names, ``_<action>(conn, args)``, in one transaction, closing the connection after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nanobot.base.db import connect
from nanobot.tools.base import Tool, ToolContext


def workspace_db(workspace: Path, schema: str):
    """A connection to the workspace database (no sqlite-vec) with ``schema`` (CREATE ... IF NOT EXISTS) run."""
    conn = connect(workspace / "nanobot.db", vec=False)
    conn.execute(schema)
    return conn


class DbTool(Tool):
    """Subclass with ``connect(ctx)`` and one ``_<action>(conn, args)`` method per ``action`` value."""

    def connect(self, ctx: ToolContext) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def run(self, args: Any, ctx: ToolContext) -> str:
        conn = self.connect(ctx)
        try:
            with conn:
                return getattr(self, f"_{args.action}")(conn, args)
        finally:
            conn.close()
