"""message: tell the user something now (shown as a notice and kept in the transcript)."""

from __future__ import annotations

from pydantic import Field

from nanobot.tools.base import Tool, ToolArgs, ToolContext


class MessageArgs(ToolArgs):
    text: str = Field(description="the message for the user", min_length=1, max_length=2000)


class SendMessage(Tool):
    name = "message"
    effects = frozenset()  # a message to the user changes nothing they keep
    description = "Send a message to the user right away."
    Args = MessageArgs

    def run(self, args: MessageArgs, ctx: ToolContext) -> str:
        ctx.notices.append(args.text)
        transcript = getattr(ctx.agent, "transcript", None)
        if transcript is not None:
            transcript.append("message", args.text)
        return "message delivered"
