"""The TOC is part of the cached prefix (real bundled model, real disk KV cache): a second session
restores "Your Knowledge" from disk instead of evaluating it; the digest stays after the prefix."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from nanobot.config import load_settings
from nanobot.kvcache.feature import KVCacheFeature, stable_prefix_tokens
from nanobot.runtime import build_agent
from nanobot.vault.ledger import LedgerEntry, append
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow


def test_second_session_restores_the_toc_from_the_disk_kv_cache(home, model, monkeypatch):
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", "[]")
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    ws = load_settings(home).workspace
    init_workspace(ws)
    (ws / "knowledge" / "projects").mkdir(parents=True)
    for name in ("zephyr", "atlas", "csv"):
        (ws / "knowledge" / "projects" / f"{name}.md").write_text(f"---\nsummary: All about {name}\n---\nBody\n")
    append(ws, LedgerEntry(ts=datetime.now().astimezone() - timedelta(hours=1), actor="user",
                           action="create", path="knowledge/projects/zephyr.md", change_summary="New zephyr doc"))

    def session():
        agent = build_agent(load_settings(home), model)
        hook = next(h for h in agent.features if isinstance(h, KVCacheFeature))
        model.llm.reset()  # a fresh process: nothing in the model's KV memory
        agent.start_session()
        built = agent.system_prompt()
        prefix = stable_prefix_tokens(model, built.text, built.stable_text)
        return agent, hook, built, model.llm.detokenize(prefix, special=True).decode(errors="replace")

    _, hook, built, cached = session()
    assert hook.last.action == "saved"
    assert "## Your Knowledge\n### projects/ (3 docs)\n- atlas.md — All about atlas" in cached
    assert "## Recent Changes" in built.text and "Recent Changes" not in cached  # volatile: after it

    agent, hook, _, cached2 = session()
    assert hook.last.action == "restored" and cached2 == cached
    list(agent.turn("Which projects do I have notes on?"))
    assert agent.last.reused_tokens == hook.last.prefix_tokens  # the TOC was not evaluated again
