"""Helpers for the MCP tests: the SDK-written demo server (tests/mcp_servers/demo.py) as a stdio
server config, or started over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

DEMO = Path(__file__).parent / "mcp_servers" / "demo.py"


def stdio_server(calls: Path, trust: str = "allow", many: bool = False) -> dict:
    env = {"DEMO_CALLS": str(calls)} | ({"DEMO_MANY": "1"} if many else {})
    return {"command": sys.executable, "args": [str(DEMO), "stdio"], "env": env, "trust": trust}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), 0.2):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def http_server(calls: Path, log: Path):
    """The demo server over streamable HTTP; yields its URL."""
    port = free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, str(DEMO), "http", str(port)], stdout=out, stderr=out,
                                env={"DEMO_CALLS": str(calls), "PATH": "/usr/bin:/bin"})
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"the demo MCP server did not listen in 60 s: {log.read_text()}"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


def calls_made(calls: Path) -> list[dict]:
    import json

    return [json.loads(line) for line in calls.read_text().splitlines()] if calls.exists() else []
