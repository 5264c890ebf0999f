"""Wiring: settings + model + workspace -> a ready Agent. The CLI and tests start here.

Each feature attaches itself in ``attach_features``; keep the expensive parts (torch, embedder)
off the start-up path: start them in the background and let the first turn wait only if it must.
"""

from __future__ import annotations

from pathlib import Path

from nanobot.agent import Agent
from nanobot.backends.llama import LlamaBackend
from nanobot.config import Settings, load_settings
from nanobot.models import resolve_model
from nanobot.workspace import init_workspace


def load_model(settings: Settings, model: str | None = None, vocab_only: bool = False) -> LlamaBackend:
    return LlamaBackend(resolve_model(settings, model), vocab_only=vocab_only)


def build_agent(settings: Settings, backend, *, interactive: bool = False) -> Agent:
    init_workspace(settings.workspace)
    agent = Agent(settings, backend, interactive=interactive)
    attach_features(agent)
    return agent


def attach_features(agent: Agent) -> None:
    """Attach tools, memory retrieval and the observer (as each feature lands)."""
    if agent.settings.tools.enabled != []:  # tool index + constrained tool calls (nanobot.tools)
        from nanobot.tools.runner import attach_tools

        attach_tools(agent)
    if agent.settings.memory.enabled:  # per-turn memory retrieval (nanobot.memory)
        from nanobot.memory.hook import attach_memory

        attach_memory(agent)
    if agent.settings.observer.enabled:  # observer, CONTEXT.md, time, external (nanobot.observer)
        from nanobot.observer.hooks import attach_observer

        attach_observer(agent)
    _attach_kv_cache(agent)  # keep last: its session-start hook reads the finished system prompt


def _attach_kv_cache(agent: Agent) -> None:
    """Disk KV cache of the stable prompt prefix (nanobot.kvcache), for full llama models."""
    settings = agent.settings
    model = agent.model
    if not settings.kv_cache.enabled or not isinstance(model, LlamaBackend):
        return
    if model.llm.model_params.vocab_only:
        return
    from nanobot.kvcache import KVCache, KVCacheHook

    agent.hooks.append(KVCacheHook(KVCache(settings.cache_dir / "kv", settings.kv_cache.max_mb)))


def open_agent(home: Path | None = None, model: str | None = None, *, interactive: bool = False,
               vocab_only: bool = False) -> Agent:
    settings = load_settings(home)
    return build_agent(settings, load_model(settings, model, vocab_only=vocab_only), interactive=interactive)
