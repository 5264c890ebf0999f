"""The ToolRunner: how an assistant step becomes either a reply or a validated tool call.

One step, on the prompt the agent built (system + history + user message):

1. **Decide** under a tiny grammar, after the assistant header with the prefill ``"Next step: "``:
   ``reply`` or ``call NAME`` (only registered names). That is 1-6 constrained tokens.
2. ``reply``: the answer is streamed from the *same* prompt without the prefill, so llama.cpp reuses
   the whole prompt from its KV cache (only the last token is replayed).
3. ``call NAME``: the tool's schema enters the context for this call only (in the assistant prefill),
   as a one-line signature; the arguments are generated under a grammar built from the JSON schema,
   then validated by pydantic.
   A parse/validation error goes back as a short tool message and the arguments are retried
   (``tools.max_retries``); an execution error goes back as the tool's result. Results are cut to
   ``tools.output_tokens`` with a note. Then the next step decides again (``tools.max_steps``).

Tool exchanges are rendered as an assistant message ``call NAME {json}`` and a *user*-role message
``[tool NAME result] ...``, which every chat template accepts (some reject a "tool" role).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from nanobot.backends.base import Message
from nanobot.config import Settings
from nanobot.errors import NanobotError, ToolError
from nanobot.events import Event, Notice, ToolCall, ToolResult
from nanobot.tools.base import Tool, ToolContext
from nanobot.tools.grammar import (
    args_grammar,
    compact_schema,
    decision_grammar,
    parse_decision,
    signature,
)
from nanobot.tools.registry import enabled_tools
from nanobot.tools.truncate import truncate

DECISION_PREFILL = "Next step: "
DECISION_TOKENS = 12
ARGS_TOKENS = 400


class StepStats(BaseModel):
    """Figures of one constrained generation (for benchmarks and ``--verbose``)."""

    kind: str  # "decision" | "args"
    tool: str = ""
    seconds: float
    tokens: int
    evaluated_tokens: int
    reused_tokens: int


class ToolRunner:
    def __init__(self, settings: Settings, tools: dict[str, Tool] | None = None):
        self.settings = settings
        self.tools = tools if tools is not None else enabled_tools(settings)
        self._grammars: dict[str, str] = {}
        self.stats: list[StepStats] = []  # every constrained step, oldest first
        self.pre_turn: list[Any] = []  # callables(agent) -> list[Event], run at each turn start

    # -- the agent's contract ----------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self.tools)

    def cost_report(self, count) -> dict:
        """Tokens of the tool index in the system prompt vs. all schemas spelled out."""
        index = "## Tools\n" + ", ".join(self.names())
        schemas = {n: count(compact_schema(t.schema())) for n, t in self.tools.items()}
        return {"index_tokens": count(index), "all_schemas_tokens": sum(schemas.values()),
                "tools": len(self.tools), "schema_tokens": schemas,
                "decision_grammar_chars": len(decision_grammar(self.names()))}

    def respond(self, agent: Any, messages: list[Message]) -> Iterator[Event]:
        for hook in self.pre_turn:
            yield from hook(agent)
        msgs = list(messages)
        names = self.names()
        for _ in range(self.settings.tools.max_steps):
            name = self.decide(agent, msgs, names)
            if name is None:
                break
            yield from self.call(agent, msgs, name)
        else:
            yield Notice(text=f"tool steps: reached tools.max_steps={self.settings.tools.max_steps}; answering now",
                         level="warning")
        yield from agent.stream_reply(msgs)

    # -- steps -------------------------------------------------------------------------------
    def decide(self, agent: Any, msgs: list[Message], names: list[str]) -> str | None:
        """Run the decision grammar; the chosen tool name or None (reply)."""
        text = self._generate(agent, msgs, decision_grammar(names), DECISION_PREFILL,
                              DECISION_TOKENS, "decision", "")
        return parse_decision(text, names)

    def call(self, agent: Any, msgs: list[Message], name: str) -> Iterator[Event]:
        """Generate, validate (with retries) and run one call of ``name``; extends ``msgs``."""
        tool = self.tools[name]
        for attempt in range(self.settings.tools.max_retries + 1):
            raw, args, error = self.arguments(agent, msgs, tool)
            shown = args.model_dump(mode="json") if args is not None else {"raw": raw}
            msgs.append(Message(role="assistant", content=f"call {name} {raw}"))
            self._record(agent, "call", name, raw, attempt=attempt)
            if args is None:
                note = f"{error}; fix the arguments and try again" if attempt < self.settings.tools.max_retries else error
                yield ToolResult(name=name, ok=False, text=note)
                self._result(agent, msgs, name, False, note)
                continue
            yield ToolCall(name=name, arguments=shown)
            ok, text, notices = self.execute(agent, tool, args)
            for n in notices:
                yield Notice(text=n)
            text = truncate(text, self.settings.tools.output_tokens, agent.model.count_tokens)
            yield ToolResult(name=name, ok=ok, text=text)
            self._result(agent, msgs, name, ok, text)
            return

    def arguments(self, agent: Any, msgs: list[Message], tool: Tool) -> tuple[str, Any, str]:
        """(raw JSON, validated args or None, error message)."""
        prefill = args_prefill(tool)
        gen_max = min(ARGS_TOKENS, self.settings.chat.max_tokens)
        raw = self._generate(agent, msgs, self.grammar(tool), prefill, gen_max, "args", tool.name).strip()
        return (raw, *validate(tool, raw, agent.model.last.finish_reason == "length"))

    def execute(self, agent: Any, tool: Tool, args: BaseModel) -> tuple[bool, str, list[str]]:
        ctx = ToolContext.for_agent(agent)
        try:
            return True, tool.run(args, ctx) or "(no output)", ctx.notices
        except NanobotError as e:
            return False, str(e), ctx.notices
        except Exception as e:  # a tool bug must not kill the chat
            return False, f"{tool.name} failed: {type(e).__name__}: {e}", ctx.notices

    def grammar(self, tool: Tool) -> str:
        if tool.name not in self._grammars:
            self._grammars[tool.name] = args_grammar(tool.parameters())
        return self._grammars[tool.name]

    # -- helpers -----------------------------------------------------------------------------
    def _generate(self, agent: Any, msgs: list[Message], grammar: str, prefill: str,
                  max_tokens: int, kind: str, tool: str) -> str:
        opts: dict = dict(max_tokens=max_tokens, temperature=0.0, grammar=grammar, prefill=prefill)
        if hasattr(agent.model, "settings"):
            opts["repeat_penalty"] = agent.settings.chat.repeat_penalty
        start = time.perf_counter()
        text = "".join(agent.model.stream(msgs, **opts))
        last = agent.model.last
        self.stats.append(StepStats(kind=kind, tool=tool, seconds=time.perf_counter() - start,
                                    tokens=last.completion_tokens, evaluated_tokens=last.evaluated_tokens,
                                    reused_tokens=last.reused_tokens))
        return text

    def _result(self, agent: Any, msgs: list[Message], name: str, ok: bool, text: str) -> None:
        label = "result" if ok else "error"
        msgs.append(Message(role="user", content=f"[tool {name} {label}]\n{text}"))
        self._record(agent, "result", name, text, ok=ok)

    @staticmethod
    def _record(agent: Any, kind: str, name: str, text: str, **meta: Any) -> None:
        if getattr(agent, "transcript", None) is not None:
            agent.transcript.append("tool", text, kind=kind, name=name, **meta)


def args_prefill(tool: Tool) -> str:
    """The assistant text the arguments are generated after: the decision, then the schema as a
    one-line signature (cheaper than JSON schema, and a 135M model copies fewer descriptions)."""
    return (f"{DECISION_PREFILL}call {tool.name}\n{tool.description} "
            f"{signature(tool.name, tool.parameters())}\nArguments: ")


def validate(tool: Tool, raw: str, cut: bool = False) -> tuple[BaseModel | None, str]:
    """Parse and validate ``raw`` against ``tool.Args``: (args, "") or (None, short error)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        why = "cut off before the JSON was complete" if cut else f"not valid JSON ({e.msg})"
        return None, f"arguments for {tool.name} were {why}"
    try:
        return tool.Args.model_validate(data), ""
    except ValidationError as e:
        parts = []
        for item in e.errors()[:3]:
            loc = ".".join(str(p) for p in item["loc"]) or "arguments"
            parts.append(f"{loc}: {item['msg']}")
        return None, f"arguments for {tool.name} are invalid: " + "; ".join(parts)
    except ToolError as e:
        return None, str(e)


def attach_tools(agent: Any) -> ToolRunner:
    """Give ``agent`` a ToolRunner over the enabled tools, and fire due cron entries per turn."""
    from nanobot.tools.cron import CronHook, notices

    runner = ToolRunner(agent.settings)
    runner.pre_turn.append(lambda a: notices(a.settings))
    agent.tool_runner = runner
    agent.hooks.append(CronHook())
    return runner
