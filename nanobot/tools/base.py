"""The Tool contract: a name, a one-line description, a pydantic ``Args`` model, and ``run``.

The JSON schema of ``Args`` *is* the tool's schema: it is what ``nanobot tools NAME`` prints, what the
model sees (for one call only) after it names the tool, and what the argument grammar is built from.
A tool reports failure by raising ``ToolError`` with a short message; the runner hands that message
back to the model as a tool result, so it must say what was wrong and how to do it right.

Example::

    class EchoArgs(BaseModel):
        text: str = Field(description="what to echo", max_length=200)

    class Echo(Tool):
        name = "echo"
        description = "Repeat a text back."
        Args = EchoArgs

        def run(self, args: EchoArgs, ctx: ToolContext) -> str:
            return args.text
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from nanobot.config import Settings
from nanobot.core.features import Agent
from nanobot.tools.effects import UNDECLARED, Effect
from nanobot.tools.grammar import args_grammar


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolArgs(BaseModel):
    """Base for argument models: unknown keys are an error the model gets told about."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class ToolContext:
    """What a running tool may use. ``agent`` and ``model`` are None outside a chat (tests, daemon)."""

    settings: Settings
    session_id: str = "default"
    confirm: Callable[[str], bool] | None = None  # asks the user; None = not interactive
    model: Any = None
    agent: Agent | None = None
    notices: list[str] = field(default_factory=list)  # messages for the user (become Notice events)
    refused: str = ""  # set by ``execute`` when the call policy refused the call (its ``Refusal``)
    instead: str = ""  # set by ``execute``: the tool a failed call's error points to (``ToolError.instead``)

    @property
    def workspace(self) -> Path:
        return self.settings.workspace

    @classmethod
    def for_agent(cls, agent: Agent) -> ToolContext:
        sid = agent.transcript.id if agent.transcript is not None else "default"
        return cls(settings=agent.settings, session_id=sid, confirm=agent.confirm,
                   model=agent.model, agent=agent)


class Tool:
    """Subclass and set ``name``, ``description`` (one line) and ``Args``; implement ``run``.
    ``intent`` (optional, a few words) maps the user's wording to this tool in the prompt's index
    ("remember ..." -> memory_add); tools without one are listed by name. ``effects`` and
    ``target_args`` say what a call does (``nanobot.tools.effects``): undeclared, it is taken to change
    what the user keeps, and the call policy guards it."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    intent: ClassVar[str] = ""  # the prompt's tool index line: the requests this tool is for
    group: str = ""  # a tool index group (an MCP server's name); built-ins have none
    Args: ClassVar[type[BaseModel]] = NoArgs
    effects: frozenset[Effect] = UNDECLARED  # what a call does (``effects_for`` when its action decides)
    target_args: ClassVar[dict[str, str]] = {}  # argument -> what it names ("path", "command", ...)
    rewrites: ClassVar[bool] = False  # its call made from the model's rewrite of a short file (``tools.rewrite``)
    user_facts: ClassVar[bool] = False  # it keeps facts of the user's: each one the user said (``Provenance.unsaid``)
    default: ClassVar[bool] = True  # offered unless ``[tools] enabled`` leaves it out; False: only when it names it

    def effects_for(self, args: Any) -> frozenset[Effect]:
        """The effects of one call; a tool whose action argument decides them overrides this."""
        return self.effects

    def run(self, args: Any, ctx: ToolContext) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def available(cls, settings: Any) -> bool:
        """Whether the feature behind this tool is on (e.g. memory tools need memory enabled)."""
        return True

    @classmethod
    def parameters(cls) -> dict:
        """The JSON schema of the arguments, without pydantic's noise (titles)."""
        return _strip_titles(cls.Args.model_json_schema())

    @classmethod
    def schema(cls) -> dict:
        return {"name": cls.name, "description": cls.description, "parameters": cls.parameters()}

    def offered(self, ctx: ToolContext) -> dict:
        """The argument schema a call is generated under in the session of ``ctx``: ``parameters()``,
        or a tool's narrowing of it to what can run there from facts of the session (``Exec``: only
        allowed commands where nobody can be asked)."""
        return self.parameters()

    def grammar(self) -> str:
        """The GBNF its arguments are generated under (a tool with its own schema handling, e.g.
        an MCP tool, overrides this)."""
        return self.grammar_of(self.parameters())

    def grammar_of(self, schema: dict) -> str:
        """The GBNF for arguments under ``schema``: its own, or one narrowed from it (the template
        call step's ``choices.described``); a tool with its own schema handling overrides this."""
        return args_grammar(schema)


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
