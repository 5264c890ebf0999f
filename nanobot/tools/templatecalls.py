"""Tool steps in the model's own format, for models whose chat template declares tool support.

A template-tool model (Qwen2.5: ``LlamaBackend.tool_template``) answers in text or with
``<tool_call>{"name", "arguments"}</tool_call>``. One step here (docs/tools.md tells the whole loop):

1. **Decide**: the prompt rendered with the offered tools and a line saying to answer in text when no
   function fits (``DECLINE``) gives P(the reply opens a call) (``prefix_probability`` of ``STARTS``);
   under ``tools.call_threshold`` the step answers in text: alone, the model opens a call for almost anything.
2. **Call**: after ``<tool_call>`` the call is generated under ``callgrammar.call_grammar`` and validated
   by the tool's ``Args``; an error goes back as a tool message and the call is retried (``tools.max_retries``).
3. The call and its result enter the context as the template expects them; the next step decides again,
   with no change nobody asked for offered and no command run that only a result spelled (``unbidden``).

The reply is kept from opening with a call (``NO_OPENING``) and stops at one, so the user gets plain
text or validated calls. A declined reply that is only a call's opening (``OPENING_ONLY``) is made into
a call (at most ``FORCED`` times); after a call, such a reply or an empty one is asked for once more in
plain text (``AFTER_CALL``, ``REASK``); after a tool's error that tool is called again under its grammar
(``watch``); after the last result the user's message comes again (``answer_note``). A call refused as
nobody's ask leaves the model's context, and so does the retrieved block that lured it (``unlure``).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from typing import Any

from nanobot.backends.base import Message
from nanobot.backends.openban import MARKUP
from nanobot.base.shorten import shorten
from nanobot.core.events import Event, Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.core.features import Agent
from nanobot.core.provenance import call_key, unasked
from nanobot.tools.base import ToolContext
from nanobot.tools.callgrammar import CLOSE, OPEN, call_grammar, parse_call, tool_specs
from nanobot.tools.choices import described
from nanobot.tools.effects import LOOKING, Effect, declared, effects_of
from nanobot.tools.firstlook import (
    LOOK_FLOOR,
    asked_here,
    asks_to_look,
    change_owed,
    first_args,
    judged_look,
    look_instead,
    run_instead,
)
from nanobot.tools.fitcheck import (
    FIT_FLOOR,
    FIT_YES,
    best_fit,
    better_look,
    fits,
    judged,
    scores,
    user_text,
)
from nanobot.tools.formats import shaped, written
from nanobot.tools.leancalls import NAME_OPENING, lean_specs, name_grammar, named, with_schema
from nanobot.tools.openings import HOLD, NO_OPENING, STARTS, may_open, opening_only
from nanobot.tools.plain import plain
from nanobot.tools.renameask import rename_args
from nanobot.tools.repoask import repo_args, repo_asked
from nanobot.tools.rewrite import rewritten
from nanobot.tools.unbidden import barred, recall_held, spelled_by_output
from nanobot.tools.validate import validate

DECLINE = ("Call a function only when the user's request needs one of the functions below; "
           "if none of them fits, or the message is just conversation, answer in plain text.")

NAME_TOKENS = 48  # the longest offered name, in tokens, with room
PICKS = 8  # picks the runner keeps (by the messages they were made on)
FORCED = 2  # calls made under the grammar from opening-only replies, per turn
REASK = "[nanobot: your reply was empty. Answer the user in plain text now.]"
ASKED_CHARS = 300  # of the user's message, in the note after the last result (``answer_note``)
AFTER_CALL = "[nanobot: the call ran; answer the user in plain text from its result above, without another call.]"


def answer_note(agent: Agent) -> str:
    """The note after a turn's last result: the user's message again, where a small model reads it
    last, so the reply answers it from the result rather than retelling the result."""
    said = agent.provenance.said or [""]
    asked = shorten(" ".join(str(said[-1]).split()), ASKED_CHARS)
    return f'[nanobot: the user asked: "{asked}" Answer that from the result above, in plain sentences.]'


class TemplateCalls:
    """The template-tool step of a ``ToolRunner`` (which owns the tools, stats and settings)."""

    def __init__(self, runner: Any):
        self.runner = runner
        self.full = tool_specs(runner.tools)
        self.lean = runner.settings.tools.listing == "lean"  # ``tools.leancalls``
        self.specs = lean_specs(runner.tools) if self.lean else self.full  # what every render gets
        self._grammars: dict[str, str] = {}

    def grammar(self, only: str = "", ctx: ToolContext | None = None, shut: frozenset = frozenset()) -> str:
        """The call grammar over every offered tool but those ``shut`` (``unbidden``), or over ``only`` (a
        retry of that tool), under what each offers the session of ``ctx`` (``Tool.offered``)."""
        tools = {only: self.runner.tools[only]} if only else {n: t for n, t in self.runner.tools.items() if n not in shut}
        schemas = {n: t.offered(ctx) if ctx is not None else t.parameters() for n, t in tools.items()}
        key = json.dumps(schemas, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = call_grammar({n: self.arguments(t, schemas[n]) for n, t in tools.items()})
        return self._grammars[key]

    def arguments(self, tool: Any, schema: dict | None = None) -> str:
        """``tool``'s argument grammar under ``schema`` (``parameters()`` when None), where a parameter's
        description lists its values (``choices.described``) admitting only those, or declares a form
        (``formats.shaped``) only that."""
        schema = tool.parameters() if schema is None else schema
        listed = shaped(described(schema))
        return self.runner.grammar(tool, schema) if listed == schema else tool.grammar_of(listed)

    @staticmethod
    def messages(msgs: list[Message]) -> list[Message]:
        """``msgs`` with ``DECLINE`` at the end of the system message (added when there is none)."""
        if msgs and msgs[0].role == "system":
            return [Message(role="system", content=f"{msgs[0].content}\n\n{DECLINE}"), *msgs[1:]]
        return [Message(role="system", content=DECLINE), *msgs]

    def call_probability(self, agent: Agent, msgs: list[Message]) -> float:
        return agent.model.prefix_probability(msgs, STARTS, tools=self.specs)

    def decide(self, agent: Agent, msgs: list[Message], first: bool) -> float:
        """P(call) of a step. On the turn's ``first`` decision, when the retrieved block in front of the
        user's message names a file nobody brought (``Provenance.lures``), P is taken without the block
        first, and under the threshold that is the decision: the block alone does not make a call (a
        memory note about greet.py must not turn "Hi, I'm Alice" into an edit). Only then is
        the block evaluated, as it is for every decision, so the check costs the user's message."""
        at = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].role == "user"), None)
        prov = agent.provenance
        if first and at is not None and prov.lures(msgs[at].content):
            bare = [*msgs[:at], Message(role="user", content=prov.unlured(msgs[at].content, always=True)), *msgs[at + 1:]]
            if self.call_probability(agent, bare) < self.runner.settings.tools.threshold:
                return 0.0  # declined, under the fit check's floor too
        return self.call_probability(agent, msgs)

    def fit_on(self, agent: Agent, n: int) -> bool:
        """Whether step ``n``'s decision goes through the fit check (``tools.fitcheck``): a turn's
        first step on the lean listing (``tools.fit_check``), with a model that scores a yes/no, when
        a tool it judges is offered (``judged``)."""
        return (n == 0 and self.lean and self.runner.settings.tools.fit_check
                and scores(agent.model)
                and any(judged(t) for t in self.runner.tools.values()))

    def fitting(self, agent: Agent, msgs: list[Message], n: int, p: float) -> str | None:
        """The tool step ``n`` calls: "" (any) without the fit check; with it, the tool the lean step
        picks, when the model judges that it does what the user's message asks (a tool with nanobot's
        own index line: when P(call) reaches the threshold, as without the check), else None."""
        if not self.fit_on(agent, n):
            return ""
        name = self.pick(agent, msgs)
        if not judged(self.runner.tools[name]):
            return name if p >= self.runner.settings.tools.threshold else None
        spec = next(s["function"] for s in self.full if s["function"]["name"] == name)
        fit = fits(agent.model, spec, user_text(agent, msgs))
        return name if fit is None or fit >= FIT_YES else None

    def refit(self, agent: Agent, msgs: list[Message], only: str) -> str:
        """``only``, or the looking tool that fits a message naming nothing better than the read or
        listing the lean step picked by its name (``fitcheck.better_look``)."""
        if not (self.lean and scores(agent.model)):
            return only
        name = only or self.pick(agent, msgs)
        best = better_look(agent.model, self.runner.tools, [s["function"] for s in self.full], name,
                           user_text(agent, msgs))
        return best if best != name else only

    def generate(self, agent: Agent, msgs: list[Message], only: str = "", given: dict | None = None
                 ) -> tuple[str, str, Any, str]:
        """One constrained call (of ``only``, when given): (raw call text, tool name, validated args or None,
        error); ``given``: its arguments, written by the facts, not generated."""
        settings = self.runner.settings.tools
        if self.lean:  # the tool first, on the decision's prompt; then its arguments with its schema
            only = only or self.pick(agent, msgs)
        if only and given is not None:
            args = given
        elif (only in ("edit_file", "write_file") or only in ("read_file", "list_dir")
              and agent.judge.sure(agent, "change") is True) and (args := rename_args(agent, self.runner.tools)):
            only = "edit_file"  # a rename asked (a look first, where a change is sure, is no step toward it):
            # the names the facts and the model's classifier give (``renameask``)
        else:  # a tool that rewrites a file whole (``tools.rewrite``)
            args = getattr(self.runner.tools.get(only), "rewrites", False) and rewritten(self.runner, agent, msgs, user_text(agent, msgs))
        if args:
            ok, error = validate(self.runner.tools[only], json.dumps(args), False)
            return json.dumps({"name": only, "arguments": args}, ensure_ascii=False), only, ok, error
        if self.lean:
            spec = next(s for s in self.full if s["function"]["name"] == only)
            msgs = with_schema(msgs, spec)
        shut = frozenset() if only else barred(agent, self.runner.tools)
        raw = self.runner._generate(agent, msgs, self.grammar(only, ToolContext.for_agent(agent), shut), f"{OPEN}\n",
                                    settings.args_tokens, "call", "", tools=self.specs)
        cut = agent.model.last.finish_reason == "length"
        parsed = parse_call(raw)
        if parsed is None or parsed[0] not in self.runner.tools:
            why = "was cut off before it was complete" if cut else "is not a valid call"
            return raw, parsed[0] if parsed else "", None, f"the tool call {why}"
        name, args = parsed
        args = written(self.runner.tools[name].parameters(), args)
        ok, error = validate(self.runner.tools[name], json.dumps(args), cut)
        return raw, name, ok, error

    def pick(self, agent: Agent, msgs: list[Message], among: frozenset = frozenset(), own: bool = False) -> str:
        """The tool a call opens with (``leancalls.name_grammar``), from the lean prompt, of the tools
        declaring one of the effects ``among`` (any, when empty; among several, the model's fit judgement
        picks by their descriptions where it scores one, ``fitcheck.best_fit``); ``own``: only nanobot's
        tools with an index line (``Tool.intent``: files, folders, commands), for an ask about this
        computer, which the knowledge vault's notes do not answer; the same messages pick once, kept on
        the runner (the fit check's pick, declined under the threshold, is the look's; a draft's, picked
        while the person paused, is the turn's: ``tools.foresee``)."""
        names = [n for n, t in self.runner.tools.items()
                 if (not among or declared(t) & among) and (not own or getattr(t, "intent", ""))]
        shut = barred(agent, {n: self.runner.tools[n] for n in names})  # after a result (``unbidden``)
        names = [n for n in names if n not in shut] or names
        if len(names) == 1:
            return names[0]
        key, picks = (tuple((m.role, m.content) for m in msgs), among, own), self.runner.picks
        if key not in picks and among and scores(agent.model):  # the descriptions decide between them
            best = best_fit(agent.model, [s["function"] for s in self.full if s["function"]["name"] in names],
                            user_text(agent, msgs))
            if best:
                picks[key] = best
        if key not in picks:
            text = self.runner._generate(agent, msgs, name_grammar(names), f"{OPEN}\n{NAME_OPENING}", NAME_TOKENS,
                                         "name", "", tools=self.specs, until=lambda t: named(t, names) is not None)
            picks[key] = named(text, names) or names[0]
        while len(picks) > PICKS:
            picks.pop(next(iter(picks)))
        return picks[key]

    def pick_among(self, agent: Agent, messages: list[Message], among: frozenset) -> str:
        """``pick`` for a turn's messages as the agent keeps them (a reply check's retry)."""
        return self.pick(agent, self.messages(messages), among)

    def respond(self, agent: Agent, messages: list[Message], first: str = "") -> Iterator[Event]:
        runner, settings = self.runner, self.runner.settings.tools
        msgs = self.messages(messages)
        unlure(msgs, agent, forced=bool(first))  # after a lured call, or before a forced one: without the lure
        seen = set(agent.provenance.ran)  # a call the user spelled ran already: made again, it ends the steps
        failed = [first if first in runner.tools else ""]  # ``first``: called undecided
        tries = 2 if failed[0] else 1  # a forced call and, after a tool's error, that tool once more
        look = asks_to_look(agent)
        repo = look == "exec" and "exec" in runner.tools and repo_asked(agent)  # the repository's state asked
        written = first_args(agent, 0, look, runner.tools)  # a read-only git look the facts write
        owed = "edit_file" if "edit_file" in runner.tools and change_owed(agent, look) else ""
        held = not first and look is None and not owed and recall_held(agent)  # memory answers it (``unbidden``)

        def changed(seen: set[str]) -> bool:
            return any(k.startswith(f"{owed} ") for k in seen)

        made: set[str] = set()

        for n in range(settings.max_steps):
            if not runner._room(agent, msgs, tools=self.specs):
                yield Notice(text="tool steps: the context is nearly full; answering now", level="warning")
                break
            if n == 0 and held:
                break
            if failed[0] and tries:  # right after a tool's error: that tool again, no new decision
                again = repo_args(agent) if repo and failed[0] == "exec" else None  # git refused the model's form
                tries, step = tries - 1, self.call(agent, msgs, seen, only=failed[0], given=again)
            elif ((p := self.decide(agent, msgs, n == 0 and look is None))
                  >= (FIT_FLOOR if self.fit_on(agent, n) else settings.threshold)
                  and (only := self.fitting(agent, msgs, n, p)) is not None):
                if n == 0 and look is None:
                    only = self.refit(agent, msgs, only)
                if n == 0 and repo:
                    only = "exec"  # the repository's state asked: git's output, whatever the pick
                if n == 0 and self.lean and "exec" in runner.tools and run_instead(
                        agent, look, only or self.pick(agent, msgs)):
                    only = "exec"  # the message spells an allowed command and asks for its run
                if n == 0 and self.lean and look in runner.tools and look_instead(
                        agent, look, runner.tools[only or self.pick(agent, msgs)]):
                    only = look  # a question about a file the message names: read, not changed
                if n == 0 and written is not None:
                    only = "exec"  # what git knows of a named file asked: its diff or log, whatever the pick
                step = self.call(agent, msgs, seen, only=only, given=written if n == 0 else None)
            elif n == 0 and look is not None and (p >= LOOK_FLOOR or repo or judged_look(
                    agent, "read_file" if written else look)):  # a look (a git read the facts write: as a read)
                step = self.call(agent, msgs, seen, only=look if look in runner.tools else "", given=written)
            elif n == 0 and look is None and asked_here(agent, p) and any(
                    declared(t) & LOOKING for t in runner.tools.values()):  # an ask about this computer:
                step = self.call(agent, msgs, seen, only=self.pick(agent, msgs, LOOKING, own=True))  # a look here
            elif owed and not changed(seen):  # the change asked, not yet made
                step = self.call(agent, msgs, seen, only=owed)
            else:
                break
            if (yield from watch(step, failed, made)):  # a call made again
                if not owed or changed(seen):
                    break
                if (yield from watch(self.call(agent, msgs, seen, only=owed), failed, made)):  # the owed change instead
                    break
            if owed in made:  # the change asked is made: the reply tells of it (more calls only spent the budget)
                break
            if repo and "exec" in made:
                break  # git answered the question about the repository: a guessed read after it only misleads
        else:
            yield Notice(text=f"tool steps: reached tools.max_steps={settings.max_steps}; answering now",
                         level="warning")
        if seen and msgs[-1].role == "tool" and not msgs[-1].content.startswith("error: "):
            self._add_note(msgs, answer_note(agent))  # the question again, next to the result it is answered from
        elif first and seen:  # a reply check's retry: its note said to call; now the answer is wanted
            self._add_note(msgs, AFTER_CALL)
        forced, reasked = 0, False
        while True:
            done, held = yield from self.reply(agent, msgs)
            opening = opening_only(done.reply)
            if opening and not seen and forced < FORCED and runner._room(agent, msgs, tools=self.specs):
                forced += 1  # no call ran yet: the decline was wrong
                yield Notice(text="tool steps: the reply was only a call's opening; making the call", level="warning")
                if (yield from self.call(agent, msgs, seen)):
                    self._add_note(msgs, AFTER_CALL)
                continue
            if not done.reply.strip() or opening:
                if not reasked:  # after a call, an opening is mostly the result rewritten as JSON
                    reasked = True
                    self._add_note(msgs, AFTER_CALL if seen else REASK)
                    continue
                done = done.model_copy(update={"reply": ""})
                held = []
            yield from held
            yield done
            return

    def reply(self, agent: Agent, msgs: list[Message]) -> Generator[Event, None, tuple[TurnDone, list[TextDelta]]]:
        """Stream a text reply, holding back its first ``HOLD`` characters while they could be only a
        call's opening; returns (its TurnDone, the deltas still held)."""
        held: list[TextDelta] = []
        holding = True
        for ev in agent.stream_reply(msgs, tools=self.specs, stop=self.stops(), no_opening=NO_OPENING):
            if isinstance(ev, TurnDone):  # prose only (``tools.plain``), held text included
                clean = plain(ev.reply)
                if holding and clean != ev.reply:
                    held = [TextDelta(text=clean)] if clean else []
                return ev.model_copy(update={"reply": clean}), held
            if isinstance(ev, TextDelta) and holding:
                held.append(ev)
                text = "".join(d.text for d in held)
                if not may_open(text) or len(text.strip()) >= HOLD:
                    holding = False
                    clean = plain(text)  # a fence opened on a brace, then prose: the prose only
                    if clean != text.strip():
                        held = [TextDelta(text=clean + text[len(text.rstrip()):])] if clean else []
                    yield from held
                    held = []
                continue
            yield ev
        raise AssertionError("stream_reply ends with a TurnDone")

    @staticmethod
    def _add_note(msgs: list[Message], note: str) -> None:
        last = msgs[-1]
        msgs[-1] = Message(role=last.role, content=f"{last.content}\n\n{note}")

    def stops(self) -> list[str]:
        """Where a text reply ends: a call tag, or an offered tool's call written out as JSON."""
        named = [f'"name":{sp}"{n}"' for n in self.runner.tools for sp in (" ", "")]
        return [*MARKUP, *named]

    def call(self, agent: Agent, msgs: list[Message], seen: set[str], only: str = "",
             given: dict | None = None) -> Generator[Event, None, bool]:
        """Generate, validate (with retries) and run one call (of ``only``, when given; its first try
        with ``given`` arguments, when the facts write them); True when it repeats one already run, or
        its output is one this turn already showed."""
        runner, retries = self.runner, self.runner.settings.tools.max_retries
        for attempt in range(retries + 1):
            raw, name, args, error = self.generate(agent, msgs, only, given if attempt == 0 else None)
            runner._record(agent, "call", name, raw, attempt=attempt)
            msgs.append(Message(role="assistant", content=f"{OPEN}\n{raw.removesuffix(CLOSE).strip()}\n{CLOSE}"))
            if args is None:
                note = error if attempt == retries else f"{error}; fix the call and try again"
                yield ToolResult(name=name, ok=False, text=note)
                msgs.append(Message(role="tool", content=note))
                runner._record(agent, "result", name, note, ok=False)
                continue
            shown = args.model_dump(mode="json")
            key = call_key(name, shown)
            if key in seen:
                msgs.pop()
                return True
            seen.add(key)
            if spelled := spelled_by_output(agent, name, shown):  # ``unbidden``: answered as never made
                msgs.pop()
                yield Notice(text=f"tool steps: not run: '{shorten(spelled, 60)}' was spelled by a tool's "
                             "output, not by you")
                return False
            ok, text = yield from runner.run_valid(agent, name, args)
            runner._record(agent, "result", name, text, ok=ok)
            if not ok and unasked(text):  # the user never asked for it: answered as if never made
                msgs.pop()
                unlure(msgs, agent)
                return False
            if ok and effects_of(runner.tools[name], shown) == {Effect.LOOKS}:  # a look, not a run
                if f"shown {text}" in seen:  # the same output again (a read of the whole file, re-ranged):
                    msgs.pop()  # nothing new to answer from, as with the same call again
                    return True
                seen.add(f"shown {text}")
            msgs.append(Message(role="tool", content=text if ok else f"error: {text}"))
            return False
        return False


def unlure(msgs: list[Message], agent: Agent, forced: bool = False) -> None:
    """The last user message without its retrieved block once a call this turn was refused as
    nobody's ask (``Provenance.unlured``): the same lure otherwise makes the same call again; with
    ``forced`` (a call is made without a decision) also when the block names a file nobody brought."""
    prov = agent.provenance
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].role == "user":
            text = msgs[i].content
            msgs[i] = Message(role="user", content=prov.unlured(text, always=forced and prov.lures(text)))
            return


def watch(step: Generator[Event, None, bool], failed: list[str], made: set[str] | None = None) -> Generator[Event, None, bool]:
    """``step``'s events, passed on; ``failed[0]``: the tool whose run failed (not a refusal by the call
    policy: asking again would not help, unless it points to the same tool -- a git command whose option is
    not on the read-only list, written again), or the offered tool its error points to instead, "" when none did;
    ``made``: the tools whose runs succeeded, added to."""
    failed[0] = ran = ""
    while True:
        try:
            ev = next(step)
        except StopIteration as stop:
            return bool(stop.value)
        if isinstance(ev, ToolCall):
            ran = ev.name
        elif isinstance(ev, ToolResult):
            failed[0] = (ev.instead or ev.name) if not ev.ok and ev.name == ran and (
                " refused: " not in ev.text or ev.instead == ev.name) else ""  # a refusal that points to a retry
            if ev.ok and made is not None:
                made.add(ev.name)
        yield ev
