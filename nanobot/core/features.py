"""The feature contract: how a system (tools, memory, observer, KV cache, and later the vault, coding
sessions, per-chat context, MCP) plugs into the Agent without growing a new seam on it.

A feature subclasses ``Feature`` and overrides what it contributes; everything is optional:

- ``sections(agent)``: named system-prompt sections (``RawSection``: text, budget, ``stable``, ``order``).
  Sections of the same name from several features are merged: the first contributor (by ``order``, then
  feature order) sets header, budget, stability and order; later ones add lines under it, or take it
  over with ``replace=True`` (the observer's CONTEXT over the file as written). Stable
  sections must not change within a session; lower ``order`` comes first (core: soul 10, user 20,
  tools 30, context 40, time 90), and every volatile section must come after every stable one.
- ``turn_block(agent, query)``: text put in front of the user's message for that turn only (retrieved
  memory); "" for nothing. Never in the system prompt, so the cached prefix stays valid.
- ``tools(settings)``: extra ``Tool`` instances (besides the built-in catalogue), filtered by
  ``[tools] enabled``; their names join the prompt's tool index.
- Lifecycle hooks, each returning events (or None): ``on_session_start(agent)``,
  ``on_turn_start(agent)``, ``on_context_pressure(agent, used_tokens)`` (before history is trimmed),
  ``on_turn_end(agent, done)``, ``on_session_end(agent, reason)``.
- A hook never assigns to the Agent: it returns an intent among its events (``nanobot.core.intents``:
  ``FreshContext`` with the history to start over from, ``TranscriptMeta``, ``PrefillOff``) and the
  Agent applies it (``tests/test_imports.py`` fails on ``agent.x = …`` in a feature).
- ``release_model(agent)``: a feature that uses ``agent.model`` in the background (the coding
  session's description rewrite) ends that use here; the Agent calls it before every use of its own.
- ``register_commands(app, cli)`` in the package's ``commands.py`` (optional): the feature's own
  ``nanobot`` commands (as simonw/llm's plugin hook), added to the typer ``app`` by
  ``runtime.register_commands``, which imports only that module; ``cli`` (``Cli`` below) lends what a
  command needs from the layers above the feature: the model loader, the chat loop, safe printing.
- its config.toml section (optional): a model in ``nanobot/config/<feature>.py`` and one field in
  ``config.Settings`` -- in the config layer, since every layer reads ``Settings``.

How to add one: write the feature in its own module (with a ``make_feature(agent)`` factory) and
add one line to ``runtime.FEATURES``.

>>> class Hello(Feature):
...     name = "hello"
...     def sections(self, agent):
...         return [RawSection(name="hello", text="Say hello.", budget=10, order=35)]
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from nanobot.core.events import Event, TurnDone
from nanobot.core.prompt import RawSection

if TYPE_CHECKING:  # pragma: no cover
    from nanobot.backends.base import ChatModel, Generation, Message
    from nanobot.config import Settings
    from nanobot.core.prefill import Prefill
    from nanobot.core.prompt import BuiltPrompt
    from nanobot.core.provenance import Provenance
    from nanobot.core.transcript import Transcript

F = TypeVar("F", bound="Feature")


class Judgements(Protocol):
    """The model's yes/no judgements of the user's current message (``nanobot.loop.judge.Judge``),
    cached until the message changes; each is None where the backend cannot score one."""

    text: str  # the user's message as typed
    cache: dict[str, float | None]
    messages: list[Message]  # the turn's prompt as the model sees it

    def context(self, text: str, messages: list[Message]) -> None: ...
    def classified(self, agent: Agent, kind: str) -> float | None: ...
    def sure(self, agent: Agent, kind: str) -> bool | None: ...
    def probability(self, agent: Agent, kind: str) -> float | None: ...
    def rename(self, agent: Agent, old: str, new: str) -> bool | None: ...


class Budget(Protocol):
    """The model evaluations and seconds one turn may spend (``nanobot.loop.budget.TurnBudget``)."""

    used: Mapping[str, int]  # evaluations this turn, by model method

    def room(self) -> bool: ...
    def spent_what(self) -> str: ...
    def spent_line(self) -> str: ...


class Runner(Protocol):
    """The tool runner the Agent answers through (``nanobot.tools.runner.ToolRunner``)."""

    settings: Settings
    tools: dict[str, Any]  # name -> ``nanobot.tools.base.Tool``
    stats: list[Any]  # every constrained step, oldest first (``tools.runner.StepStats``)

    def names(self) -> list[str]: ...
    def template_calls(self, agent: Agent) -> bool: ...
    def listed_by_template(self, agent: Agent) -> bool: ...
    def respond(self, agent: Agent, messages: list[Message], first: str = "") -> Iterator[Event]: ...
    def retry_tool(self, agent: Agent, messages: list[Message], name: str) -> Iterator[Event]: ...
    def run_valid(self, agent: Agent, name: str, args: Any) -> Generator[Event, None, tuple[bool, str]]: ...


class Agent(Protocol):
    """The view of the Agent that features, tools and the reply checks get (``nanobot.loop.agent.Agent``
    implements it). Declared here, not imported, so the contract does not depend on the class that uses it:
    a tool reads ``agent.judge`` without importing the layer that builds it.
    """

    settings: Settings
    model: ChatModel
    clock: Callable[[], datetime]
    workspace: Path
    interactive: bool
    history: list[Message]
    transcript: Transcript | None
    started: datetime
    last: Generation
    features: list[Feature]
    confirm: Callable[[str], bool] | None
    detach_housekeeping: bool  # session-end model work goes to a detached child (the chat CLI)
    provenance: Provenance  # who brought which text
    judge: Judgements
    budget: Budget

    @property
    def user_turns(self) -> int: ...
    @property
    def tool_runner(self) -> Runner | None: ...
    def feature(self, kind: type[F]) -> F | None: ...
    def add_feature(self, feature: F) -> F: ...
    def system_prompt(self) -> BuiltPrompt: ...
    def refresh_prompt(self) -> None: ...
    def memory_block(self, query: str) -> str: ...
    def tool_names(self) -> list[str]: ...
    def stop_prefill(self, abandon: bool = False) -> Prefill | None: ...
    def system_messages(self) -> list[Message]: ...
    def first_call(self, messages: list[Message]) -> tuple[list[Message], dict[str, Any]]: ...
    def messages_for(self, user_sent: str) -> list[Message]: ...
    def respond(self, messages: list[Message]) -> Iterator[Event]: ...
    def stream_reply(self, messages: list[Message], **kw: Any) -> Iterator[Event]: ...

Events = Iterable[Event] | None


class Cli(Protocol):
    """What the CLI lends a feature's commands (``commands.register_commands(app, cli)``; ``cli/features.py``
    implements it): the runtime's model loader and ``nanobot chat``'s loop, which a feature may not
    import, and the CLI's printing (``cli/term.py``: every string through ``safe_text.printable``)."""

    def load_model(self, settings: Settings, model: str | None = None, vocab_only: bool = False) -> ChatModel: ...
    def chat(self, settings: Settings, model: str | None, verbose: bool, *, coding_session: str = "") -> None: ...
    def echo(self, message: object = "", err: bool = False) -> None: ...
    def console(self, **kwargs: Any) -> Any: ...


class Feature:
    """Base of every feature: no-op defaults, override what the feature contributes."""

    name: str = "feature"

    def sections(self, agent: Agent) -> list[RawSection]:
        return []

    def turn_block(self, agent: Agent, query: str) -> str:
        return ""

    def tools(self, settings: Settings) -> list[Any]:
        return []

    def on_session_start(self, agent: Agent) -> Events:
        return None

    def on_turn_start(self, agent: Agent) -> Events:
        return None

    def on_context_pressure(self, agent: Agent, used: int) -> Events:
        return None

    def on_turn_end(self, agent: Agent, done: TurnDone) -> Events:
        return None

    def on_session_end(self, agent: Agent, reason: str) -> Events:
        return None

    def idle_work(self, agent: Agent) -> Callable[[Prefill], None] | None:
        """Model work for while the user reads and types (run before the prefill, on its thread);
        it gets the ``Prefill``: ``cancelled()`` once the user sends, ``finishing`` to say it goes on."""
    def release_model(self, agent: Agent) -> None:
        return None


def merge_sections(contributions: Iterable[RawSection]) -> list[RawSection]:
    """Same-name sections merged (first one leads, later texts appended), sorted by ``order``.

    >>> a = RawSection(name="time", text="Now: 9:00", budget=80, stable=False, order=90)
    >>> b = RawSection(name="time", text="Back after 2 h", budget=0, order=90)
    >>> [(s.name, s.text) for s in merge_sections([a, RawSection(name="soul", text="Hi", budget=9, order=10), b])]
    [('soul', 'Hi'), ('time', 'Now: 9:00\\nBack after 2 h')]
    """
    merged: dict[str, RawSection] = {}
    for raw in sorted(contributions, key=lambda r: r.order):  # stable sort keeps feature order
        lead = merged.get(raw.name)
        if lead is None or raw.replace:
            merged[raw.name] = raw.model_copy()
        elif raw.text.strip():
            lead.text = f"{lead.text}\n{raw.text}" if lead.text.strip() else raw.text
    return list(merged.values())
