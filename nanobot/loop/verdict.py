"""What the reply checks read and return: one turn's facts (``Facts``: the user's message, the reply,
the tool outcomes with their declared effects) and a check's verdict (``CheckResult``). The checks
themselves are ``nanobot.loop.claims`` and ``nanobot.loop.looks``, run in order by
``nanobot.loop.replycheck.check``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from nanobot.core.events import ToolCall, ToolResult
from nanobot.core.provenance import Refusal
from nanobot.tools.effects import ANY_LOOK, Effect, effects_of  # noqa: F401 (ANY_LOOK re-exported)


@dataclass
class CheckResult:
    problem: str = ""  # "" when the reply may stand
    note: str = ""  # for the model, on a retry
    correction: str = ""  # for the user, when the retry did not help ("": the retried reply stands)
    tool: str = ""  # the tool the note asks for: the retry calls it directly (``ToolRunner.retry_tool``)
    call: tuple[str, dict] | None = None  # a call the user's own words name: run as it is, then answered from
    copied: str = ""  # an earlier reply the reply repeats: the retry sees the session without it and its question
    bare: bool = False  # the retry sees this message alone: the note holds the result it is answered from
    answer: bool = False  # the retry answers in words from what ran this turn, no tool first
    retry: bool = True  # False: no retry, the correction goes under the reply as it is
    rule: str = ""  # the check that found it (``replycheck.CHECKS``)


class Outcome(NamedTuple):
    name: str
    args: dict | None  # None: the call's arguments did not validate
    ok: bool
    text: str
    refused: str = ""  # the call policy's rule (``Refusal``) when it refused the call
    effects: frozenset = frozenset()  # the call's declared effects (``nanobot.tools.effects``)
    on_path: bool = False  # the tool declares a path among its targets (a file tool)

    @property
    def changes(self) -> bool:
        """It changes what the user keeps or remembers (not a command: that one only may)."""
        return bool(self.effects & {Effect.CHANGES, Effect.REMEMBERS}) and Effect.RUNS not in self.effects

    @property
    def may_change(self) -> bool:
        """It can have changed something: a change, or a command (any command may)."""
        return bool(self.effects & {Effect.CHANGES, Effect.REMEMBERS, Effect.RUNS})

    @property
    def looks(self) -> bool:
        """It shows something local: a look, a command, or a call on a path (a file tool)."""
        return bool(self.effects & {Effect.LOOKS, Effect.RUNS}) or (
            Effect.CHANGES in self.effects and not self.effects & {Effect.REMEMBERS, Effect.SEARCHES}
            and self.on_path)

    @property
    def changes_file(self) -> bool:
        """It changes a file the user names: a file tool, a command, or a tool of another system."""
        return Effect.RUNS in self.effects or (Effect.CHANGES in self.effects and (self.on_path or "." in self.name))

    @property
    def unasked(self) -> bool:
        """Refused by the policy as nobody's ask: no try."""
        return bool(self.refused) and Refusal(self.refused).unasked


def resolve(name: str, tools: dict[str, Any] | None) -> Any:
    """The tool named ``name``: the chat's own, else a loaded tool class of that name (the call policy's
    ``_Named``), else one that declares nothing."""
    tool = (tools or {}).get(name)
    if tool is None:
        from nanobot.loop.callpolicy import _Named

        tool = _Named(name)
    return tool


def outcomes(events: list, tools: dict[str, Any] | None = None) -> list[Outcome]:
    """One ``Outcome`` per tool result of a turn; the arguments are those of the ``ToolCall`` just before
    (a call whose arguments did not validate has none)."""
    out, last = [], None
    for e in events:
        if isinstance(e, ToolCall):
            last = e
        elif isinstance(e, ToolResult):
            args = last.arguments if last is not None and last.name == e.name else None
            tool = resolve(e.name, tools)
            fx = effects_of(tool, args if args is not None else {})
            pathed = "path" in (getattr(tool, "target_args", None) or {}).values()
            out.append(Outcome(e.name, args, e.ok, e.text, e.refused, fx, pathed))
            last = None
    return out


class Lazy:
    """A bool field set to a bool or to a function that gives it, called once, on the first read: a
    model judgement (``nanobot.loop.judge``) is asked only when a check reads the fact it decides."""

    def __init__(self, default: bool = False) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> bool:
        if obj is None:  # the dataclass reads the field's default from the class
            return self.default
        value = obj.__dict__.get(self.slot, self.default)
        if callable(value):
            value = obj.__dict__[self.slot] = bool(value())
        return value

    def __set__(self, obj: Any, value: bool | Callable[[], bool]) -> None:
        obj.__dict__[self.slot] = value


@dataclass
class Facts:
    """One turn, as the checks read it."""

    user_text: str
    reply: str
    done: list[Outcome]
    asked_change: Lazy = Lazy()  # the user asks for a change (then a bare "Done." is a claim too)
    offered: frozenset[str] | None = None
    earlier: str = ""
    remembers: Lazy = Lazy()  # the user asks to remember something (the judgement, else wording)
    remember_leans: Lazy = Lazy()  # the remember judgement leans yes, unsure, and no file is named (``judge.leans``)
    keeps: Lazy = Lazy()  # ... by the model's sure judgement alone where it can give one (``replycheck.asks_to_keep``)
    target: str = ""  # what the user asks to see or run (``core.asks.looks_at``)
    judged: Lazy = Lazy()  # the model can judge whether the message asks for a change
    change_sure: Lazy = Lazy()  # the model's change judgement is a sure yes (not the wording)
    look_sure: Lazy = Lazy()  # the model's look judgement is a sure yes
    claimed: Lazy = Lazy()  # the model is sure the reply says something was kept or changed (``judge.reply_claims``)
    gives_facts: Lazy = Lazy(True)  # the message gives facts to keep, or points back to an earlier one of this session
    extra: dict = field(default_factory=dict)

    def can(self, tool: str) -> bool:
        """Whether ``tool`` is offered (with none, "I can't open files here" is the honest reply)."""
        return self.offered is None or tool in self.offered


Check = Callable[[Facts], "CheckResult | None"]


def from_reply(check: Check) -> Check:
    """Declares that ``check`` decides the tool it forces from the reply's words (a tool it names, a
    call it writes, a change it claims): ``loop.checkedturn`` then holds it to the model's own words,
    with what the reply passes on from a tool, memory or the prompt's Context masked (``core.quoted``)."""
    check.from_reply = True  # type: ignore[attr-defined]
    return check
