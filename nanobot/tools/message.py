"""message: tell the user something now (shown as a notice and kept in the transcript).

Off unless ``[tools] enabled`` names it: in a chat the reply is what the user reads, so a second way to
say something only duplicates it, and a small model takes a greeting for a message to send: it is shown
twice, after a fit judgement and a generated call the reply did not need.
"""

from __future__ import annotations

from pydantic import Field

from nanobot.tools.base import Tool, ToolArgs, ToolContext


class MessageArgs(ToolArgs):
    text: str = Field(description="the message for the user", min_length=1, max_length=2000)


class SendMessage(Tool):
    name = "message"
    effects = frozenset()  # a message to the user changes nothing they keep
    description = "Send a message to the user right away."
    default = False
    Args = MessageArgs

    def run(self, args: MessageArgs, ctx: ToolContext) -> str:
        ctx.notices.append(args.text)
        transcript = ctx.agent.transcript if ctx.agent is not None else None
        if transcript is not None:
            transcript.append("message", args.text)
        return "message delivered"
