"""``[memory]``: the memory feature's section (``nanobot/memory/``: per-turn retrieval, memory_search/add)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from nanobot.config.strict import MANY, Strict


class MemorySettings(Strict):
    enabled: bool = True
    embedder: str | None = None  # path to a sentence-transformers model; None = bundled MiniLM
    embedder_backend: Literal["auto", "numpy", "torch"] = "auto"  # auto: numpy when the model allows (no torch)
    k: int = Field(5, ge=1, le=MANY)
    min_score: float = Field(0.35, ge=-1.0, le=1.0)  # similarity floor
    observations_share: float = Field(0.4, ge=0.0, le=1.0)  # of prompt.memory, for "Related Context:"
    keyword_weight: float = Field(0.1, ge=0.0, le=1.0)  # hybrid: bonus of the best BM25 match (the floor's score)
    fusion: Literal["blend", "rrf", "score"] = "blend"  # how hybrid search ranks (memory/fusion.py)
    transcripts: bool = True  # past conversations (sessions/*.jsonl) are a memory source
    transcripts_share: float = Field(0.3, ge=0.0, le=1.0)  # of prompt.memory, for "Past Conversations:"
