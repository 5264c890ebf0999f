"""``[kv_cache]``: the disk KV cache feature's section (``nanobot/kvcache/``)."""

from __future__ import annotations

from pydantic import Field

from nanobot.config.strict import MEGABYTES, Strict


class KVCacheSettings(Strict):
    enabled: bool = True  # disk cache of the stable prompt prefix's KV state
    max_mb: int = Field(512, ge=1, le=MEGABYTES)
