"""What ``nanobot prompt`` (and ``/prompt``, and the benchmarks) report about the prompt the next
turn would use: the built sections with their tokens, the room left for the conversation, the tool
index's cost, a query's memory block and the last turn's figures. Data only; the CLI renders it."""

from __future__ import annotations

from nanobot.backends.base import Message, abilities
from nanobot.core.features import Agent


def prompt_report(agent: Agent, query: str | None = None) -> dict:
    """Everything ``nanobot prompt --json`` shows; also used by /prompt and the benchmarks."""
    built = agent.system_prompt()
    data = built.model_dump()
    data["model"] = agent.model.name
    data["n_ctx"] = agent.model.n_ctx
    data["token_counting"] = abilities(agent.model).token_counting
    data["text"] = built.text
    data["stable_tokens"] = agent.model.count_tokens(built.stable_text)
    reserve = agent.settings.chat.max_tokens
    room = agent.model.n_ctx - agent.model.prompt_tokens([Message(role="system", content=built.text)]) - reserve
    data["conversation"] = {"tokens": room, "share": round(room / agent.model.n_ctx, 3), "reply_reserve": reserve}
    runner = agent.tool_runner
    if runner is not None and hasattr(runner, "cost_report"):
        data["tools"] = runner.cost_report(agent.model.count_tokens)
    if query is not None:
        block = agent.memory_block(query)
        data["memory"] = {"query": query, "text": block, "tokens": agent.model.count_tokens(block),
                          "budget": agent.settings.prompt.memory}
    last = agent.last
    data["last_turn"] = last.model_dump(exclude={"text"}) if last.prompt_tokens else None
    return data
