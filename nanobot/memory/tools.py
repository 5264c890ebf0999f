"""Memory tools: ``memory_search`` (hybrid search over the memory index) and ``memory_add``
(append a fact to MEMORY.md, or a note to today's observation file, and index it at once)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect
from nanobot.workspace import read_text


def _service(ctx: ToolContext):
    if not ctx.settings.memory.enabled:
        raise ToolError("memory is disabled (memory.enabled = false in config.toml)")
    from nanobot.memory.service import get_service

    return get_service(ctx.settings)


class SearchArgs(ToolArgs):
    query: str = Field(description="the words to search for", min_length=1, max_length=300)
    k: int = Field(5, ge=1, le=10, description="how many results")


class _MemoryTool(Tool):
    """Memory tools are offered only while memory is enabled."""

    @classmethod
    def available(cls, settings) -> bool:
        return settings.memory.enabled


class MemorySearch(_MemoryTool):
    name = "memory_search"
    effects = frozenset({Effect.SEARCHES})
    description = "Search long-term memory (MEMORY.md, observations, knowledge) for facts."
    intent = "recall something said in an earlier session"
    Args = SearchArgs

    def run(self, args: SearchArgs, ctx: ToolContext) -> str:
        # this session's own turns are in its context, as the per-turn retrieval has them: a search would
        # find the message being answered and take it for something kept
        own = ctx.session_id if ctx.agent is not None and ctx.session_id != "default" else None
        hits = _service(ctx).search(args.query, args.k, exclude_session=own)
        if not hits:
            return "no memory matches"
        return "\n".join(f"- {' '.join(h.text.split())} ({h.where}, score {h.score:.2f})" for h in hits)


class AddArgs(ToolArgs):
    text: str = Field(description="the fact to remember, one sentence", min_length=1, max_length=500)
    kind: Literal["memory", "observation"] = Field(
        "memory", description="memory: a lasting fact (MEMORY.md); observation: a dated note")
    heading: str | None = Field(None, max_length=60,
                                description="MEMORY.md section to file it under, e.g. Family")


class MemoryAdd(_MemoryTool):
    user_facts = True
    name = "memory_add"
    effects = frozenset({Effect.REMEMBERS})
    description = "Remember a fact for later sessions (adds it to MEMORY.md and indexes it)."
    intent = "remember something the user asks you to remember"
    Args = AddArgs

    def run(self, args: AddArgs, ctx: ToolContext) -> str:
        svc = _service(ctx)
        path, line, new = svc.add(args.text, kind=args.kind, heading=args.heading)
        where = f"{path.relative_to(svc.workspace).as_posix()}:{line}"
        if new:
            return f"remembered ({where})"
        lines = read_text(path).splitlines() if path.exists() else []
        held = lines[line - 1].lstrip("- ").strip() if 0 < line <= len(lines) else ""
        return f"already remembered ({where}{': ' + held if held else ''}); not added again"


TOOLS = (MemorySearch, MemoryAdd)  # the memory feature's tools, in the prompt's order
