"""Where a turn's time went, as the user lived it: from Enter (``Agent.turn`` called) to the first
visible token and to the end, with the tool steps in between.

The final reply's own ``Generation.ttft_s`` starts when the *reply* call starts, after the decision
and argument steps and the tools ran: on a turn with a tool call it hides most of the wait.
``TurnClock`` watches the turn's events and the tool runner's step figures (``StepStats``) and gives
a ``TurnTiming``, carried on ``TurnDone.timing`` and printed by ``nanobot chat -v``::

    first token 12.40s · decision 2.10s (2) · arguments 6.02s (1) · tools 0.31s · reply ttft 3.61s ·
    evaluations 5 (prefix_probability 2, stream 2, yes_no_apart 1) · total 19.80s
"""

from __future__ import annotations

import time

from pydantic import BaseModel

from nanobot.core.events import Event, TextDelta, ToolCall, ToolResult


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
            each = ", ".join(f"{k} {v}" for k, v in sorted(self.evaluations.items()))
            parts.append(f"evaluations {sum(self.evaluations.values())} ({each})")
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

    def timing(self, reply_ttft_s: float, evaluations: dict[str, int] | None = None) -> TurnTiming:
        end = self.clock()
        steps = self._steps[self._seen:] if self._steps is not None else []
        dec = [s.seconds for s in steps if s.kind == "decision"]
        arg = [s.seconds for s in steps if s.kind == "args"]
        return TurnTiming(first_token_s=(self.first or end) - self.start, total_s=end - self.start,
                          decision_s=sum(dec), decisions=len(dec), arguments_s=sum(arg), arguments=len(arg),
                          tools_s=self.tools_s, reply_ttft_s=reply_ttft_s, evaluations=dict(evaluations or {}))
