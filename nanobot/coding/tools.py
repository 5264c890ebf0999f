"""The coding tools, offered only inside a session (``CodingFeature.tools``). Each stands for a jj
command (docs/coding.md maps them): ``new_change`` = ``jj new -m``, ``describe_change`` =
``jj describe -m``, ``query_ancestor`` = ``jj log -r ID -T description`` / ``jj diff -r ID``
plus the session's transcript."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nanobot.base.errors import ToolError
from nanobot.coding.query import query
from nanobot.coding.vcs import CodingError
from nanobot.tools.base import Tool, ToolArgs, ToolContext


class DescriptionArgs(ToolArgs):
    description: str = Field(description="the change's description", min_length=1, max_length=600)


class TranscriptFilter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    search: str | None = Field(None, description="only records containing this", max_length=80)
    range: str | None = Field(None, description='records START:END, e.g. "-4:"', max_length=12)


class QueryArgs(ToolArgs):
    change_id: str = Field(description='a change id (or prefix), "@-" for the parent', max_length=64)
    include: list[Literal["description", "diff", "transcript"]] = Field(
        default_factory=lambda: ["description"], description="what to show")
    transcript_filter: TranscriptFilter | None = None


class _SessionTool(Tool):
    group = "coding session"  # offered in `nanobot session` only (`nanobot tools` says so)

    def __init__(self, feature):
        self.feature = feature

    def _guard(self, fn):
        try:
            return fn()
        except CodingError as e:
            raise ToolError(str(e)) from None


class NewChange(_SessionTool):
    name = "new_change"
    description = "Checkpoint: finish the current change and start a new one with this description."
    Args = DescriptionArgs

    def run(self, args: DescriptionArgs, ctx: ToolContext) -> str:
        new = self._guard(lambda: self.feature.checkpoint(ctx.agent, args.description, "new_change"))
        return f"new change {new[:12]} started; the previous change is its parent"


class DescribeChange(_SessionTool):
    name = "describe_change"
    description = "Replace the current change's description."
    Args = DescriptionArgs

    def run(self, args: DescriptionArgs, ctx: ToolContext) -> str:
        session = self.feature.session
        self._guard(lambda: session.describe(args.description))
        return f"description of {session.current[:12]} updated"


class QueryAncestor(_SessionTool):
    name = "query_ancestor"
    description = "Show an ancestor change's description, diff or transcript."
    Args = QueryArgs

    def run(self, args: QueryArgs, ctx: ToolContext) -> str:
        f = args.transcript_filter or TranscriptFilter()
        return self._guard(lambda: query(self.feature.session, args.change_id, list(args.include),
                                         f.search, f.range))
