"""The agent: one session's history, its lean system prompt, and the turn loop.

A turn: the user message (plus retrieved memory, for that message only) is appended to the history;
the history is trimmed to fit ``n_ctx - max_tokens``; the model answers (via the tool runner when one is
attached); everything is written to the session transcript as it happens. ``turn`` yields ``events``
and never prints. Closing the turn generator (Ctrl-C) keeps the partial reply in the session.

Features (``nanobot.core.features.Feature``: prompt sections, a per-turn block, tools, lifecycle hooks)
are added with ``add_feature``; ``runtime.FEATURES`` lists them. ``confirm(question) -> bool``
is set by an interactive front end; None means "cannot ask".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, TypeVar

from nanobot.backends.base import ChatModel, Generation, Message, abilities
from nanobot.backends.sampling import dry_sampler
from nanobot.base import faults, foreground
from nanobot.config import Settings
from nanobot.core.events import Event, Notice, TextDelta, TurnDone
from nanobot.core.features import Feature, merge_sections
from nanobot.core.fitting import trim_oldest
from nanobot.core.intents import INTENTS, FreshContext, Intent, PrefillOff, TranscriptMeta
from nanobot.core.prefill import DEBOUNCE_S, Prefill, known_prefix
from nanobot.core.prompt import SEPARATOR, BuiltPrompt, build_prompt
from nanobot.core.provenance import Provenance
from nanobot.core.sections import STANDING, CoreSections
from nanobot.core.transcript import Transcript
from nanobot.loop.budget import TurnBudget, metered
from nanobot.loop.checkedturn import prompt_repo
from nanobot.loop.judge import Judge
from nanobot.loop.report import TurnClock
from nanobot.loop.spelled import uncaptioned
from nanobot.loop.stream import LoopGuard
from nanobot.tools.repofacts import told

F = TypeVar("F", bound=Feature)


def _now() -> datetime:
    return datetime.now().astimezone()


class Agent:
    def __init__(self, settings: Settings, model: ChatModel, *,
                 clock: Callable[[], datetime] = _now, interactive: bool = False,
                 known_tools: Callable[[], list[str]] = list):
        self.settings = settings
        self.known_tools = known_tools  # names a switched-off feature would bring (runtime.feature_tools)
        self.model = model
        self.clock = clock
        self.interactive = interactive
        self.workspace = settings.workspace
        self.features: list[Feature] = [CoreSections()]
        self.confirm: Callable[[str], bool] | None = None  # asks the user (interactive chat only)
        self.detach_housekeeping = False  # the chat CLI: session-end model work goes to a detached child
        self._runner: Any = None
        self._runner_built = False
        self.history: list[Message] = []
        self.transcript: Transcript | None = None
        self.started: datetime = clock()
        self.last: Generation = Generation()
        self._prompt: BuiltPrompt | None = None
        self._prefill: Prefill | None = None
        self._prefill_off = False  # a feature's intent (``intents.PrefillOff``): this session only
        self._fresh = False  # a hook's ``intents.FreshContext`` was applied (see ``_fit``)
        self._template: tuple[Any, Any] | None = None  # (runner, its TemplateCalls) for first_call
        self.provenance = Provenance()  # who brought which text (nanobot.loop.callpolicy, replycheck)
        self.judge = Judge()  # the model's yes/no judgements of the user's message (nanobot.loop.judge)
        self.budget = TurnBudget(settings.chat.turn_evaluations, settings.chat.turn_seconds)  # loop.budget

    # -- session -----------------------------------------------------------------------------
    def start_session(self) -> list[Event]:
        """Begin a fresh session (also what /new does): new transcript, empty history."""
        self.stop_prefill()
        self.started = self.clock()
        self.history = []
        self._prompt = None
        self.provenance = Provenance()
        self._prefill_off = False
        self.transcript = Transcript.create(self.settings.sessions_dir, self.started,
                                            model=self.model.name)
        return self._run_hooks("on_session_start")

    def end_session(self, reason: str = "quit", leaving: bool = False) -> list[Event]:
        """Graceful end (/quit, EOF, Ctrl-C exit): lets hooks (the observer) run, then records it.
        ``leaving``: the process exits right after, so a prefill chunk still running is not waited
        for (nothing it does is kept: the model's state dies with the process)."""
        if self.transcript is None:
            return []
        if leaving and self._prefill is not None:
            self._prefill.stop(abandon=True, wait=False)
        self.stop_prefill(abandon=True)  # the session's own observation covers idle work
        events = self._run_hooks("on_session_end", reason)
        self.transcript.append("event", "session end", reason=reason)
        return events

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.history if m.role == "user")

    # -- features ----------------------------------------------------------------------------
    def add_feature(self, feature: F) -> F:
        self.features.append(feature)
        self._runner, self._runner_built = None, False
        self._prompt = None
        return feature

    def feature(self, kind: type[F]) -> F | None:
        """The attached feature of type ``kind``, if any."""
        return next((f for f in self.features if isinstance(f, kind)), None)

    @property
    def tool_runner(self) -> Any:
        """The ToolRunner over every feature's tools (None when there are none)."""
        if not self._runner_built:
            tools = {t.name: t for f in self.features for t in f.tools(self.settings)}
            wanted = self.settings.tools.enabled
            if wanted:  # the user's list, in the user's order
                from nanobot.tools.registry import check_enabled

                check_enabled(self.settings, [*tools, *self.known_tools()])
                tools = {n: tools[n] for n in wanted if n in tools}
            elif wanted == []:
                tools = {}
            if tools:
                from nanobot.loop.callpolicy import guard
                from nanobot.tools.runner import ToolRunner

                self._runner = ToolRunner(self.settings, {n: guard(t) for n, t in tools.items()})
            self._runner_built = True
        return self._runner

    @tool_runner.setter
    def tool_runner(self, runner: Any) -> None:
        """Use ``runner`` instead of the one built from the features' tools (tests, benchmarks);
        its file-changing tools go through the call policy all the same (``nanobot.loop.callpolicy``)."""
        if isinstance(getattr(runner, "tools", None), dict):
            from nanobot.loop.callpolicy import guard

            runner.tools = {n: guard(t) for n, t in runner.tools.items()}
        self._runner, self._runner_built = runner, True

    # -- prefill while the user types (nanobot.core.prefill) -----------------------------------------
    def prefill(self, draft: str = "", *, idle: bool = True) -> None:
        """Start evaluating the next turn's known prefix in the background (interactive front ends
        call this once the prompt is shown, and with the ``draft`` as the user types), after the
        features' idle work (``Feature.idle_work``; ``idle=False`` for keystrokes, which never queue
        it again); every later use of the model stops it first. Returns at once."""
        drafting = bool(draft.strip()) and not draft.startswith("/")
        work = [] if drafting or not idle else [w for f in self.features if (w := f.idle_work(self)) is not None]
        prefix = self.settings.chat.prefill and not self._prefill_off and Prefill.supported(self.model)
        if not work and not prefix:
            return
        if self._prefill is None or self._prefill.model is not self.model:
            self._prefill = Prefill(self.model)
        base, render = self.first_call([*self.system_messages(), *self.history])  # as the turn's first call
        if not drafting:  # first, features' background use of the model ends (on the prefill thread)
            release = [lambda _pre: [f.release_model(self) for f in self.features]]
            self._prefill.start(base, before=release + work, prefix=prefix, tools=render.get("tools"))
            return
        pre, key = self._prefill, (draft, len(self.history))
        foreground.typing(self.settings.home)  # housekeeping waits: the draft's prefill is the person's

        def tokens() -> list[int]:  # on the prefill thread, once typing pauses
            block = self.memory_block(draft)
            pre.draft = (key, block)
            return known_prefix(self.model, base, f"{block}\n\n{draft}" if block else draft, tools=render.get("tools"))

        pre.start(tokens, delay=DEBOUNCE_S, after=lambda _pre, stop: self.judge_draft(pre, key, draft, stop))

    def judge_draft(self, pre: Prefill, key: object, draft: str, stop: threading.Event) -> None:
        """On the prefill thread, once the draft's words are in: the judgements a turn's first step asks
        before its reply (``tools.foresee``), each only where the turn would ask it and none once
        ``stop`` is set; the classifiers' answers are kept on ``pre`` for the turn whose message is this
        draft, the others where the turn's model and runner find them."""
        # one of runtime.FIRST_TURN: imported while the model loads
        from nanobot.tools.foresee import foresee

        judge, kept = Judge(), self.judge
        judge.context(draft, [])
        block = pre.draft[1] if pre.draft is not None and pre.draft[0] == key else self.memory_block(draft)
        self.judge = judge  # the draft's judge while its judgements are asked (no turn runs meanwhile)
        try:
            foresee(self, self.messages_for(f"{block}\n\n{draft}" if block else draft), stop)
        finally:
            self.judge = kept
        pre.judged = (key, dict(judge.cache))

    def stop_prefill(self, abandon: bool = False) -> Prefill | None:
        """Cancel a running prefill (between chunks) and wait for the model to be free
        (``abandon``: idle work stops too, even with its useful part done)."""
        if self._prefill is not None:
            self._prefill.stop(abandon)
            foreground.typing(self.settings.home, on=False)
        for feature in self.features:  # their background use of the model ends (Feature.release_model)
            feature.release_model(self)
        return self._prefill

    # -- prompt ------------------------------------------------------------------------------
    def tool_names(self) -> list[str]:
        return list(self.tool_runner.names()) if self.tool_runner is not None else []

    def system_prompt(self) -> BuiltPrompt:
        """The session's system prompt; built once per session so every turn shares its prefix."""
        if self._prompt is None:
            raw = merge_sections(s for f in self.features for s in f.sections(self))
            self._prompt = build_prompt(raw, self.settings.prompt.cap, self.model.count_tokens)
        return self._prompt

    def refresh_prompt(self) -> None:
        self._prompt = None

    def template_tools(self) -> bool:
        """Whether tool steps use the model's own template format (``nanobot.tools.templatecalls``)."""
        runner = self.tool_runner
        return runner is not None and runner.template_calls(self)

    def system_messages(self) -> list[Message]:
        """The system prompt as the model gets it: one system message; with template tool calls, two.

        The template renders the tools block (the lean listing or every schema) after the first system
        message, so it holds only the standing sections (``STANDING``: SOUL, rules, USER, tool index) and a
        second one the rest (CONTEXT, Time): the first plus the schemas is the same from session to
        session, and the disk KV cache restores it (``nanobot.kvcache.feature``)."""
        built = self.system_prompt()
        if not self.template_tools():
            return [Message(role="system", content=built.text)]
        head: list[str] = []
        tail: list[str] = []
        for section in built.sections:
            if section.text:
                standing = not tail and section.stable and section.name in STANDING
                (head if standing else tail).append(section.text)
        out = [Message(role="system", content=SEPARATOR.join(part)) for part in (head, tail) if part]
        return out or [Message(role="system", content="")]

    def first_call(self, messages: list[Message]) -> tuple[list[Message], dict[str, Any]]:
        """``messages`` and the render options as the turn's first model call sees them (template
        tool calls: the decline line and the tool schemas), so what the prefill and the disk KV cache
        prepare is the prefix that call reuses."""
        runner = self.tool_runner
        if runner is None or not runner.template_calls(self):
            return messages, {}
        if self._template is None or self._template[0] is not runner:
            from nanobot.tools.templatecalls import TemplateCalls

            self._template = (runner, TemplateCalls(runner))
        calls = self._template[1]
        return calls.messages(messages), {"tools": calls.specs}

    def memory_block(self, query: str) -> str:
        """The features' per-turn blocks (retrieved memory) for ``query``; "" for nothing."""
        return "\n\n".join(b for f in self.features if (b := f.turn_block(self, query)))

    def messages_for(self, user_sent: str) -> list[Message]:
        return [*self.system_messages(), *self.history, Message(role="user", content=user_sent)]

    # -- turn --------------------------------------------------------------------------------
    def turn(self, text: str) -> Iterator[Event]:
        clock = TurnClock(getattr(self.tool_runner, "stats", None))  # Enter: the user waits from here
        metered(self.model, self.budget).start()  # every evaluation from here on draws from the turn's budget
        try:
            yield from self._turn(text, clock)
        finally:  # however the turn ends (closed mid-way too), no budget stays on this thread
            self.budget.stop()

    def _turn(self, text: str, clock: TurnClock) -> Iterator[Event]:
        if self.transcript is None:
            yield from self.start_session()
        self.transcript.append("user", text)  # first: whatever fails below, the message is kept
        if self._prefill is not None and (finishing := self._prefill.cancel()):
            yield Notice(text=finishing)  # idle work the user's message waits for (the observation)
        typed = self.stop_prefill()  # the model is ours from here on
        try:
            if typed is not None and typed.draft is not None and typed.draft[0] == (text, len(self.history)):
                memory = typed.draft[1]  # looked up while the user paused before Enter
                typed.draft = None
                if typed.judged is not None and typed.judged[0] == (text, len(self.history)):
                    self.judge.text, self.judge.cache = text, dict(typed.judged[1])  # judged meanwhile too
                typed.judged = None
            else:
                memory = self.memory_block(text)
        except Exception as e:  # per-turn blocks are derived data (memory): never block a turn
            memory = ""
            yield Notice(text=f"memory lookup failed, answering without it: {e}", level="warning")
        sent = f"{memory}\n\n{text}" if memory else text
        self.provenance.said.append(text)
        self.provenance.this_turn, self.provenance.ran, self.provenance.before = [], set(), {}
        if len(self.provenance.said) == 1:
            self.provenance.retrieved += [s.text for s in self.system_prompt().sections  # Context, USER, ...
                                          if s.name != "coding"]  # (a coding session's own work is not)
        if memory:
            self.provenance.retrieved.append(memory)
            self.transcript.append("event", "memory", sent=sent)
        messages = self.messages_for(sent)
        yield from self._fit(messages)
        user_msg = messages[-1]
        yield from self._run_hooks("on_turn_start")
        self.model.last = Generation()  # so an interrupted turn never reports a stale reply
        done: TurnDone | None = None
        try:
            for ev in self._checked(messages, text):
                faults.point("reply-streaming")
                clock.see(ev)
                if isinstance(ev, TurnDone):
                    done = ev
                else:
                    yield ev
        except (GeneratorExit, KeyboardInterrupt):
            self._record(user_msg, self.model.last.text.strip(), self.model.last, interrupted=True)
            raise  # Ctrl-C closed us mid-reply: what was said is kept, the session goes on
        except Exception as e:
            last = self.model.last
            if last.finish_reason == "interrupted" and last.text.strip():  # e.g. a model server gone mid-reply
                self._record(user_msg, last.text.strip(), last, interrupted=True, partial=True)
            self.transcript.append("event", "turn failed", error=str(e))
            raise
        finally:
            self.budget.stop()
        assert done is not None, "a responder must end with TurnDone"
        self._record(user_msg, done.reply, done.generation, interrupted=False, remember=not done.corrected, shown=done.shown)
        yield from self._run_hooks("on_turn_end", done)
        done.timing = clock.timing(done.generation.ttft_s, self.budget.used, sum(self.budget.read.values()),
                                   self.budget.spent_s)
        if not clock.calls:  # answered from what the prompt carries: said so under -v
            done.timing.from_prompt = told(done.reply, prompt_repo(self))
        yield done

    def _record(self, user_msg: Message, reply: str, gen: Generation, interrupted: bool, remember: bool = True,
                shown: bool = False, **extra: Any) -> None:
        """The reply into the transcript, and the exchange into the history -- unless the reply checks
        corrected it or nanobot showed it (``remember=False``): a small model copies its history."""
        self.last, extra = gen, extra | ({"shown": True} if shown else {})
        if remember:  # a shown look: its output without nanobot's caption, which a model would copy (loop/spelled.py)
            self.history += [user_msg, Message(role="assistant", content=uncaptioned(reply) if shown else reply)]
        self.transcript.append("assistant", reply, interrupted=interrupted, **extra, **gen.model_dump(exclude={"text"}))
        if gen.finish_reason == "repetition":
            self.transcript.append("event", "stopped: repetition")

    def _checked(self, messages: list[Message], typed: str) -> Iterator[Event]:
        """``respond`` under the reply checks (``nanobot.loop.checkedturn``)."""
        from nanobot.loop.checkedturn import checked
        from nanobot.loop.spelled import counted, tested

        # after a fix the tests run, and a test run's real counts end the reply (loop.spelled)
        return counted(tested(self, typed, checked(self, messages, typed)))

    def respond(self, messages: list[Message]) -> Iterator[Event]:
        """The model's reply to ``messages``: through the tool runner when one is attached."""
        if self.tool_runner is not None:
            yield from self.tool_runner.respond(self, messages)
            return
        yield from self.stream_reply(messages)

    def stream_reply(self, messages: list[Message], **kw: Any) -> Iterator[Event]:
        """Plain streamed reply; ends with a TurnDone. The loop guard (``nanobot.loop.stream.LoopGuard``) stops
        a reply that repeats itself: finish reason ``repetition``, the reply kept up to the repeat."""
        chat = self.settings.chat
        opts = dict(max_tokens=chat.max_tokens, temperature=chat.temperature)
        if abilities(self.model).sampling:
            opts |= dict(top_p=chat.top_p, repeat_penalty=chat.repeat_penalty, dry=dry_sampler(chat))
        guard = LoopGuard.for_chat(chat)
        parts: list[str] = []
        stream = self.model.stream(messages, **(opts | kw))
        for piece in stream:
            parts.append(piece)
            yield TextDelta(text=piece)
            if guard is not None and guard.feed(piece):
                stream.close()
                break
        gen = self.model.last
        reply = "".join(parts)
        if guard is not None and guard.cut is not None:
            gen.finish_reason, reply = "repetition", reply[: guard.cut]
        yield TurnDone(reply=reply.strip(), generation=gen)

    def _fit(self, messages: list[Message]) -> Iterator[Event]:
        """Trim the oldest history so prompt + reply reserve fits n_ctx (hooks run first)."""
        budget = self.model.n_ctx - self.settings.chat.max_tokens
        used = self.model.prompt_tokens(messages)
        head = len(self.system_messages())  # the system message(s) before the history
        if used >= self.settings.chat.pressure_threshold * self.model.n_ctx:
            self._fresh = False
            yield from self._run_hooks("on_context_pressure", used)
            if self._fresh:  # a hook started a fresh context (a coding checkpoint)
                messages[:] = self.messages_for(messages[-1].content)
                used = self.model.prompt_tokens(messages)
                head = len(self.system_messages())
        system, ask = messages[:head], messages[-1]
        kept, dropped = trim_oldest(messages[head:-1], lambda h: self.model.prompt_tokens([*system, *h, ask]),
                                    budget, used, cost=lambda m: self.model.count_tokens(m.content))
        if dropped:
            messages[:] = [*system, *kept, ask]
            self.history = kept
            yield Notice(text=f"history trimmed: dropped the {dropped} oldest exchange(s) to fit n_ctx={self.model.n_ctx}", level="warning")

    def _run_hooks(self, name: str, *args: Any) -> list[Event]:
        events: list[Event] = []
        for feature in self.features:
            out: Iterable[Event | Intent] | None = getattr(feature, name)(self, *args)
            for item in out or []:
                if isinstance(item, INTENTS):
                    self._apply(item)
                else:
                    events.append(item)
        return events

    def _apply(self, intent: Intent) -> None:
        """What a hook asked for (``nanobot.core.intents``): features never assign to the Agent."""
        if isinstance(intent, FreshContext):
            self.history, self._fresh = list(intent.history), True
        elif isinstance(intent, TranscriptMeta):
            if self.transcript is not None:
                self.transcript.user_meta = dict(intent.user_meta)
        elif isinstance(intent, PrefillOff):
            self._prefill_off = True
