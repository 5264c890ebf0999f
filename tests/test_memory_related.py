"""Observations come back as "Related Context:", MEMORY.md facts as "Relevant Memory:" (real
embedder, real sqlite-vec), each within its share of prompt.memory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from nanobot.config import load_settings
from nanobot.memory.retriever import MemoryRetriever
from nanobot.memory.service import MemoryService
from nanobot.observer.contextmd import approx_tokens
from nanobot.observer.observation import Observation, ObservationDraft, ObservationPart
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow
AT = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def test_related_context_and_relevant_memory(home, embedder):
    s = load_settings(home, prompt={"memory": 120}, memory={"min_score": 0.2})
    init_workspace(s.workspace)
    (s.workspace / "MEMORY.md").write_text(
        "# Memory\n## Pets\n- Our dog Biscuit is a beagle who loves carrots.\n", encoding="utf-8")
    draft = ObservationDraft(summary="Planned Biscuit's vet visit.",
                             decisions=["take the dog Biscuit to the vet on Friday"])
    obs = Observation(session="20260301-100000-abcd", started=AT,
                      parts=[ObservationPart.of(draft, "quit", 2, at=AT)])
    (s.workspace / "observations").mkdir(exist_ok=True)
    (s.workspace / "observations" / "20260301-100000-abcd.md").write_text(obs.render(), encoding="utf-8")
    svc = MemoryService(s, embedder=embedder)
    svc.refresh()
    block = MemoryRetriever(svc, approx_tokens, s)("What about my dog Biscuit?", [])
    mem, _, rel = block.partition("\n\nRelated Context:\n")
    assert mem.startswith("Relevant Memory:\n") and "(MEMORY.md:3)" in mem, block
    assert "observations/" not in mem and "vet on Friday" in rel and "(observations/" in rel, block
    assert approx_tokens(block) <= 120 + 2

    s.memory.observations_share = 0.0  # no share, but memory leaves room: it flows to observations
    assert "Related Context:" in MemoryRetriever(svc, approx_tokens, s)("What about my dog Biscuit?", [])


def test_memory_add_is_not_an_outside_change(home, embedder):
    from nanobot.base.written import load_written

    s = load_settings(home)
    init_workspace(s.workspace)
    path = MemoryService(s, embedder=embedder).add("The cat is called Miso.").path
    assert load_written(s.home)["MEMORY.md"] == path.stat().st_mtime_ns
