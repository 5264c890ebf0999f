"""The ToolRunner: how an assistant step becomes either a reply or a validated tool call.

One step, on the prompt the agent built (system + history + user message):

1. **Decide** under a tiny grammar, right after the assistant header: ``Answer:`` or ``Tool: NAME``
   (only registered names). That is a few constrained tokens.
2. ``Answer:``: the answer is streamed from the *same* prompt (the decision text is dropped), so
   llama.cpp reuses the whole prompt from its KV cache (only the last token is replayed).
3. ``Tool: NAME``: the tool's schema enters the context for this call only (in the assistant prefill),
   as a one-line signature; the arguments are generated under a grammar built from the JSON schema,
   then validated by pydantic.
   A parse/validation error goes back as a short tool message and the arguments are retried
   (``tools.max_retries``); an execution error goes back as the tool's result. Results are cut to
   ``tools.output_tokens`` with a note. Then the next step decides again (``tools.max_steps``).

Each call and its outcome is appended to the turn's user message as ``[tool NAME {args} result]
...``, which every chat template accepts (some reject a "tool" role); a call identical to one already
run this turn ends the tool steps (small models otherwise repeat themselves).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from pydantic import BaseModel

from nanobot.backends.base import Message, abilities
from nanobot.base.errors import NanobotError
from nanobot.config import Settings
from nanobot.core.events import Event, Notice, ToolCall, ToolResult
from nanobot.core.features import Agent
from nanobot.core.provenance import call_key
from nanobot.tools.base import Tool, ToolContext
from nanobot.tools.effects import ANY_LOOK, declared, effects_of
from nanobot.tools.grammar import (
    CALL,
    compact_schema,
    decision_grammar,
    parse_decision,
    signature,
)
from nanobot.tools.registry import enabled_tools
from nanobot.tools.search import index_text
from nanobot.tools.truncate import truncate
from nanobot.tools.unbidden import barred, spelled_by_output
from nanobot.tools.validate import validate

DECISION_TOKENS = 24


class StepStats(BaseModel):
    """Figures of one constrained generation (for benchmarks and ``--verbose``)."""

    kind: str  # "decision" | "args"
    tool: str = ""
    seconds: float
    ttft_s: float  # prompt evaluation (plus the first token)
    tokens: int
    evaluated_tokens: int
    reused_tokens: int


class ToolRunner:
    def __init__(self, settings: Settings, tools: dict[str, Tool] | None = None):
        self.settings = settings
        self.tools = tools if tools is not None else enabled_tools(settings)
        self.refused = self.instead = ""  # the call policy's rule and the error's pointed-to tool for the last call run (``execute``)
        self._grammars: dict[str, str] = {}
        self.stats: list[StepStats] = []  # every constrained step, oldest first
        self.picks: dict[tuple, str] = {}  # the tool picked for a step's messages (``TemplateCalls.pick``)

    # -- the agent's contract ----------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self.tools)

    def index_text(self) -> str:
        """The prompt's tool index: every name, or names + groups above ``tools.index_max``."""
        return index_text(self.tools, self.settings.tools.index_max)

    def cost_report(self, count) -> dict:
        """Tokens of the tool index in the system prompt vs. all schemas spelled out."""
        index = "## Tools\n" + self.index_text()
        schemas = {n: count(compact_schema(t.schema())) for n, t in self.tools.items()}
        return {"index_tokens": count(index), "all_schemas_tokens": sum(schemas.values()),
                "tools": len(self.tools), "index_max": self.settings.tools.index_max,
                "compact_index": len(self.tools) > self.settings.tools.index_max, "schema_tokens": schemas,
                "decision_grammar_chars": len(decision_grammar(self.names()))}

    def template_calls(self, agent: Agent) -> bool:
        """Whether tool steps use the model's own format (``tools.templatecalls``): ``call_format``
        "template", or "auto" and a backend whose chat template declares tool support."""
        fmt = self.settings.tools.call_format
        can = abilities(agent.model)
        if not can.first_token:  # the backend cannot score the first token
            return False
        return fmt == "template" or (fmt == "auto" and can.tool_template)

    def listed_by_template(self, agent: Agent) -> bool:
        """Whether the template's tools slot lists the tools (template calls, ``tools.listing`` lean:
        ``tools.leancalls``), so the prompt needs no tool index of its own."""
        return self.settings.tools.listing == "lean" and self.template_calls(agent)

    def respond(self, agent: Agent, messages: list[Message], first: str = "") -> Iterator[Event]:
        """Tool steps, then the streamed reply; ``first``: the first step calls that tool, undecided."""
        if self.template_calls(agent):
            from nanobot.tools.templatecalls import TemplateCalls

            yield from TemplateCalls(self).respond(agent, messages, first)
            return
        msgs = list(messages)
        names = self.names()
        seen: set[str] = set()
        pointed = ""  # the offered tool a failed call's error points to: the next step calls it undecided
        for step in range(self.settings.tools.max_steps):
            if not self._room(agent, msgs):
                yield Notice(text="tool steps: the context is nearly full; answering now", level="warning")
                break
            if step == 0 and first in self.tools:
                name = first
            else:  # after a result: no unasked change offered (``unbidden``)
                shut = barred(agent, self.tools)
                name = pointed or self.decide(agent, msgs, [n for n in names if n not in shut] or names)
            if name is None:
                break
            self.instead = ""
            repeated = yield from self.call(agent, msgs, name, seen)
            if repeated:  # a small model repeats its last call: answer instead of looping
                break
            pointed = self.instead if self.instead in self.tools and self.instead != name else ""
        else:
            yield Notice(text=f"tool steps: reached tools.max_steps={self.settings.tools.max_steps}; answering now",
                         level="warning")
        yield from agent.stream_reply(msgs)

    def retry_tool(self, agent: Agent, messages: list[Message], name: str) -> Iterator[Event]:
        """A reply check's retry whose note names a tool (``CheckResult.tool``: read_file for a file the
        reply described unread): that tool is called directly, under its argument grammar, instead
        of a decision, so the model makes the call rather than repeating the note to the user."""
        if name == ANY_LOOK:
            name = self.looking_tool(agent, messages)
        yield from self.respond(agent, messages, first=name)

    def looking_tool(self, agent: Agent, messages: list[Message]) -> str:
        """The tool that looks or runs (``templatecalls.LOOKING``) the model picks for the messages (its
        fit judgement or its name step, ``TemplateCalls.pick``; the decision grammar among them on the
        other path); "" when none is offered or it picks none."""
        from nanobot.tools.templatecalls import LOOKING, TemplateCalls

        names = [n for n, t in self.tools.items() if declared(t) & LOOKING]
        if not names:
            return ""
        if self.template_calls(agent):
            return TemplateCalls(self).pick_among(agent, messages, LOOKING)
        return self.decide(agent, list(messages), names) or ""

    # -- steps -------------------------------------------------------------------------------
    def decide(self, agent: Agent, msgs: list[Message], names: list[str]) -> str | None:
        """Run the decision grammar; the chosen tool name or None (reply)."""
        text = self._generate(agent, msgs, decision_grammar(names), "", DECISION_TOKENS,
                              "decision", "")
        return parse_decision(text, names)

    def call(self, agent: Agent, msgs: list[Message], name: str,
             seen: set[str] | None = None) -> Generator[Event, None, bool]:
        """Generate, validate (with retries) and run one call of ``name``, noting the outcome in
        ``msgs``. Returns True (running nothing) when the same call already ran in ``seen``."""
        tool = self.tools[name]
        seen = set() if seen is None else seen
        for attempt in range(self.settings.tools.max_retries + 1):
            raw, args, error = self.arguments(agent, msgs, tool)
            self._record(agent, "call", name, raw, attempt=attempt)
            if args is None:
                last = attempt == self.settings.tools.max_retries
                note = error if last else f"{error}; fix the arguments and try again"
                yield ToolResult(name=name, ok=False, text=note)
                self._note(agent, msgs, name, raw, False, note)
                continue
            shown = args.model_dump(mode="json")
            key = call_key(name, shown)
            if key in seen:
                return True
            seen.add(key)
            if spelled := spelled_by_output(agent, name, shown):  # ``unbidden``: answered as never made
                yield Notice(text=f"tool steps: not run: '{spelled[:60]}' was spelled by a tool's output, not by you")
                return False
            ok, text = yield from self.run_valid(agent, name, args)
            self._note(agent, msgs, name, json.dumps(shown), ok, text)
            return False
        return False

    def run_valid(self, agent: Agent, name: str, args: BaseModel) -> Generator[Event, None, tuple[bool, str]]:
        """Run a validated call of ``name``, whichever path produced it (names, template, written
        as text): yields the call, the tool's notices and its result (cut to ``tools.output_tokens``);
        returns (ok, the result as the model sees it)."""
        yield ToolCall(name=name, arguments=args.model_dump(mode="json"))
        self.refused = self.instead = ""
        ok, text, notices = self.execute(agent, self.tools[name], args)
        for n in notices:
            yield Notice(text=n)
        text = self.truncate(agent, text)
        instead = self.instead if self.instead in self.tools else ""
        yield ToolResult(name=name, ok=ok, text=text, refused=self.refused, instead=instead)
        return ok, text

    def arguments(self, agent: Agent, msgs: list[Message], tool: Tool) -> tuple[str, Any, str]:
        """(raw JSON, validated args or None, error message)."""
        prefill = args_prefill(tool)
        raw = self._generate(agent, msgs, self.grammar(tool, tool.offered(ToolContext.for_agent(agent))), prefill, self.settings.tools.args_tokens,
                             "args", tool.name).strip()
        return (raw, *validate(tool, raw, agent.model.last.finish_reason == "length"))

    def execute(self, agent: Agent, tool: Tool, args: BaseModel) -> tuple[bool, str, list[str]]:
        ctx = ToolContext.for_agent(agent)
        out = execute(tool, args, ctx)
        self.refused, self.instead = ctx.refused, ctx.instead  # for the ToolResult (``run_valid``)
        return out

    def truncate(self, agent: Agent, text: str) -> str:
        return truncate(text, self.settings.tools.output_tokens, agent.model.count_tokens)

    def grammar(self, tool: Tool, schema: dict | None = None) -> str:
        """``tool``'s argument grammar under ``schema`` (what it offers this call: ``Tool.offered``; its
        ``parameters()`` when None), built once per tool and schema (an MCP tool builds its own)."""
        schema = tool.parameters() if schema is None else schema
        key = f"{tool.name}\n{json.dumps(schema, sort_keys=True)}"
        if key not in self._grammars:
            self._grammars[key] = tool.grammar() if schema == tool.parameters() else tool.grammar_of(schema)
        return self._grammars[key]

    # -- helpers -----------------------------------------------------------------------------
    def _room(self, agent: Agent, msgs: list[Message], **render: Any) -> bool:
        """Whether one more call (schema + arguments + a result) and the reply still fit n_ctx."""
        need = 128 + self.settings.tools.args_tokens + self.settings.tools.output_tokens
        return agent.model.prompt_tokens(msgs, **render) + need + self.settings.chat.max_tokens <= agent.model.n_ctx

    def _generate(self, agent: Agent, msgs: list[Message], grammar: str | None, prefill: str,
                  max_tokens: int, kind: str, tool: str, apart: bool = False, copies: bool = False,
                  until: Callable[[str], bool] | None = None, **extra: Any) -> str:
        """Generate at temperature 0 (``apart``: from a prompt of its own, the conversation's KV state
        put back after it where the backend can), recording the step's ``StepStats``. A step that
        ``copies`` (a file's whole text again, with one change) runs with no repeat penalty: the reply's
        (``[chat] repeat_penalty``) makes each copied token less likely than it is, so a fix that
        repeats a name (``side * side``) loses to the line as it was. ``until(text so far)`` true ends the
        generation there (what is left is decided: the rest of a name only one offered tool has)."""
        opts: dict = dict(max_tokens=max_tokens, temperature=0.0, grammar=grammar, prefill=prefill, **extra)
        if abilities(agent.model).sampling:
            opts["repeat_penalty"] = 1.0 if copies else agent.settings.chat.repeat_penalty
        start = time.perf_counter()
        if apart and callable(getattr(agent.model, "generate_apart", None)):
            text = agent.model.generate_apart(msgs, **opts)
        else:
            parts: list[str] = []
            stream = agent.model.stream(msgs, **opts)
            for piece in stream:
                parts.append(piece)
                if until is not None and until("".join(parts)):
                    stream.close()
                    break
            text = "".join(parts)
        last = agent.model.last
        self.stats.append(StepStats(kind=kind, tool=tool, seconds=time.perf_counter() - start,
                                    ttft_s=last.ttft_s, tokens=last.completion_tokens, evaluated_tokens=last.evaluated_tokens,
                                    reused_tokens=last.reused_tokens))
        return text

    def _note(self, agent: Agent, msgs: list[Message], name: str, args: str, ok: bool, text: str) -> None:
        """Append the call and its outcome to the last user message.

        Not as separate messages: a small model copies an assistant "Tool: ..." message into its
        reply, some templates reject a "tool" role or two user messages in a row, and appending to
        the end of the last message keeps the KV prefix valid up to there.
        """
        label = "result" if ok else "error"
        last = msgs[-1]
        msgs[-1] = Message(role=last.role, content=f"{last.content}\n\n[tool {name} {args} {label}]\n{text}")
        self._record(agent, "result", name, text, ok=ok)

    def _record(self, agent: Agent, kind: str, name: str, text: str, **meta: Any) -> None:
        """A call or its result in the transcript; a result with the call's declared effects, which the
        observer reads to tell what changed or ran from what only looked (no list of tool names)."""
        if kind == "call":
            self._called = (name, text)
        elif kind == "result" and (tool := self.tools.get(name)) is not None:
            called, raw = getattr(self, "_called", ("", ""))
            args = call_args(raw) if called == name else {}
            meta["effects"] = sorted(effects_of(tool, args if isinstance(args, dict) else {}))
        if agent.transcript is not None:
            agent.transcript.append("tool", text, kind=kind, name=name, **meta)


def call_args(raw: str) -> dict:
    """The arguments of a call as the transcript records it: the call's JSON (``{"name": ..., "arguments":
    {...}}``, its closing tag after it) or the arguments alone; {} for anything else.

    >>> call_args('{"name": "exec", "arguments": {"command": "make test"}}\\n</tool_call>')
    {'command': 'make test'}
    """
    try:
        parsed = json.loads(raw.strip().removesuffix("</tool_call>"))
    except ValueError:
        return {}
    if isinstance(parsed, dict) and isinstance(parsed.get("arguments"), dict):
        return parsed["arguments"]
    return parsed if isinstance(parsed, dict) else {}


def args_prefill(tool: Tool) -> str:
    """The assistant text the arguments are generated after: the decision, then the schema as a
    one-line signature (cheaper than JSON schema, and a 135M model copies fewer descriptions)."""
    return (f"{CALL}{tool.name}\n{tool.description} "
            f"{signature(tool.name, tool.parameters())}\nArguments: ")


def execute(tool: Tool, args: BaseModel, ctx: ToolContext) -> tuple[bool, str, list[str]]:
    """Run a validated call: (ok, result or error message, notices). Also ``nanobot tools run``."""
    try:
        return True, tool.run(args, ctx) or "(no output)", ctx.notices
    except NanobotError as e:
        kind = getattr(e, "kind", None)  # a call-policy refusal (``loop.callpolicy.PolicyError``)
        ctx.refused = getattr(kind, "value", "") if kind is not None else ""
        ctx.instead = getattr(e, "instead", "")
        return False, str(e), ctx.notices
    except Exception as e:  # a tool bug must not kill the chat
        return False, f"{tool.name} failed: {type(e).__name__}: {e}", ctx.notices
