"""``[consolidation]``: the per-chat context feature's section (``nanobot/chats/``; the key keeps its
first name: a written config.toml has it)."""

from __future__ import annotations

from pydantic import Field

from nanobot.config.strict import BYTES, MANY, TOKENS, Strict


class ConsolidationSettings(Strict):
    """Per-chat context (``nanobot/chats/``): $NANOBOT_HOME/chats/<id>/CONTEXT.md."""

    enabled: bool = True  # inject the chat's CONTEXT.md; nightly consolidation in `nanobot daemon`
    at: str = Field("02:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")  # nightly, local time (HH:MM)
    lookback_days: int = Field(7, ge=1, le=MANY)  # the suggester reads at most this far back
    prune_days: int = Field(14, ge=1, le=MANY)  # an item not mentioned for this long is dropped
    topics: int = Field(5, ge=1, le=MANY)  # Recent Topics keeps the newest this many
    max_bytes: int = Field(2048, ge=256, le=BYTES)  # the file's cap
    budget: int = Field(400, ge=0, le=TOKENS)  # tokens of the "Current conversation" prompt section
    stale_days: int = Field(7, ge=1, le=MANY)  # older than this: injected with a note saying so
    max_tokens: int = Field(320, ge=64, le=TOKENS)  # the suggester's output per window
    merge_similarity: float = Field(0.85, gt=0.0, le=1.0)  # same item (embedding cosine) -> one line
