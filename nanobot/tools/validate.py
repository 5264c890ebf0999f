"""One tool call's JSON arguments, parsed and validated against the tool's pydantic model.

Shared by both tool-call paths (names + schema in ``runner``, the model's own format in
``templatecalls``) and by ``nanobot tools run``; its own module so neither path imports the other.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ValidationError

from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool


def validate(tool: Tool, raw: str, cut: bool = False) -> tuple[BaseModel | None, str]:
    """Parse and validate ``raw`` against ``tool.Args``: (args, "") or (None, short error)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        why = "cut off before the JSON was complete" if cut else f"not valid JSON ({e.msg})"
        return None, f"arguments for {tool.name} were {why}"
    try:
        return tool.Args.model_validate(data), ""
    except ValidationError as e:
        parts = []
        for item in e.errors()[:3]:
            loc = ".".join(str(p) for p in item["loc"]) or "arguments"
            parts.append(f"{loc}: {item['msg']}")
        return None, f"arguments for {tool.name} are invalid: " + "; ".join(parts)
    except ToolError as e:
        return None, str(e)
