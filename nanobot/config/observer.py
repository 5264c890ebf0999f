"""``[observer]``: the observer feature's section (``nanobot/observer/``: observations, CONTEXT.md, reflection)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from nanobot.config.strict import HOURS, MANY, SECONDS, TOKENS, Strict


class ObserverSettings(Strict):
    enabled: bool = True
    threshold: float | None = Field(None, gt=0.0, le=1.0)  # deprecated: [chat] pressure_threshold (copied there when [chat] does not set it)
    rearm_below: float = Field(0.6, gt=0.0, le=1.0)  # after firing, re-armed once a prompt is under this
    project_dirs: list[Path] = Field(default_factory=list)  # extra git repos to watch
    git_timeout: float = Field(2.0, gt=0, le=SECONDS)
    max_tokens: int = Field(256, ge=32, le=TOKENS)  # bound on the observation the model writes (runs at exit)
    draft_seconds: float = Field(90.0, gt=0, le=SECONDS)  # and on its time: a draft cut off is closed as far as it got
    recover_max: int = Field(2, ge=0, le=MANY)  # past sessions without an observation to observe per session end
    reflect_on_start: bool = True  # reflect in the background at start-up when due
    reflect_every_h: float = Field(6.0, ge=0, le=HOURS)  # "due": unreflected observations and last run this old
    merge_similarity: float = Field(0.85, gt=0.0, le=1.0)  # a new fact this close to a line merges
    context_max_age_h: float = Field(24.0, gt=0, le=HOURS)  # older CONTEXT.md is refreshed from observations
    background: bool = True  # chat: exit and 80% observations off the user's path (nanobot/housekeeping/housekeep.py)
