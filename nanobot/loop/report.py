"""What nanobot reports about a turn, as data that the CLI and the benchmarks render: where the turn's
time went (``TurnClock``, ``TurnTiming``) and what its prompt holds (``prompt_report``, ``sent_report``).
"""

from __future__ import annotations

import time

from pydantic import BaseModel

from nanobot.backends.base import abilities
from nanobot.core.events import Event, TextDelta, ToolCall, ToolResult
from nanobot.core.features import Agent

# Where a turn's time went, as the user lived it: from Enter (``Agent.turn`` called) to the first
# visible token and to the end, with the tool steps in between.
#
# The final reply's own ``Generation.ttft_s`` starts when the *reply* call starts, after the decision
# and argument steps and the tools ran: on a turn with a tool call it hides most of the wait.
# ``TurnClock`` watches the turn's events and the tool runner's step figures (``StepStats``) and gives
# a ``TurnTiming``, carried on ``TurnDone.timing`` and printed by ``nanobot chat -v``::
#
#     first token 12.40s · decision 2.10s (2) · arguments 6.02s (1) · tools 0.31s · reply ttft 3.61s ·
#     evaluations 5 (prefix_probability 2 1.20s, stream 2 9.80s, yes_no_apart 1 0.50s) · read 1 · total 19.80s

class TurnTiming(BaseModel):
    first_token_s: float  # Enter -> the first visible token of the reply (the whole turn when none)
    total_s: float  # Enter -> the turn done
    decision_s: float = 0.0  # the tool decision steps (the model choosing a tool or a reply)
    decisions: int = 0
    arguments_s: float = 0.0  # the constrained argument steps
    arguments: int = 0
    tools_s: float = 0.0  # tools running (an exec's confirmation question included)
    reply_ttft_s: float = 0.0  # the final reply call alone: its prompt evaluation and first token
    evaluations: dict[str, int] = {}  # model evaluations drawn from the turn's budget, by model method (loop.budget)
    evaluation_s: dict[str, float] = {}  # the seconds spent inside each of those methods
    set_up_s: float = 0.0  # set-up work the turn waited for, once per model and process (a calibration)
    read: int = 0  # judgements answered from what the backend kept (a draft's, judged before Enter)
    from_prompt: list[str] = []  # the prompt's repository facts a reply with no tool call gives (``repofacts.told``)

    def line(self) -> str:
        parts = [f"first token {self.first_token_s:.2f}s"]
        if self.decisions:
            parts.append(f"decision {self.decision_s:.2f}s ({self.decisions})")
        if self.arguments:
            parts.append(f"arguments {self.arguments_s:.2f}s ({self.arguments})")
        if self.tools_s:
            parts.append(f"tools {self.tools_s:.2f}s")
        parts.append(f"reply ttft {self.reply_ttft_s:.2f}s")
        if self.from_prompt:
            parts.append(f"from the prompt: {', '.join(self.from_prompt)}")
        if self.evaluations:
            each = ", ".join(f"{k} {v}" + (f" {self.evaluation_s[k]:.2f}s" if k in self.evaluation_s else "")
                             for k, v in sorted(self.evaluations.items()))
            parts.append(f"evaluations {sum(self.evaluations.values())} ({each})")
        if self.read:
            parts.append(f"read {self.read}")
        if self.set_up_s >= 0.01:
            parts.append(f"set-up {self.set_up_s:.2f}s")
        parts.append(f"total {self.total_s:.2f}s")
        return " · ".join(parts)


class TurnClock:
    """Started when the user's message arrives; ``see`` every event; ``timing`` at the end."""

    def __init__(self, steps: list | None = None, clock=time.perf_counter):
        self.clock = clock
        self.start = clock()
        self.first: float | None = None
        self._steps = steps  # the tool runner's StepStats list (it grows during the turn)
        self._seen = len(steps) if steps is not None else 0
        self._call_at: float | None = None
        self.tools_s = 0.0
        self.calls = 0  # tool calls seen this turn

    def see(self, ev: Event) -> None:
        now = self.clock()
        if isinstance(ev, TextDelta) and self.first is None and ev.text.strip():
            self.first = now
        elif isinstance(ev, ToolCall):
            self._call_at, self.calls = now, self.calls + 1
        elif isinstance(ev, ToolResult) and self._call_at is not None:
            self.tools_s += now - self._call_at
            self._call_at = None

    def timing(self, reply_ttft_s: float, evaluations: dict[str, int] | None = None, read: int = 0,
               evaluation_s: dict[str, float] | None = None) -> TurnTiming:
        end = self.clock()
        steps = self._steps[self._seen:] if self._steps is not None else []
        dec = [s.seconds for s in steps if s.kind == "decision"]
        arg = [s.seconds for s in steps if s.kind == "args"]
        return TurnTiming(first_token_s=(self.first or end) - self.start, total_s=end - self.start,
                          decision_s=sum(dec), decisions=len(dec), arguments_s=sum(arg), arguments=len(arg),
                          tools_s=self.tools_s, reply_ttft_s=reply_ttft_s, evaluations=dict(evaluations or {}),
                          read=read, evaluation_s={k: v for k, v in (evaluation_s or {}).items() if k in (evaluations or {})},
                          set_up_s=(evaluation_s or {}).get("set_up", 0.0))


# What ``nanobot prompt`` (and ``/prompt``, and the benchmarks) report about the prompt the next
# turn would use: the built sections with their tokens, the room left for the conversation, the tool
# index's cost, a query's memory block and the last turn's figures. Data only; the CLI renders it.
#
# ``sent_report`` is what the turn's first model call renders (``Agent.first_call``: the chat template's
# wrapping, the decline line and the tools block of template tool calls included), counted with the
# model's own tokenizer, so its total is the turn's ``prompt`` figure of ``nanobot chat -v``.

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
