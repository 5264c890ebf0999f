"""The tool registry: which tools exist, and which are enabled.

How to add a tool (one file + one line):

1. Write ``nanobot/tools/NAME.py`` with a ``Tool`` subclass (see ``nanobot/tools/base.py``): a
   snake_case ``name``, a one-line ``description``, an ``Args`` pydantic model (subclass ``ToolArgs``;
   give every field a short ``description``, bound strings with ``max_length`` and prefer ``Literal``
   for choices: the argument grammar is built from this schema) and ``run(args, ctx) -> str``.
   Raise ``nanobot.base.errors.ToolError("what went wrong; how to fix it")`` on failure.
2. Add ``"nanobot.tools.NAME:ClassName"`` to ``BUILTINS`` below.

A tool that belongs to a feature (memory, the vault) lives in that feature's package instead, in
its ``TOOLS`` (``nanobot/memory/tools.py``): the feature offers it (``offered``) and lists it
(``catalogue``), so it is there exactly when the feature is on.

That's all: the name shows up in the system prompt's tool index, ``nanobot tools`` lists it, the
runner loads its schema when the model picks it. Users can turn tools off with
``[tools] enabled = [...]`` in config.toml. Modules are imported lazily, on first use.
"""

from __future__ import annotations

import importlib
from functools import cache

from nanobot.base.errors import ConfigError
from nanobot.config import Settings
from nanobot.tools.base import Tool

BUILTINS: list[str] = [
    "nanobot.tools.shell:Exec",
    "nanobot.tools.files:ReadFile",
    "nanobot.tools.files:WriteFile",
    "nanobot.tools.files:EditFile",
    "nanobot.tools.append:AppendFile",
    "nanobot.tools.files:ListDir",
    "nanobot.tools.web:WebSearch",
    "nanobot.tools.web:WebFetch",
    "nanobot.tools.tasks:TaskBoard",
    "nanobot.tools.scratchpad:Scratchpad",
    "nanobot.tools.skills:SkillManager",
    "nanobot.tools.spawn:Spawn",
    "nanobot.tools.cron:Cron",
    "nanobot.tools.message:SendMessage",
]


@cache
def _load(spec: str) -> type[Tool]:
    module, _, cls = spec.partition(":")
    return getattr(importlib.import_module(module), cls)


def all_tools() -> dict[str, type[Tool]]:
    """Every registered tool class by name, in registry order."""
    out: dict[str, type[Tool]] = {}
    for spec in BUILTINS:
        cls = _load(spec)
        out[cls.name] = cls
    return out


def enabled_tools(settings: Settings) -> dict[str, Tool]:
    """Instances of the built-in tools ``settings.tools.enabled`` allows (None = all). Names it does
    not know may belong to a feature's tools: ``check_enabled`` reports the typos."""
    return offered(all_tools().values(), settings)


def offered(classes, settings: Settings) -> dict[str, Tool]:
    """Instances of ``classes`` that ``[tools] enabled`` allows (None = every tool that is on by default,
    ``Tool.default``, in the classes' order; a list: in the user's order) and whose feature is on
    (``Tool.available``).

    >>> from nanobot.config import Settings
    >>> from nanobot.tools.tasks import TaskBoard
    >>> list(offered([TaskBoard], Settings(tools={"enabled": ["task_board", "exec"]})))
    ['task_board']
    >>> from nanobot.tools.message import SendMessage
    >>> list(offered([TaskBoard, SendMessage], Settings()))  # message: only where enabled names it
    ['task_board']
    """
    by_name, wanted = {c.name: c for c in classes}, settings.tools.enabled
    names = [n for n, c in by_name.items() if c.default] if wanted is None else [n for n in wanted if n in by_name]
    return {name: by_name[name]() for name in names if by_name[name].available(settings)}


def check_enabled(settings: Settings, known: list[str]) -> None:
    """ConfigError when ``[tools] enabled`` names a tool that neither the registry nor a feature has."""
    unknown = [n for n in settings.tools.enabled or [] if n not in known and n not in all_tools()]
    if unknown:
        raise ConfigError(f"tools.enabled names unknown tool(s) {', '.join(unknown)}; "
                          f"known: {', '.join(dict.fromkeys([*all_tools(), *known]))}")
