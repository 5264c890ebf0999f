"""Scheduled work for ``nanobot daemon``: a small registry of jobs, each ``due(now)`` and ``run(now)``.

How to add a job (e.g. a nightly one): write ``due(settings, now) -> bool`` and
``run(settings, now) -> str`` (one log line; "" for nothing to say) and append a ``Job`` to ``JOBS``.
``run_due`` runs every due job in order and returns one ``JobRun`` per job it ran; a job that raises
is reported (outcome "failed: ...") and the others still run; a ``NanobotError`` (something the user
must fix, e.g. a damaged nanobot.db) propagates. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel

from nanobot.base.errors import NanobotError
from nanobot.base.safe_text import printable
from nanobot.config import Settings


class Job(BaseModel):
    name: str
    due: Callable[[Settings, datetime], bool]
    run: Callable[[Settings, datetime], str]


class JobRun(BaseModel):
    at: datetime
    job: str
    outcome: str
    ok: bool = True

    def line(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.job}: {printable(self.outcome, keep='')}"


def _reminders(settings: Settings, now: datetime) -> str:
    from nanobot.base.db import explain, is_damaged
    from nanobot.tools.cron import fire_due

    try:
        fired = fire_due(settings, now.timestamp())
    except Exception as e:  # nanobot.db holds the user's reminders: name it, never rebuild it
        if not is_damaged(e):
            raise
        raise explain(e, settings.workspace / "nanobot.db", derived=False) from None
    return "\n".join(f"reminder #{f.id}: {f.message}" for f in fired)


def _reflect_due(settings: Settings, now: datetime) -> bool:
    from nanobot.observer.reflector import reflection_due

    return reflection_due(settings, now)


def _reflect(settings: Settings, now: datetime) -> str:
    from nanobot.observer.reflector import reflect

    r = reflect(settings, now=now)
    return (f"{len(r.observations)} observation(s): {len(r.added)} fact(s) added, "
            f"{len(r.merged)} merged into MEMORY.md")


def _context(settings: Settings, now: datetime) -> str:
    from nanobot.observer.reflector import refresh_context

    return refresh_context(settings, now)


def _consolidation(settings: Settings, now: datetime) -> str:
    from nanobot.chats import nightly
    from nanobot.runtime import load_model

    return nightly.run(settings, now, lambda: load_model(settings))


def _consolidation_due(settings: Settings, now: datetime) -> bool:
    from nanobot.chats import nightly

    return nightly.due(settings, now)


JOBS: list[Job] = [
    Job(name="reminders", due=lambda s, now: True, run=_reminders),
    Job(name="reflect", due=_reflect_due, run=_reflect),
    Job(name="context", due=lambda s, now: True, run=_context),  # refresh_context: '' while fresh
    Job(name="consolidation", due=_consolidation_due, run=_consolidation),  # per-chat CONTEXT.md, nightly
]


def run_due(settings: Settings, now: datetime, jobs: list[Job] | None = None) -> list[JobRun]:
    runs: list[JobRun] = []
    for job in JOBS if jobs is None else jobs:
        try:
            if not job.due(settings, now):
                continue
            out = job.run(settings, now)
        except NanobotError:
            raise
        except Exception as e:  # one job's failure must not stop the others (or the daemon)
            runs.append(JobRun(at=now, job=job.name, outcome=f"failed: {type(e).__name__}: {e}", ok=False))
            continue
        runs += [JobRun(at=now, job=job.name, outcome=line) for line in out.splitlines() if line]
    return runs
