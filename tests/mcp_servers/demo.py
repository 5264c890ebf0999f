"""A small MCP server written with the official SDK, for the MCP tests.

    python demo.py stdio             # stdio transport
    python demo.py http PORT         # streamable HTTP on 127.0.0.1:PORT/mcp

DEMO_CALLS=path: every call is appended there (the tests check what reached the server).
DEMO_MANY=1: also serve the 200 tools of catalog.py.
"""

import json
import os
import sys
import time
from typing import Annotated, Literal

from catalog import catalog
from mcp.server.mcpserver import Image, MCPServer
from pydantic import BaseModel, Field

app = MCPServer("demo")


def record(name: str, args: dict) -> None:
    path = os.environ.get("DEMO_CALLS")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"tool": name, "args": args}) + "\n")


class Address(BaseModel):
    city: str = Field(description="city name", min_length=1, max_length=20)
    zip: str = Field(description="five-digit postal code", pattern=r"^[0-9]{5}$")


@app.tool()
def echo(text: str = Field(description="the text to repeat", max_length=40)) -> str:
    """Repeat a text back."""
    record("echo", {"text": text})
    print(f"echo called with {text!r}", file=sys.stderr, flush=True)  # must go to the log, not the terminal
    return f"echo: {text}"


@app.tool()
def ship(to: Address, speed: Literal["slow", "fast"] = "slow",
         tags: list[Annotated[str, Field(max_length=12)]] = Field(default_factory=list, max_length=3)) -> str:
    """Ship a parcel to an address."""
    record("ship", {"to": to.model_dump(), "speed": speed, "tags": tags})
    return f"shipped to {to.city} {to.zip} ({speed})"


@app.tool()
def set_mode(mode: Literal["eco", "boost", "off"]) -> str:
    """Set the heater mode."""
    record("set_mode", {"mode": mode})
    return f"mode is {mode}"


@app.tool()
def crash() -> str:
    """Crash the server in the middle of the call."""
    record("crash", {})
    print("about to crash", file=sys.stderr, flush=True)
    os._exit(3)


@app.tool()
def hang() -> str:
    """Never answer."""
    record("hang", {})
    time.sleep(3600)
    return "unreachable"


@app.tool()
def picture() -> list:
    """Return a picture and a caption."""
    return ["a red square", Image(data=b"\x89PNG" + b"\0" * (12 * 1024 - 4), format="png")]


if os.environ.get("DEMO_MANY"):
    for tool_name, description in catalog():
        def make(n=tool_name):
            def fn(query: str = "") -> str:
                record(n, {"query": query})
                return f"{n} done"
            return fn
        app.add_tool(make(), name=tool_name, description=description)

if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
