"""Retrieval quality on a labelled set: 337 memories, 58 queries (tests/data/memory_eval.json,
written by tests/data/make_memory_eval.py), with the real embedder and real sqlite-vec."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from nanobot.config import load_settings
from nanobot.memory.embedder import get_embedder
from nanobot.memory.service import MemoryService
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data" / "memory_eval.json"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    data = json.loads(DATA.read_text())
    settings = load_settings(tmp_path_factory.mktemp("recallhome"))
    init_workspace(settings.workspace)
    groups: dict[str, list[str]] = defaultdict(list)
    for m in data["memories"]:
        groups[m["heading"]].append(f"- {m['text']}")
    body = "\n".join(f"\n## {h}\n" + "\n".join(lines) for h, lines in groups.items())
    (settings.workspace / "MEMORY.md").write_text(f"# Memory\n{body}\n", encoding="utf-8")
    svc = MemoryService(settings, embedder=get_embedder(settings))
    report = svc.refresh()
    assert report.chunks == len(data["memories"])
    yield svc, data
    svc.close()


def evaluate(svc, data, mode: str, fusion: str = "score") -> dict[str, dict[str, float]]:
    by_text = {m["text"]: m["id"] for m in data["memories"]}
    found: dict[str, list[float]] = defaultdict(list)
    rr: dict[str, list[float]] = defaultdict(list)
    for q in data["queries"]:
        ids = [by_text[h.text] for h in svc.search(q["query"], 5, mode=mode, fusion=fusion)]
        rank = ids.index(q["id"]) + 1 if q["id"] in ids else 0
        for kind in (q["kind"], "all"):
            found[kind].append(rank > 0)
            rr[kind].append(1 / rank if rank else 0.0)
    return {kind: {"recall@5": round(sum(found[kind]) / len(found[kind]), 3),
                   "mrr@5": round(sum(rr[kind]) / len(rr[kind]), 3)} for kind in found}


def test_recall_at_5(indexed):
    svc, data = indexed
    assert len(data["queries"]) >= 40 and len(data["memories"]) >= 300
    result = evaluate(svc, data, "hybrid")
    print(f"\nhybrid retrieval over {len(data['memories'])} memories, {len(data['queries'])} queries: {result}")
    assert result["all"]["recall@5"] >= 0.9


def test_hybrid_beats_either_alone_on_keyword_heavy_queries(indexed):
    svc, data = indexed
    results = {mode: evaluate(svc, data, mode) for mode in ("vector", "fts", "hybrid")}
    results["hybrid-rrf"] = evaluate(svc, data, "hybrid", fusion="rrf")
    for mode, r in results.items():
        print(f"\n{mode:>10}: " + "  ".join(f"{k} R@5 {v['recall@5']:.3f} MRR {v['mrr@5']:.3f}" for k, v in sorted(r.items())))
    mixed = {mode: r["mixed"]["mrr@5"] for mode, r in results.items()}
    assert mixed["hybrid"] > mixed["vector"] and mixed["hybrid"] > mixed["fts"]
    assert results["hybrid"]["keyword"]["recall@5"] > results["vector"]["keyword"]["recall@5"]
    assert results["hybrid"]["semantic"]["recall@5"] > results["fts"]["semantic"]["recall@5"]
    assert results["hybrid"]["all"]["mrr@5"] > max(results["vector"]["all"]["mrr@5"],
                                                   results["fts"]["all"]["mrr@5"])
