"""``McpFeature``: the configured MCP servers' tools join the Agent's tools.

Servers start when their tools are first needed (the first prompt of a chat, ``nanobot tools``) or,
with ``eager = true``, in the background as the chat starts; each server's list is fetched once per
session. A server that cannot start costs its tools, never the chat: the reason is shown once as a
notice. So are schema keywords the argument grammar cannot express (checked after generation).
When the tools outnumber ``[tools] index_max``, ``tool_search`` joins them (``nanobot.tools.search``).
"""

from __future__ import annotations

from typing import Any

from nanobot.base import background
from nanobot.base.errors import ToolError
from nanobot.config import Settings
from nanobot.core.events import Notice
from nanobot.core.features import Feature
from nanobot.mcptools.client import McpServer
from nanobot.mcptools.tool import McpTool
from nanobot.memory.embedder import get_embedder
from nanobot.memory.tools import TOOLS as MEMORY_TOOLS
from nanobot.tools.registry import enabled_tools, offered
from nanobot.tools.search import ToolSearch
from nanobot.vault.tools import TOOLS as VAULT_TOOLS


def servers_for(settings: Settings) -> dict[str, McpServer]:
    return {name: McpServer(name, cfg, settings) for name, cfg in settings.mcp.servers.items()}


def list_tools(servers: dict[str, McpServer]) -> tuple[dict[str, McpTool], list[str]]:
    """Every server's tools by prefixed name, and one notice per server that failed or has schema
    keywords left to validation."""
    tools: dict[str, McpTool] = {}
    notices: list[str] = []
    for name, server in servers.items():
        try:
            specs = server.tools()
        except ToolError as e:
            notices.append(f"{e}; its tools are left out")
            continue
        loose: set[str] = set()
        for spec in specs:
            try:
                tool = McpTool(server, spec)
                tool.grammar()
            except ToolError as e:
                notices.append(f"{e}; tool left out")
                continue
            except (RecursionError, ValueError, TypeError, KeyError) as e:  # a schema nothing foresaw
                notices.append(f"{server.name}.{spec.name}: the server's input schema is unusable "
                               f"({type(e).__name__}); tool left out")
                continue
            tools[tool.name] = tool
            loose |= set(tool.unsupported)
        if loose:
            notices.append(f"MCP server '{name}': the argument grammar cannot express "
                           f"{', '.join(sorted(loose))}; those are checked after generation")
    return tools, notices


def offered_beside(settings: Settings) -> dict[str, Any]:
    """The other tools a chat with ``settings`` offers (the registry's, memory's, the vault's: the
    features before this one in ``runtime.FEATURES``): counted against ``index_max``, searched by
    ``tool_search`` outside a chat."""
    return {**enabled_tools(settings), **offered([*MEMORY_TOOLS, *VAULT_TOOLS], settings)}


def with_search(tools: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``tools`` with ``tool_search`` in front when they and the others outnumber ``index_max``."""
    others = offered_beside(settings)
    if len(others) + len(tools) > settings.tools.index_max:
        return {ToolSearch.name: ToolSearch(lambda: {**others, **tools}, get_embedder), **tools}
    return dict(tools)


def all_mcp_tools(settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """MCP tools (+ ``tool_search`` when the tools outnumber ``index_max``), for ``nanobot tools``."""
    tools, notices = list_tools(servers_for(settings))
    return with_search(tools, settings), notices


def catalogue(settings: Settings) -> tuple[dict, dict, list[str]]:
    """The MCP servers' tools (starting the servers; none configured: nothing), all offered that
    ``[tools] enabled`` allows (``runtime.every_tool``)."""
    if not settings.mcp.servers:
        return {}, {}, []
    tools, notices = all_mcp_tools(settings)
    wanted = settings.tools.enabled
    return tools, {n: t for n, t in tools.items() if wanted is None or n in wanted}, notices


class McpFeature(Feature):
    name = "mcp"

    def __init__(self, settings: Settings):
        self.servers = servers_for(settings)
        self.notices: list[str] = []
        self._tools: list[Any] | None = None
        for server in self.servers.values():
            if server.config.eager:
                background.start(_preload, f"nanobot-mcp-{server.name}", (server,))

    def tools(self, settings: Settings) -> list[Any]:
        if self._tools is None:
            tools, self.notices = list_tools(self.servers)
            self._tools = list(with_search(tools, settings).values())
        return self._tools

    def on_session_start(self, agent):
        return self._notices()

    def on_turn_start(self, agent):
        return self._notices()

    def _notices(self) -> list[Notice]:
        out = [Notice(text=n, level="warning") for n in self.notices]
        self.notices = []
        return out


def _preload(server: McpServer) -> None:
    try:
        server.tools()
    except ToolError:
        pass  # reported when the tools are listed


def make_feature(agent: Any) -> McpFeature | None:
    return McpFeature(agent.settings) if agent.settings.mcp.servers else None
