"""The next chat's disk KV entry, saved by the housekeeping child after it rewrote CONTEXT.md.

The child that observes a session folds the observation into CONTEXT.md, so the next chat's prompt
holds a CONTEXT no session has cached: that chat's start would evaluate it (on the 1.5B ~60-130
tokens: seconds, while the person types the first question). The child has the model loaded: it
builds the agent that chat builds (``runtime.build_agent``, no session started: nothing is written
to sessions/), and ``prewarm`` saves that agent's prefix through CONTEXT (``feature.context_prefix``; with one
system message the stable prefix, which holds CONTEXT already) and through today's date in Time
(``feature.day_prefix``: a start later that day restores it) unless its file is on disk. The key
covers the model file and its KV settings, so an entry for another model or setting is never used.
"""

from __future__ import annotations

from typing import Any

from nanobot.kvcache.feature import (
    CacheResult,
    KVCacheFeature,
    context_prefix,
    day_prefix,
    first_call_prefix,
)


def prewarm(agent: Any) -> CacheResult | None:
    """Save the disk KV entry ``agent`` (a chat's, built and not started) restores at its start;
    action "present" when it is on disk already; None when there is none to save (no KV cache)."""
    model = agent.model
    feature = agent.feature(KVCacheFeature)
    if feature is None:
        return None
    head = first_call_prefix(agent)
    longer = context_prefix(agent, head)
    longest = day_prefix(agent, longer or head)
    wanted = longest or longer or head
    if not wanted:
        return None
    if feature.cache.path_for(feature.cache.key(model, wanted)).exists():
        return CacheResult(action="present", prefix_tokens=len(wanted))
    return feature.cache.prepare(model, head, longer, longest=longest)
