"""Many tools, same prompt: the compact tool index and ``tool_search``.

Up to ``[tools] index_max`` tools (default 20), the prompt's tool index is every name (a line
``name: intent`` for a tool with an ``intent``, the others on one line). Above it, the
index lists the ungrouped tools (built-ins, ``tool_search``) by name and each group (an MCP server)
with its tool count; the model finds a group's tools with ``tool_search(query)``: the memory
embedder ranks every tool's name and description (top 5, names + one line each). The decision
grammar still admits every registered name, so a name ``tool_search`` returned can be called next.

>>> class T:
...     def __init__(self, group=""): self.group = group
>>> index_text({"exec": T(), "tool_search": T(), "cal.add": T("cal"), "cal.rm": T("cal")}, 3)
'exec, tool_search; via tool_search: cal (2)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import Field

from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect

TOP = 5
_vectors: dict[str, np.ndarray] = {}  # embedded tool lines, per process


def index_text(tools: dict[str, Any], index_max: int) -> str:
    """The tool index the prompt shows: a line per tool with an ``intent`` (what requests it is
    for), the other names on one last line; names + groups when there are too many."""
    if len(tools) <= index_max:
        lines = [f"{n}: {t.intent}" for n, t in tools.items() if getattr(t, "intent", "")]
        rest = [n for n, t in tools.items() if not getattr(t, "intent", "")]
        if lines and rest:
            lines.append(f"other tools: {', '.join(rest)}")
        return "\n".join(lines) if lines else ", ".join(rest)
    plain = [n for n, t in tools.items() if not t.group]
    groups = Counter(t.group for t in tools.values() if t.group)
    listed = ", ".join(f"{g} ({n})" for g, n in groups.items())
    return f"{', '.join(plain)}; via tool_search: {listed}"


def tool_line(name: str, tool: Any) -> str:
    return f"{name}: {tool.description}"


def search(tools: dict[str, Any], query: str, settings, k: int = TOP, embedder: Callable | None = None) -> list[str]:
    """The ``k`` tool lines closest to ``query`` (cosine under ``embedder(settings)``, the memory
    embedder its caller passes; word overlap without one or if it fails)."""
    lines = {n: tool_line(n, t) for n, t in tools.items() if n != ToolSearch.name}
    if not lines:
        return []
    # the description alone ranks best (a tool's name in front of it pulls other tools' needs up);
    # a tool without one is ranked by its name's words
    texts = [tools[n].description or n.replace("_", " ").replace(".", " ") for n in lines]
    try:
        if embedder is None:
            raise LookupError("no embedder")
        scores = _embedded_scores(texts, query, embedder(settings))
    except Exception:  # no embedder: rank by shared words, still useful
        words = set(_words(query))
        scores = np.array([len(words & set(_words(line))) for line in lines.values()], dtype=float)
    order = np.argsort(-scores, kind="stable")[:k]
    return [list(lines.values())[i] for i in order]


def _words(text: str) -> list[str]:
    return [w for w in "".join(c.lower() if c.isalnum() else " " for c in text).split() if len(w) > 2]


def _embedded_scores(texts: list[str], query: str, emb: Any) -> np.ndarray:
    missing = [t for t in texts if t not in _vectors]
    if missing:
        _vectors.update(zip(missing, emb.embed(missing), strict=True))
    matrix = np.stack([_vectors[t] for t in texts])
    return matrix @ emb.embed([query])[0]


class ToolSearchArgs(ToolArgs):
    query: str = Field(description="what the tool should do", min_length=1, max_length=200)


class ToolSearch(Tool):
    name = "tool_search"
    effects = frozenset({Effect.SEARCHES})
    description = "Find tools by what they do: the 5 closest, name and one line each."
    Args = ToolSearchArgs

    def __init__(self, tools: Callable[[], dict[str, Any]], embedder: Callable | None = None):
        self._tools = tools  # every tool there is (outside a chat; in one, the runner's)
        self._embedder = embedder  # settings -> an embedder (the memory one; nanobot.mcptools.feature)

    def run(self, args: ToolSearchArgs, ctx: ToolContext) -> str:
        runner = ctx.agent.tool_runner if ctx.agent is not None else None
        tools = runner.tools if runner is not None else self._tools()
        found = search(tools, args.query, ctx.settings, embedder=self._embedder)
        return "\n".join(found) if found else "no tools"
