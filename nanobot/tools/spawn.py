"""spawn: a sub-agent with its own lean context (no history, no tools) on the same model."""

from __future__ import annotations

from pydantic import Field

from nanobot.backends.base import Message, abilities
from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool, ToolArgs, ToolContext

SUB_SYSTEM = "You are a focused helper. Do the task and answer with the result only, briefly."


class SpawnArgs(ToolArgs):
    task: str = Field(description="self-contained task for the sub-agent", min_length=1, max_length=2000)


class Spawn(Tool):
    name = "spawn"
    effects = frozenset()  # the sub-agent answers in text, with no tools: nothing changes
    description = "Give a self-contained task to a sub-agent and get its answer."
    Args = SpawnArgs

    def run(self, args: SpawnArgs, ctx: ToolContext) -> str:
        if ctx.model is None:
            raise ToolError("spawn needs a loaded model; it only works inside a chat")
        chat = ctx.settings.chat
        opts: dict = dict(max_tokens=chat.max_tokens, temperature=chat.temperature)
        if abilities(ctx.model).sampling:
            opts["repeat_penalty"] = chat.repeat_penalty
        msgs = [Message(role="system", content=SUB_SYSTEM), Message(role="user", content=args.task)]
        answer = "".join(ctx.model.stream(msgs, **opts)).strip()
        return answer or "(the sub-agent gave no answer)"
