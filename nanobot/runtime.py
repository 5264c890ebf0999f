"""Wiring: settings + model + workspace -> a ready Agent. The CLI and tests start here.

``FEATURES`` is the list of features (``nanobot.core.features.Feature``): adding one is one module
plus one line there. Keep the expensive parts (torch, embedder) off the start-up path: start them in
the background and let the first turn wait only if it must.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from nanobot.backends import texts_cache
from nanobot.backends.base import ChatModel
from nanobot.backends.llama import LlamaBackend
from nanobot.config import Settings, load_settings
from nanobot.loop.agent import Agent
from nanobot.models import resolve_model
from nanobot.tools.registry import all_tools
from nanobot.workspace import init_workspace

# modules a first turn imports where it needs them (a model with a tool template): imported while
# the model loads instead
FIRST_TURN = ("nanobot.tools.runner", "nanobot.tools.templatecalls", "nanobot.tools.leancalls", "nanobot.tools.foresee")


def load_model(settings: Settings, model: str | None = None, vocab_only: bool = False) -> ChatModel:
    """The named model: in process (a GGUF), or a model server's client when it has ``base_url``."""
    resolved = resolve_model(settings, model)
    if resolved.remote:
        from nanobot.backends.openai_http import OpenAIHTTPBackend

        return OpenAIHTTPBackend(resolved)
    return LlamaBackend(resolved, vocab_only=vocab_only)


def load_model_importing(settings: Settings, model: str | None = None) -> ChatModel:
    """``load_model`` on a thread while this one imports the switched-on features' modules and the
    tool classes (what ``build_agent`` does next) and reads the token texts the first decision needs
    (``backends/texts_cache.py``). llama.cpp reads the GGUF and sets up its context with the
    interpreter lock released (ctypes), so that work costs no wall time of its own. ``llama_cpp``
    itself is imported here first, so the two threads never import the same modules at once. Raises
    what ``load_model`` raised."""
    import threading

    resolved = resolve_model(settings, model)
    if not resolved.remote:
        import llama_cpp  # noqa: F401 - see the docstring

    done: list = []

    def load() -> None:
        try:
            done.append(load_model(settings, model))
        except BaseException as e:  # handed to the caller below
            done.append(e)

    worker = threading.Thread(target=load, name="nanobot-model-load", daemon=True)
    worker.start()
    for switch, spec in FEATURES:
        if switch(settings):
            importlib.import_module(spec.partition(":")[0])
    all_tools()  # the tool classes the agent offers
    for name in FIRST_TURN:
        importlib.import_module(name)
    stored = texts_cache.read(resolved.path) if not resolved.remote and resolved.path else None  # the first decision's token texts
    masks = _first_masks(stored) if worker.is_alive() else None
    worker.join()
    if isinstance(done[0], BaseException):
        raise done[0]
    if isinstance(done[0], LlamaBackend):
        done[0].adopt_texts(stored, masks)
    return done[0]


def _first_masks(texts: object) -> dict | None:
    """The first reply token's opening mask after a declined call (a scan of the vocabulary: ~0.08 s
    on Qwen2.5's), built from the stored token texts while the model still loads; None without them."""
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        return None
    from nanobot.backends.openban import OpeningBan
    from nanobot.tools.templatecalls import NO_OPENING

    ban = OpeningBan(texts, NO_OPENING, 0)
    ban.mask("")
    return {NO_OPENING: ban.masks}


def build_agent(settings: Settings, backend, *, interactive: bool = False, chat_id: str = "local",
                speaker: str | None = None, coding_session: str = "") -> Agent:
    """A ready Agent: ``chat_id``/``speaker`` select the chat (``nanobot chat --chat/--as``);
    ``coding_session`` (a coding session's root id, ``nanobot session``) switches the coding feature on
    for this agent only (the caller's ``settings`` are left as they are)."""
    if coding_session:
        settings = settings.model_copy(update={"coding": settings.coding.model_copy(update={"session": coding_session})})
    init_workspace(settings.workspace)
    agent = Agent(settings, backend, interactive=interactive,
                  known_tools=lambda: [t.name for t in feature_tools()])
    attach_features(agent)
    from nanobot.chats.feature import ChatContextFeature  # always on (FEATURES)

    chats = agent.feature(ChatContextFeature)
    if chats is not None:
        chats.select(chat_id, speaker)
    return agent


# The features, in order: (the setting that turns it on, "module:factory"); ``factory(agent)``
# returns the Feature (or None when it does not apply). Modules are imported only when switched on.
FEATURES: list[tuple[Callable[[Settings], bool], str]] = [
    (lambda s: s.tools.enabled != [], "nanobot.tools.feature:make_feature"),  # built-in tools, cron
    (lambda s: s.memory.enabled, "nanobot.memory.feature:make_feature"),  # per-turn memory retrieval
    (lambda s: s.observer.enabled, "nanobot.observer.feature:make_feature"),  # CONTEXT.md, Time, observations
    (lambda s: s.vault.enabled, "nanobot.vault.feature:make_feature"),  # knowledge TOC, recent changes
    (lambda s: bool(s.mcp.servers) and s.tools.enabled != [], "nanobot.mcptools.feature:make_feature"),  # MCP tools
    (lambda s: True, "nanobot.chats.feature:make_feature"),  # the chat (--chat/--as), its CONTEXT.md
    (lambda s: bool(s.coding.session), "nanobot.coding.feature:make_feature"),  # `nanobot session` only
    (lambda s: True, "nanobot.remote.feature:make_feature"),  # a model server: what it can do, said once per session
    (lambda s: s.kv_cache.enabled, "nanobot.kvcache.apart:make_feature"),  # last: reads the finished prompt
]


def every_tool(settings: Settings) -> tuple[dict, dict, list[str]]:
    """(every tool by name, the ones a chat with ``settings`` offers, notices), through the features:
    each ``FEATURES`` module's ``catalogue(settings)`` (the same triple), in ``FEATURES`` order; a
    switched-off feature's tools are listed, not offered (``nanobot tools``)."""
    known: dict = {}
    offered: dict = {}
    notices: list[str] = []
    for switch, spec in FEATURES:
        listing = getattr(importlib.import_module(spec.partition(":")[0]), "catalogue", None)
        if listing is None:
            continue
        every, on, said = listing(settings)
        known |= every
        offered |= on if switch(settings) else {}
        notices += said
    return known, offered, notices


def register_commands(app, cli) -> None:
    """Every feature's own ``nanobot`` commands: the ``register_commands(app, cli)`` of each ``FEATURES``
    package's ``commands`` module, where it has one, in ``FEATURES`` order, switched on or not
    (``nanobot session`` works while no coding session is on); ``cli`` is what the CLI lends them
    (``core.features.Cli``). Only those modules are imported, not the features, so a command's start
    does not wait for every feature's imports (the MCP SDK, the observer)."""
    for _, spec in FEATURES:
        module = spec.partition(":")[0].rpartition(".")[0] + ".commands"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register_commands(app, cli)


def feature_tools() -> list[type]:
    """The tool classes the features own (each ``FEATURES`` module's ``TOOLS``), in ``FEATURES``
    order, switched on or not: names ``[tools] enabled`` may hold while memory is off are no typo
    (``Agent.tool_runner``), and the full-dump baseline spells out every schema. Starts nothing."""
    return [t for _, spec in FEATURES for t in getattr(importlib.import_module(spec.partition(":")[0]), "TOOLS", ())]


def tool_classes() -> dict[str, type]:
    """Every tool class by name: the registry's, then the features' ``TOOLS`` (MCP and coding tools,
    which need a server or a session, aside): what registry-wide checks and tests walk."""
    from nanobot.tools.registry import all_tools

    return {**all_tools(), **{t.name: t for t in feature_tools()}}


def attach_features(agent: Agent) -> None:
    """Add every switched-on feature to ``agent`` (the core's sections are already there)."""
    for switch, spec in FEATURES:
        if switch(agent.settings):
            module, _, name = spec.partition(":")
            feature = getattr(importlib.import_module(module), name)(agent)
            if feature is not None:
                agent.add_feature(feature)


def open_agent(home: Path | None = None, model: str | None = None, *, interactive: bool = False,
               vocab_only: bool = False) -> Agent:
    settings = load_settings(home)
    return build_agent(settings, load_model(settings, model, vocab_only=vocab_only), interactive=interactive)
