"""Knowledge tools: ``knowledge_read``, ``knowledge_search`` (the memory index, knowledge/ only) and
``knowledge_apply`` (create, update or delete a doc with its summary, logged to the audit ledger).

Paths are relative to ``workspace/knowledge`` (a leading ``knowledge/`` is accepted), must end in
``.md`` and are confined like the file tools (``paths.resolve_in_roots``, then inside knowledge/).
``knowledge_apply`` keeps a doc's frontmatter (unknown fields, order) when an update brings none,
sets ``summary`` in it, and goes through ``nanobot.vault.apply`` (write order and crash recovery).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from nanobot.base.errors import ToolError
from nanobot.base.frontmatter import (
    SUMMARY_MAX,
    FrontmatterError,
    parse,
    set_field,
    summary_problem,
)
from nanobot.base.regular import read_regular
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect
from nanobot.tools.paths import resolve_in_roots
from nanobot.tools.protected import check_writable

MAX_READ_LINES = 200


def knowledge_rel(raw: str, ctx: ToolContext, *, write: bool = False) -> str:
    """``raw`` as a path relative to knowledge/ (posix), or ToolError when it leaves knowledge/."""
    text = raw.strip().replace("\\", "/").removeprefix("./").removeprefix("knowledge/")
    if raw.strip().startswith(("/", "\\", "~")) or ".." in text.split("/"):
        raise ToolError(f"path '{raw}' is outside knowledge/; give a path like projects/zephyr.md")
    if not text.endswith(".md"):
        raise ToolError(f"path '{raw}' must name a .md file inside knowledge/, e.g. projects/zephyr.md")
    real = resolve_in_roots(f"knowledge/{text}", ctx)
    base = (ctx.workspace / "knowledge").resolve()
    if base not in real.parents:
        raise ToolError(f"path '{raw}' is outside knowledge/; give a path like projects/zephyr.md")
    if write:
        check_writable(real, raw, ctx)
    return real.relative_to(base).as_posix()


def _a_file_of_the_roots(raw: str, ctx: ToolContext) -> ToolError | None:
    """The error for a knowledge_read of ``raw`` that is no knowledge doc but a file of the roots
    outside knowledge/ ("What is in docs/guide.md?" read as a doc): it names the file and points to
    read_file (``ToolError.instead``), which the next step then calls. A fact of the file system, so
    it holds for any wording; None where ``raw`` names no such file."""
    try:
        real = resolve_in_roots(raw, ctx)
    except ToolError:
        return None
    if not real.is_file() or (ctx.workspace / "knowledge").resolve() in real.parents:
        return None
    return ToolError(f"'{raw.strip()}' is no knowledge doc but a file in your folders; read it with read_file",
                     instead="read_file")


class _VaultTool(Tool):
    @classmethod
    def available(cls, settings) -> bool:
        return settings.vault.enabled


class ReadArgs(ToolArgs):
    path: str = Field(description="doc path inside knowledge/, e.g. projects/zephyr.md", max_length=200)
    start: int = Field(1, ge=1, description="first line (1-based)")


class KnowledgeRead(_VaultTool):
    name = "knowledge_read"
    effects = frozenset({Effect.LOOKS})
    description = "Read a knowledge doc (knowledge/ folder), with its summary."
    Args = ReadArgs

    def run(self, args: ReadArgs, ctx: ToolContext) -> str:
        try:
            rel = knowledge_rel(args.path, ctx)
        except ToolError as e:
            raise _a_file_of_the_roots(args.path, ctx) or e from None
        path = ctx.workspace / "knowledge" / rel
        if not path.is_file():
            raise _a_file_of_the_roots(args.path, ctx) or ToolError(
                f"knowledge/{rel} does not exist; the Your Knowledge list shows the docs")
        lines = read_regular(path).decode("utf-8", errors="replace").splitlines()
        if args.start > max(1, len(lines)):
            raise ToolError(f"start={args.start} is past the end of knowledge/{rel} ({len(lines)} lines)")
        end = min(len(lines), args.start + MAX_READ_LINES - 1)
        more = f"\n[more: knowledge_read start={end + 1}]" if end < len(lines) else ""
        return f"knowledge/{rel} lines {args.start}-{end} of {len(lines)}\n" + \
            "\n".join(lines[args.start - 1:end]) + more


class SearchArgs(ToolArgs):
    query: str = Field(description="the words to search for in the knowledge docs", min_length=1,
                       max_length=300)
    k: int = Field(5, ge=1, le=10, description="how many results")


class KnowledgeSearch(_VaultTool):
    name = "knowledge_search"
    effects = frozenset({Effect.SEARCHES})
    description = "Search the knowledge docs (summaries and text) for a topic."
    Args = SearchArgs

    @classmethod
    def available(cls, settings) -> bool:
        return settings.vault.enabled and settings.memory.enabled

    def run(self, args: SearchArgs, ctx: ToolContext) -> str:
        from nanobot.memory.service import get_service

        hits = get_service(ctx.settings).search(args.query, min(100, 10 * args.k))
        hits = [h for h in hits if h.source.startswith("knowledge/")][: args.k]
        if not hits:
            return "no knowledge matches"
        return "\n".join(f"- {' '.join(h.text.split())} ({h.where}, score {h.score:.2f})" for h in hits)


_SUMMARY = (f"REQUIRED. One line of plain text, at most {SUMMARY_MAX} characters, that says what the "
            "WHOLE document is about (not what changed), e.g. 'Zephyr service: port, owner and deploy steps'")
_CHANGE = (f"REQUIRED. One line, at most {SUMMARY_MAX} characters, saying what THIS change does, "
           "e.g. 'Added the new port 8443'")


class ApplyArgs(ToolArgs):
    action: Literal["create", "update", "delete"] = Field(
        description="create a new doc, update (replace) an existing doc, or delete one")
    path: str = Field(description="doc path inside knowledge/, e.g. projects/zephyr.md", max_length=200)
    summary: str = Field(description=_SUMMARY, max_length=SUMMARY_MAX)
    change_summary: str = Field(description=_CHANGE, max_length=SUMMARY_MAX)
    reason: str = Field(description="why this change is made, one short sentence", max_length=200)
    content: str = Field("", description="the whole document in markdown (empty for delete)",
                         max_length=20_000)

    @model_validator(mode="before")
    @classmethod
    def _required(cls, data):
        if isinstance(data, dict):
            for key, what in (("summary", "the whole document"), ("change_summary", "what this change does")):
                if data.get(key) is None:
                    raise ValueError(f"{key} is missing; it is required: one plain line of at most "
                                     f"{SUMMARY_MAX} characters saying {what}")
        return data

    @field_validator("summary", "change_summary", mode="before")
    @classmethod
    def _one_line(cls, v, info):
        problem = summary_problem(v)
        if problem:
            what = "the whole document" if info.field_name == "summary" else "what this change does"
            raise ValueError(f"{info.field_name} {problem}; write one plain line of at most "
                             f"{SUMMARY_MAX} characters saying {what}")
        return " ".join(v.split())


def _new_text(action: str, content: str, summary: str, rel: str):
    def make(old: str | None) -> str | None:
        if action == "delete":
            if old is None:
                raise ToolError(f"knowledge/{rel} does not exist; nothing to delete")
            return None
        if action == "create" and old is not None:
            raise ToolError(f"knowledge/{rel} already exists; use action update to change it")
        if action == "update" and old is None:
            raise ToolError(f"knowledge/{rel} does not exist; use action create for a new doc")
        try:
            base = content if parse(content).has_block or old is None else _keep_frontmatter(old, content)
            return set_field(base, "summary", summary)
        except FrontmatterError as e:
            raise ToolError(f"knowledge/{rel}: {e}; fix the '---' block at the top of content") from None
    return make


def _keep_frontmatter(old: str, body: str) -> str:
    try:
        p = parse(old)
    except FrontmatterError:
        return body
    return p.head + p.yaml_text + p.tail + body


class KnowledgeApply(_VaultTool):
    name = "knowledge_apply"
    effects = frozenset({Effect.CHANGES})
    target_args = {"path": "path"}
    description = "Create, update or delete a knowledge doc; needs its summary and a change_summary."
    Args = ApplyArgs

    def run(self, args: ApplyArgs, ctx: ToolContext) -> str:
        from nanobot.vault.apply import apply_change

        rel = knowledge_rel(args.path, ctx, write=True)
        if args.action != "delete" and not args.content.strip():
            raise ToolError(f"content is empty; give the whole document to {args.action} knowledge/{rel}")
        entry, notes = apply_change(
            ctx.workspace, rel, _new_text(args.action, args.content, args.summary, rel),
            actor="model" if ctx.agent is not None else "user", reason=args.reason,
            change_summary=args.change_summary, home=ctx.settings.home)
        ctx.notices.extend(notes)
        if entry is None:
            return f"knowledge/{rel} already has this content; nothing changed"
        verb = {"create": "created", "update": "updated", "delete": "deleted"}[entry.action]
        return f"{verb} knowledge/{rel} (logged in audit/ledger.jsonl)"




TOOLS = (KnowledgeRead, KnowledgeSearch, KnowledgeApply)  # the vault feature's tools, in the prompt's order
