"""What ``nanobot prompt`` (and ``/prompt``, and the benchmarks) report about the prompt the next
turn would use: the built sections with their tokens, the room left for the conversation, the tool
index's cost, a query's memory block and the last turn's figures. Data only; the CLI renders it.

``sent_report`` is what the turn's first model call renders (``Agent.first_call``: the chat template's
wrapping, the decline line and the tools block of template tool calls included), counted with the
model's own tokenizer, so its total is the turn's ``prompt`` figure of ``nanobot chat -v``."""

from __future__ import annotations

from nanobot.backends.base import abilities
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
    data["sent"] = sent = sent_report(agent, query)
    reserve = agent.settings.chat.max_tokens
    room = agent.model.n_ctx - sent["prefix_tokens"] - reserve
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


def sent_report(agent: Agent, query: str | None = None) -> dict:
    """Tokens the next turn sends, as rows that sum to the total: the sections, the template's wrapping
    (and decline line), the tools block; with ``query`` also its memory block and the message itself."""
    model = agent.model
    sections = [{"name": s.name, "tokens": s.tokens} for s in agent.system_prompt().sections]
    msgs, render = agent.first_call([*agent.system_messages(), *agent.history])
    prefix = model.prompt_tokens(msgs, **render)
    bare = model.prompt_tokens(msgs) if render else prefix
    rows = [*sections, {"name": "template wrapping" + (", decline line" if render else ""),
                        "tokens": bare - sum(s["tokens"] for s in sections)}]
    if render:
        rows.append({"name": f"tools block ({agent.settings.tools.listing})", "tokens": prefix - bare})
    out = {"call_format": "template" if render else "names", "prefix_tokens": prefix, "tokens": prefix}
    if query is not None:
        memory = agent.memory_block(query)
        text = f"{memory}\n\n{query}" if memory else query
        turn, render = agent.first_call(agent.messages_for(text))
        out["tokens"] = total = model.prompt_tokens(turn, **render)
        memory_tokens = model.count_tokens(memory)
        rows += [{"name": "memory (this turn)", "tokens": memory_tokens},
                 {"name": "message", "tokens": total - prefix - memory_tokens}]
    out["rows"] = rows
    return out
