"""``[mcp]`` and ``[mcp.servers.NAME]``: the MCP tools feature's section (``nanobot/mcptools/``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from nanobot.config.strict import SECONDS, Strict


class McpServerSettings(Strict):
    """One MCP server: ``command`` (+ args, env, cwd) for stdio, or ``url`` for streamable HTTP."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    # an env var whose value is sent as "Authorization: Bearer <value>", or {header = "ENV_VAR"}
    headers_env: str | dict[str, str] | None = None
    trust: Literal["ask", "allow"] = "ask"  # ask: like exec, a call runs only if the user agrees
    eager: bool = False  # start with the chat instead of on first use

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs exactly one of command (stdio) or url (streamable HTTP)")
        return self


class McpSettings(Strict):
    timeout_s: float = Field(30.0, gt=0, le=SECONDS)  # per call (and per start); a hung server is restarted
    servers: dict[str, McpServerSettings] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names(self) -> McpSettings:
        bad = [n for n in self.servers if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", n)]
        if bad:
            raise ValueError(f"MCP server name {bad[0]!r}: use letters, digits, _ or - (the tools' prefix)")
        return self
