"""scratchpad: notes for the current session only (one file per session, atomically written)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.base.written import record_written
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect, arg


def pad_path(ctx: ToolContext) -> Path:
    sid = re.sub(r"[^A-Za-z0-9_.-]", "_", ctx.session_id) or "default"
    return ctx.settings.home / "scratchpad" / f"{sid}.md"


class PadArgs(ToolArgs):
    action: Literal["read", "append", "write", "clear"] = Field(description="what to do")
    text: str = Field("", description="text to append or write", max_length=4000)


class Scratchpad(Tool):
    name = "scratchpad"
    description = "Keep working notes for this session."
    Args = PadArgs

    def effects_for(self, args) -> frozenset[Effect]:
        """write and clear discard this session's notes; append keeps a note (the pad's purpose)."""
        return frozenset({{"write": Effect.CHANGES, "clear": Effect.CHANGES,
                           "append": Effect.REMEMBERS}.get(arg(args, "action"), Effect.SEARCHES)})

    def run(self, args: PadArgs, ctx: ToolContext) -> str:
        path = pad_path(ctx)
        current = read_regular(path).decode("utf-8") if path.exists() else ""
        if args.action == "read":
            return current or "(scratchpad is empty)"
        if args.action == "clear":
            atomic_write(path, "")
            record_written(ctx.settings.home, ctx.workspace, path)
            return "scratchpad cleared"
        new = args.text if args.action == "write" else (current + ("\n" if current else "") + args.text)
        atomic_write(path, new)
        record_written(ctx.settings.home, ctx.workspace, path)
        return f"scratchpad: {len(new)} chars"
