"""The agent: one session's history, its lean system prompt, and the turn loop.

A turn: the user message (plus retrieved memory, for that message only) is appended to the history;
the history is trimmed to fit ``n_ctx - max_tokens``; the model answers (via the tool runner when one is
attached); everything is written to the session transcript as it happens. ``turn`` yields ``events``
and never prints. Closing the turn generator (Ctrl-C) keeps the partial reply in the session.

Seams for later features (each optional, attached after construction):
- ``retriever(query, history) -> str``: per-turn memory block, or "" for nothing relevant.
- ``tool_runner``: ``names() -> list[str]`` and ``respond(agent, messages) -> Iterator[Event]``
  that ends with a ``TurnDone``.
- ``confirm(question) -> bool``: set by an interactive front end; None means "cannot ask".
- ``hooks``: objects with any of ``on_session_start(agent)``, ``on_context_pressure(agent, used)``,
  ``on_session_end(agent, reason)``, each returning an iterable of events (or None).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from nanobot import faults
from nanobot.backends.base import ChatModel, Generation, Message
from nanobot.config import Settings
from nanobot.events import Event, Notice, TextDelta, TurnDone
from nanobot.prompt import BuiltPrompt, build_prompt
from nanobot.sections import system_sections
from nanobot.session import Transcript


def _now() -> datetime:
    return datetime.now().astimezone()


class Agent:
    def __init__(self, settings: Settings, model: ChatModel, *,
                 clock: Callable[[], datetime] = _now, interactive: bool = False):
        self.settings = settings
        self.model = model
        self.clock = clock
        self.interactive = interactive
        self.workspace = settings.workspace
        self.retriever: Callable[[str, list[Message]], str] | None = None
        self.tool_runner: Any = None
        self.hooks: list[Any] = []
        self.confirm: Callable[[str], bool] | None = None  # asks the user (interactive chat only)
        self.time_extra: Callable[[Agent], str] | None = None  # extra lines for the Time section
        self.context_text: Callable[[Agent], str] | None = None  # CONTEXT section override
        self.history: list[Message] = []
        self.transcript: Transcript | None = None
        self.started: datetime = clock()
        self.last: Generation = Generation()
        self._prompt: BuiltPrompt | None = None

    # -- session -----------------------------------------------------------------------------
    def start_session(self) -> list[Event]:
        """Begin a fresh session (also what /new does): new transcript, empty history."""
        self.started = self.clock()
        self.history = []
        self._prompt = None
        self.transcript = Transcript.create(self.settings.sessions_dir, self.started,
                                            model=self.model.name)
        return self._run_hooks("on_session_start")

    def end_session(self, reason: str = "quit") -> list[Event]:
        """Graceful end (/quit, EOF, Ctrl-C exit): lets hooks (the observer) run, then records it."""
        if self.transcript is None:
            return []
        events = self._run_hooks("on_session_end", reason)
        self.transcript.append("event", "session end", reason=reason)
        return events

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.history if m.role == "user")

    # -- prompt ------------------------------------------------------------------------------
    def tool_names(self) -> list[str]:
        return list(self.tool_runner.names()) if self.tool_runner is not None else []

    def system_prompt(self) -> BuiltPrompt:
        """The session's system prompt; built once per session so every turn shares its prefix."""
        if self._prompt is None:
            self._prompt = build_prompt(
                system_sections(
                    self.workspace, self.settings, self.tool_names(), self.started,
                    time_extra=self.time_extra(self) if self.time_extra else "",
                    context_text=self.context_text(self) if self.context_text else None,
                ),
                self.settings.prompt.cap, self.model.count_tokens,
            )
        return self._prompt

    def refresh_prompt(self) -> None:
        self._prompt = None

    def memory_block(self, query: str) -> str:
        return self.retriever(query, self.history) if self.retriever else ""

    def messages_for(self, user_sent: str) -> list[Message]:
        return [Message(role="system", content=self.system_prompt().text), *self.history,
                Message(role="user", content=user_sent)]

    # -- turn --------------------------------------------------------------------------------
    def turn(self, text: str) -> Iterator[Event]:
        if self.transcript is None:
            yield from self.start_session()
        self.transcript.append("user", text)  # first: whatever fails below, the message is kept
        try:
            memory = self.memory_block(text)
        except Exception as e:  # memory is derived data: a broken index never blocks a turn
            memory = ""
            yield Notice(text=f"memory lookup failed, answering without it: {e}", level="warning")
        for note in getattr(self.retriever, "notices", lambda: [])():  # e.g. "index rebuilt"
            yield Notice(text=note, level="warning")
        sent = f"{memory}\n\n{text}" if memory else text
        if memory:
            self.transcript.append("event", "memory", sent=sent)
        messages = self.messages_for(sent)
        yield from self._fit(messages)
        user_msg = messages[-1]
        self.model.last = Generation()  # so an interrupted turn never reports a stale reply
        done: TurnDone | None = None
        try:
            for ev in self._respond(messages):
                faults.point("reply-streaming")
                if isinstance(ev, TurnDone):
                    done = ev
                else:
                    yield ev
        except (GeneratorExit, KeyboardInterrupt):
            self._record(user_msg, self.model.last.text.strip(), self.model.last, interrupted=True)
            raise  # Ctrl-C closed us mid-reply: what was said is kept, the session goes on
        except Exception as e:
            self.transcript.append("event", "turn failed", error=str(e))
            raise
        assert done is not None, "a responder must end with TurnDone"
        self._record(user_msg, done.reply, done.generation, interrupted=False)
        yield done

    def _record(self, user_msg: Message, reply: str, gen: Generation, interrupted: bool) -> None:
        self.last = gen
        self.history += [user_msg, Message(role="assistant", content=reply)]
        self.transcript.append("assistant", reply, interrupted=interrupted, **_stats(gen))

    def _respond(self, messages: list[Message]) -> Iterator[Event]:
        if self.tool_runner is not None and self.tool_names():
            yield from self.tool_runner.respond(self, messages)
            return
        yield from self.stream_reply(messages)

    def stream_reply(self, messages: list[Message], **kw: Any) -> Iterator[Event]:
        """Plain streamed reply; ends with a TurnDone."""
        chat = self.settings.chat
        opts = dict(max_tokens=chat.max_tokens, temperature=chat.temperature)
        if hasattr(self.model, "settings"):  # the llama backend takes sampling extras
            opts |= dict(top_p=chat.top_p, repeat_penalty=chat.repeat_penalty)
        parts: list[str] = []
        for piece in self.model.stream(messages, **(opts | kw)):
            parts.append(piece)
            yield TextDelta(text=piece)
        gen = self.model.last
        yield TurnDone(reply="".join(parts).strip(), generation=gen)

    def _fit(self, messages: list[Message]) -> Iterator[Event]:
        """Trim the oldest history so prompt + reply reserve fits n_ctx (hooks run first)."""
        budget = self.model.n_ctx - self.settings.chat.max_tokens
        used = self.model.prompt_tokens(messages)
        if used >= self.settings.observer.threshold * self.model.n_ctx:
            yield from self._run_hooks("on_context_pressure", used)
        dropped = 0
        while used > budget and len(messages) > 2:
            hist = messages[1:-1]
            if not hist:
                break
            del messages[1:3 if len(hist) >= 2 else 2]
            dropped += 1
            used = self.model.prompt_tokens(messages)
        if dropped:
            self.history = messages[1:-1]
            yield Notice(text=f"history trimmed: dropped the {dropped} oldest exchange(s) to fit n_ctx={self.model.n_ctx}", level="warning")

    def _run_hooks(self, name: str, *args: Any) -> list[Event]:
        events: list[Event] = []
        for hook in self.hooks:
            fn = getattr(hook, name, None)
            if fn is not None:
                out: Iterable[Event] | None = fn(self, *args)
                events.extend(out or [])
        return events


def _stats(gen: Generation) -> dict:
    return gen.model_dump(exclude={"text"})
