"""One MCP server behind a synchronous facade: the official SDK runs on a background event loop.

``McpServer(name, settings, home)`` starts nothing; the first ``tools()`` or ``call()`` starts it
(stdio: the command as a child process, its stderr appended to ``$NANOBOT_HOME/logs/mcp-NAME.log``;
HTTP: a streamable-HTTP session). Every wait is bounded by ``[mcp] timeout_s``. A server that
crashes or hangs raises ``ToolError`` with one line and is stopped; the next call starts it again,
once: a server that fails again before answering is left down for the process (``McpServer.down``).

Example::

    server = McpServer("demo", settings.mcp.servers["demo"], settings)
    [t.name for t in server.tools()]           # listed once, then cached
    server.call("echo", {"text": "hi"})        # mcp_types.CallToolResult
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import io
import logging
import os
import threading
from typing import Any

import mcp_types as types

from nanobot.base.errors import ToolError
from nanobot.base.regular import open_append
from nanobot.config import Settings
from nanobot.config.mcp import McpServerSettings

for _name in ("mcp", "httpx2"):  # the SDK's own warnings never reach the chat's terminal
    logging.getLogger(_name).addHandler(logging.NullHandler())

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()
_servers: list[McpServer] = []


def event_loop() -> asyncio.AbstractEventLoop:
    """The process-wide loop the SDK runs on (a daemon thread, started on first use)."""
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="nanobot-mcp", daemon=True).start()
            atexit.register(close_all)
        return _loop


def close_all(timeout: float = 5.0) -> None:
    """Stop every started server (at exit: stdio children get their stdin closed, then killed)."""
    for server in list(_servers):
        server.stop(wait=timeout)


def one_line(e: BaseException) -> str:
    """An exception (or exception group) as one short line."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:200]


class McpServer:
    def __init__(self, name: str, config: McpServerSettings, settings: Settings):
        self.name, self.config = name, config
        self.timeout = settings.mcp.timeout_s
        self.log_path = settings.home / "logs" / f"mcp-{name}.log"
        self.failures = 0
        self.last_error = ""
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._tools: list[types.Tool] | None = None
        self._call_lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._session is not None and self._task is not None and not self._task.done()

    @property
    def down(self) -> bool:
        return self.failures >= 2

    # -- public, synchronous ----------------------------------------------------------------
    def tools(self) -> list[types.Tool]:
        """The server's tools, listed once (starting the server if needed) and then cached."""
        if self._tools is None:
            self._tools = self._run(self._list(), "list its tools")
        return self._tools

    def call(self, tool: str, arguments: dict) -> types.CallToolResult:
        """Call ``tool``; ToolError with one line when the server is down, crashes or hangs."""
        return self._run(self._session_call(tool, arguments), f"run {tool}")

    def stop(self, wait: float = 0.0) -> None:
        """Stop the server (if running); ``wait`` seconds for it to exit, 0 = do not wait."""
        loop, task = _loop, self._task
        self._session = None
        if loop is None or task is None or task.done():
            return
        if self._stop is not None:
            loop.call_soon_threadsafe(self._stop.set)
        if wait:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(asyncio.wait({task}, timeout=wait), loop).result(wait + 1)

    # -- internals ---------------------------------------------------------------------------
    def _run(self, coro, what: str):
        with self._call_lock:  # one request at a time per server (the runner is sequential anyway)
            if self.down:
                coro.close()
                raise ToolError(f"MCP server '{self.name}' is down after failing twice ({self.last_error}); "
                                f"see {self.log_path} and start a new chat once it is fixed")
            future = asyncio.run_coroutine_threadsafe(self._ensure_then(coro), event_loop())
            try:
                result = future.result(2 * self.timeout + 5)
                self.failures = 0  # restarted and answering: a later fault may restart it again
                return result
            except ToolError:
                raise
            except Exception as e:  # crash, hang, protocol error: stop it; the next call restarts
                future.cancel()
                timed_out = isinstance(e, TimeoutError) or "timed out" in str(e).lower()
                why = f"timed out after {self.timeout:g}s ([mcp] timeout_s)" if timed_out else one_line(e)
                return self._failed(f"could not {what}: {why}")

    def _failed(self, why: str):
        self.failures += 1
        self.last_error = why
        self.stop()
        again = "it will be restarted on the next call" if not self.down else "it stays down this session"
        raise ToolError(f"MCP server '{self.name}' {why}; {again} (log: {self.log_path})")

    async def _ensure_then(self, coro):
        try:
            if not self.running:
                await self._start()
        except BaseException:
            coro.close()
            raise
        return await coro

    async def _start(self) -> None:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._serve(ready, self._stop))
        if self not in _servers:
            _servers.append(self)
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.timeout)
        except BaseException:
            self._task.cancel()  # still spawning or initializing: cancelling kills the child
            raise

    async def _serve(self, ready: asyncio.Future, stop: asyncio.Event) -> None:
        from mcp.client.session import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self._session = session
                ready.set_result(None)
                await stop.wait()
        except BaseException as e:
            if not ready.done():
                ready.set_exception(ToolError(f"MCP server '{self.name}' did not start: {one_line(e)}"))
        finally:
            self._session = None

    def _transport(self, stack: contextlib.AsyncExitStack):
        cfg = self.config
        if cfg.url is not None:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers=self._headers())
            return streamable_http_client(cfg.url, http_client=client)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        errlog = stack.enter_context(io.TextIOWrapper(open_append(self.log_path), encoding="utf-8"))  # the child's stderr
        params = StdioServerParameters(command=cfg.command, args=cfg.args, env=cfg.env or None,
                                       cwd=cfg.cwd.expanduser() if cfg.cwd else None)
        return stdio_client(params, errlog=errlog)

    def _headers(self) -> dict[str, str]:
        spec = self.config.headers_env
        if spec is None:
            return {}
        pairs = {"Authorization": spec} if isinstance(spec, str) else spec
        headers = {}
        for header, var in pairs.items():
            value = os.environ.get(var)
            if value is None:
                raise ToolError(f"MCP server '{self.name}': environment variable {var} (headers_env) "
                                "is not set; export it before starting nanobot")
            headers[header] = f"Bearer {value}" if isinstance(spec, str) else value
        return headers

    async def _list(self) -> list[types.Tool]:
        out: list[types.Tool] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._session.list_tools(params=params)
            out.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return out

    async def _session_call(self, tool: str, arguments: dict) -> types.CallToolResult:
        return await self._session.call_tool(tool, arguments, read_timeout_seconds=self.timeout)
