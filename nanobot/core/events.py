"""What a turn yields to its caller (the CLI renders these; the library never prints)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from nanobot.backends.base import Generation


class TextDelta(BaseModel):
    kind: Literal["text"] = "text"
    text: str


class ToolCall(BaseModel):
    kind: Literal["tool_call"] = "tool_call"
    name: str
    arguments: dict


class ToolResult(BaseModel):
    kind: Literal["tool_result"] = "tool_result"
    name: str
    ok: bool
    text: str
    refused: str = ""  # the call policy's rule when it refused the call (``core.provenance.Refusal``)
    instead: str = ""  # the tool a failed call's error points to (``ToolError.instead``)


class Notice(BaseModel):
    """Something the user should know (history trimmed, observation written, ...)."""

    kind: Literal["notice"] = "notice"
    text: str
    level: Literal["info", "warning"] = "info"


class TurnDone(BaseModel):
    kind: Literal["done"] = "done"
    reply: str
    generation: Generation  # figures of the final model call of the turn
    interrupted: bool = False
    corrected: bool = False  # the reply checks' correction is on it: kept out of the model's history
    shown: bool = False  # nanobot showed a look's output as the reply (loop/spelled.py): no model wrote it; the
    # model's history keeps the output without the caption, and the memory index leaves it out
    timing: Any = None  # nanobot.loop.report.TurnTiming: Enter -> first token, tool steps, total


Event = TextDelta | ToolCall | ToolResult | Notice | TurnDone
