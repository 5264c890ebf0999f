"""Catching up on what earlier sessions left behind, written once: observe the past sessions that
have no observation, refresh a stale CONTEXT.md from the observations, then reflect them into
MEMORY.md. ``nanobot reflect`` runs it whole (reflection always, or a dry run); the housekeeping child
observes and reflects when due (``keep_going``: one failure is a line, the rest still runs); the
observer's session end observes what its start found pending. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from nanobot.observer import reflector
from nanobot.observer.observer import find_pending, observe_transcript


class Observed(BaseModel):
    session: str
    path: Path  # the observation file written
    generator: str  # "model", or the fallback's name


class CatchUp(BaseModel):
    observed: list[Observed] = []
    failed: list[tuple[str, str]] = []  # (what: a session id or "reflection", why)
    context: str = ""  # refresh_context's note ("" while CONTEXT.md is fresh, or not refreshed)
    reflection: reflector.ReflectReport | None = None


def observe_pending(settings, load: Callable[[], object], now: datetime,
                    paths: Sequence[Path], keep_going: bool = False) -> CatchUp:
    """Observe each of ``paths`` (past transcripts) with the model ``load()`` gives (loaded once, at
    the first); ``keep_going``: a failure is recorded and the next is tried, else it propagates."""
    out, model = CatchUp(), None
    for path in paths:
        try:
            model = model if model is not None else load()
            written = observe_transcript(settings, model, path, now)
        except Exception as e:
            if not keep_going:
                raise
            out.failed.append((path.stem, f"{type(e).__name__}: {e}"))
            continue
        out.observed.append(Observed(session=path.stem, path=written.path, generator=written.part.generator))
    return out


def catch_up(settings, load: Callable[[], object], now: datetime, *, observe: bool = True,
             exclude: str | None = None, skip: frozenset[str] = frozenset(), limit: int | None = None,
             refresh: bool = True, reflect: Literal["always", "due", "no"] = "due", dry_run: bool = False,
             keep_going: bool = False) -> CatchUp:
    """Observe the pending sessions (not ``exclude``, none in ``skip``, at most ``limit``), refresh
    CONTEXT.md, then reflect (``always``, when ``due``, or ``no``); ``dry_run`` writes nothing."""
    pending = [p for p in find_pending(settings, exclude=exclude) if p.stem not in skip]
    pending = pending if observe and not dry_run else []
    out = observe_pending(settings, load, now, pending[:limit], keep_going)
    if refresh and not dry_run:
        out.context = reflector.refresh_context(settings, now)
    try:
        if reflect == "always" or (reflect == "due" and reflector.reflection_due(settings, now)):
            out.reflection = reflector.reflect(settings, now=now, dry_run=dry_run)
    except Exception as e:  # the observations are written; reflection runs again when due
        if not keep_going:
            raise
        out.failed.append(("reflection", f"{type(e).__name__}: {e}"))
    return out
