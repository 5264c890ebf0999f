"""``[vault]``: the knowledge vault feature's section (``nanobot/vault/``)."""

from __future__ import annotations

from pydantic import Field

from nanobot.config.strict import HOURS, TOKENS, Strict


class VaultSettings(Strict):
    """The knowledge vault: a table of contents of knowledge/ and a digest of recent changes."""

    enabled: bool = True
    toc: int | None = Field(None, ge=0, le=TOKENS)  # fixed token budget of "Your Knowledge"; None: follows n_ctx
    toc_share: float = Field(0.10, ge=0.0, le=1.0)  # ... as this share of n_ctx,
    toc_min: int = Field(400, ge=0, le=TOKENS)  # at least this many tokens,
    toc_max: int = Field(3000, ge=0, le=TOKENS)  # at most this many (and at most half of [prompt] cap)
    digest: int = Field(200, ge=0, le=TOKENS)  # token budget of "Recent Changes" (volatile, frozen per session)
    hours: float = Field(24.0, gt=0, le=HOURS)  # the digest's window
