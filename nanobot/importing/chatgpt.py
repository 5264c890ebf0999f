"""ChatGPT's data export (``conversations.json``) -> sessions: each conversation's active branch.

A conversation is ``{title, create_time, current_node, mapping}``; ``mapping`` holds the message tree,
node id -> ``{parent, children, message: {author: {role}, create_time, content: {parts}}}``. Editing a
message or regenerating a reply starts a sibling branch; what the person last saw is the path from
the root to ``current_node``, and only that is imported. The other branches are counted in
``Skipped`` and left out. Roles other than user and assistant (system, tool), hidden messages, calls
to tools and parts that are not text (images, files) are skipped; a message without a time is one
second after the one before it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from nanobot.importing.formats import (
    ImportedMessage,
    ImportedSession,
    ImportFormatError,
    parse_time,
)
from nanobot.importing.jsonformats import next_ts

FORMAT = "ChatGPT export"


class Skipped(BaseModel):
    """What an import left out on purpose: other branches of ChatGPT trees and their messages."""

    branches: int = 0
    messages: int = 0


def is_chatgpt(item: Any) -> bool:
    return isinstance(item, dict) and "mapping" in item


def chatgpt_session(d: dict, where: str, fallback: datetime, skipped: Skipped) -> ImportedSession:
    mapping = d.get("mapping")
    if not isinstance(mapping, dict):
        raise ImportFormatError(f"{where}: a {FORMAT}'s 'mapping' must be an object of message nodes")
    path = _active(mapping, d.get("current_node"), where)
    on = {id(n) for n in path}
    start = parse_time(d["create_time"], where) if d.get("create_time") is not None else fallback
    out = ImportedSession(started=start, messages=[], title=str(d.get("title") or "")[:200])
    for node in path:
        text, role = _said(node.get("message"))
        if text:
            m = node["message"]
            ts = parse_time(m["create_time"], where) if m.get("create_time") is not None else next_ts(out, start)
            out.messages.append(ImportedMessage(role=role, content=text, ts=ts, ref=str(m.get("id") or "")))
    skipped.branches += sum(1 for n in path for c in n.get("children") or []
                            if not isinstance(mapping.get(c), dict) or id(mapping[c]) not in on)
    skipped.messages += sum(1 for n in mapping.values()
                            if isinstance(n, dict) and id(n) not in on and _said(n.get("message"))[0])
    if out.messages:
        out.started = min(start, out.messages[0].ts)
    return out


def _active(mapping: dict, node_id: Any, where: str) -> list[dict]:
    """The nodes from the root to ``node_id`` (the current node), root first."""
    if node_id is None:
        raise ImportFormatError(f"{where}: a {FORMAT}'s conversation needs 'current_node' (its last message)")
    path: list[dict] = []
    seen: set[str] = set()
    while node_id is not None:
        node = mapping.get(node_id) if isinstance(node_id, str) else None
        if not isinstance(node, dict):
            raise ImportFormatError(f"{where}: node {str(node_id)[:40]!r} is not in the {FORMAT}'s 'mapping'")
        if node_id in seen:
            raise ImportFormatError(f"{where}: the {FORMAT}'s 'mapping' loops at node {node_id[:40]!r}")
        seen.add(node_id)
        path.append(node)
        node_id = node.get("parent")
    return path[::-1]


def _said(m: Any) -> tuple[str, str]:
    """(text, role) of a node's message; ("", "") for one not to import."""
    if not isinstance(m, dict):
        return "", ""
    role = (m.get("author") or {}).get("role") if isinstance(m.get("author"), dict) else None
    meta = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
    if role not in ("user", "assistant") or meta.get("is_visually_hidden_from_conversation") \
            or m.get("recipient") not in (None, "all"):
        return "", ""
    content = m.get("content") if isinstance(m.get("content"), dict) else {}
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None for p in parts]
        text = "\n".join(t for t in texts if isinstance(t, str))
    else:
        text = content.get("text") if content.get("content_type") == "text" else None
    return (text.strip(), role) if isinstance(text, str) else ("", "")
