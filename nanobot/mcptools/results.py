"""An MCP tool result as the text the model reads: text kept, everything else summarised.

>>> import mcp_types as t
>>> summarise(t.CallToolResult(content=[t.TextContent(type="text", text="a red square"),
...     t.ImageContent(type="image", data="A" * 16384, mime_type="image/png")]))
'a red square\\n[image: 12 KB]'
"""

from __future__ import annotations

import json

import mcp_types as types

MAX_CHARS = 20_000  # like exec's cap; the runner then cuts to tools.output_tokens


def summarise(result: types.CallToolResult) -> str:
    parts = [_block(b) for b in result.content]
    if not parts and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n".join(p for p in parts if p) or "(no output)"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n[output cut at {MAX_CHARS} chars]"
    return text


def _kb(n_bytes: int) -> str:
    return f"{max(1, round(n_bytes / 1024))} KB"


def _b64_bytes(data: str) -> int:
    return len(data) * 3 // 4 - data.count("=", -2)


def _block(block) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        return f"[{kind}: {_kb(_b64_bytes(block.data))}]"
    if kind == "resource":
        res = block.resource
        size = len(res.text.encode()) if getattr(res, "text", None) is not None else _b64_bytes(res.blob)
        return f"[resource: {res.uri}, {_kb(size)}]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}]"
    return f"[{kind or 'content'}]"
