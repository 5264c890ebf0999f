"""Housekeeping off the user's path: a session's observation, the CONTEXT.md update and a due
reflection run in a detached, low-priority child process, one at a time per NANOBOT_HOME.

At the end of a chat the observer writes a job file, ``$NANOBOT_HOME/housekeep/<session>.json``: the
session as the model saw it (system prompt, history, turns, times, model file). ``spawn`` starts
``python -m nanobot housekeep`` in a new session (a closed terminal does not stop it), stdin closed,
output appended to ``$NANOBOT_HOME/logs/housekeep.log``, and returns at once. ``work`` (the child)
runs at idle CPU priority and yields to a busy chat (``nanobot/foreground.py``), queues on ``housekeep.lock`` (``nanobot/pidlock.py``) behind a running one, then
observes every job file (the stable system-prompt prefix restored from the disk KV cache, so only
the history is evaluated), deleting each only after its observation is written; then up to
``observer.recover_max`` past sessions that have no observation; then, for a child a session start
found reflection due for (``observer.reflect_on_start``), the reflection into MEMORY.md.
Killed at any point, the job file or the transcript is still there: the next chat start sees it
and starts a child again. ``report`` is what ``nanobot status`` shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, field_validator

from nanobot import foreground, pidlock
from nanobot.atomic import atomic_write
from nanobot.backends.base import Message
from nanobot.confine import safe_id
from nanobot.regular import open_append, read_regular, tail_lines

LOCK = "housekeep"
QUEUE_WAIT_S = 3600.0  # how long a child waits behind a running one
NICE = 19
JOB_MAX = 64 << 20  # a job file larger than this is not one nanobot wrote


class Job(BaseModel):
    session: str
    reason: str
    model: str  # the GGUF the session ran
    started: datetime
    ended: datetime
    system: str
    stable: str = ""  # the system prompt's stable part (its KV state may be on disk)
    history: list[Message]

    @field_validator("session")
    @classmethod
    def _plain(cls, v: str) -> str:  # it names the observation file: never a path
        return safe_id(v)

    @field_validator("model")
    @classmethod
    def _gguf(cls, v: str) -> str:  # loaded by the child: a model file, nothing else
        if v and not (v.endswith(".gguf") or "/" not in v):
            raise ValueError(f"model {v!r} is neither a .gguf file nor a model name")
        return v


class Status(BaseModel):
    running: int | None = None  # pid of the child holding the lock
    queued: list[str] = []  # sessions whose job file waits
    pending: list[str] = []  # past sessions with no observation and no job
    log: Path
    last_lines: list[str] = []


def jobs_dir(home: Path) -> Path:
    return home / "housekeep"


def log_path(home: Path) -> Path:
    return home / "logs" / "housekeep.log"


def queued(home: Path) -> list[Path]:
    return sorted(jobs_dir(home).glob("*.json")) if jobs_dir(home).is_dir() else []


def running(home: Path) -> int | None:
    """The pid of the child working now (holding the lock), if any."""
    return pidlock.holder(home, LOCK)


def model_arg(model) -> str | None:
    """The model file a child can load (None for models that are not a local GGUF)."""
    path = getattr(getattr(model, "resolved", None), "path", None)
    return str(path) if path else None


def write_job(agent, reason: str) -> Path:
    built = agent.system_prompt()
    job = Job(session=agent.transcript.id, reason=reason, model=model_arg(agent.model) or "",
              started=agent.started, ended=agent.clock(), system=built.text,
              stable=built.stable_text, history=agent.history)
    path = jobs_dir(agent.settings.home) / f"{job.session}.json"
    atomic_write(path, job.model_dump_json())
    return path


def spawn(settings, model: str, exclude: str = "", reflect: bool = False) -> int:
    """Start ``nanobot housekeep`` detached; returns its pid without waiting for it."""
    log = log_path(settings.home)
    log.parent.mkdir(parents=True, exist_ok=True)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's nanobot, whatever the cwd
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
               NANOBOT_HOME=str(settings.home))
    cmd = [sys.executable, "-m", "nanobot", "housekeep", "--model", model,
           *(["--exclude", exclude] if exclude else []), *(["--reflect"] if reflect else [])]
    with open_append(log) as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, env=env)
        out.write(f"{datetime.now().astimezone():%Y-%m-%d %H:%M:%S} spawned pid {proc.pid} "
                  f"(by pid {os.getpid()})\n".encode())
    return proc.pid


def report(settings) -> Status:
    from nanobot.observer.observer import find_pending

    jobs = [p.stem for p in queued(settings.home)]
    pending = [p.stem for p in find_pending(settings) if p.stem not in jobs]
    log = log_path(settings.home)
    lines = tail_lines(log, 5) if log.exists() else []
    return Status(running=running(settings.home), queued=jobs, pending=pending,
                  log=log, last_lines=lines)


def work(settings, model: str, say: Callable[[str], None], exclude: str = "", reflect: bool = False) -> int:
    """The child: every queued job, then past sessions without an observation, then (``reflect``:
    started at a session start that found it due) reflection. Returns how many observations it wrote."""
    from nanobot.observer import reflector
    from nanobot.observer.observer import find_pending, observe_transcript

    priority = foreground.lower_priority(NICE)
    lock = pidlock.acquire(settings.home, LOCK, wait=QUEUE_WAIT_S)  # noqa: F841 - held until return
    say(f"start pid {os.getpid()} ({priority})")
    models: dict[str, object] = {}

    def load(path: str):
        from nanobot.runtime import load_model

        if foreground.active(settings.home):  # a chat loading its model or answering comes first
            say("a chat is busy: waiting for it")
            say(f"going on after {foreground.wait_while_busy(settings.home):.1f} s")
        if path not in models:
            models[path] = foreground.Yielding(load_model(settings, path or model), settings.home)
        return models[path]

    written, tried = 0, set()
    while todo := [p for p in queued(settings.home) if p not in tried]:
        for path in todo:
            tried.add(path)
            try:
                job = Job.model_validate_json(read_regular(path, limit=JOB_MAX))
            except (OSError, ValueError) as e:  # torn or edited: set aside, the transcript remains
                path.replace(path.with_suffix(".bad"))
                say(f"{path.stem}: unreadable job set aside as {path.stem}.bad ({type(e).__name__})")
                continue
            try:
                out = observe_job(settings, load(job.model), job)
            except Exception as e:  # the job file stays: the next start retries it
                say(f"{path.stem}: failed ({type(e).__name__}: {e}); kept for the next start")
                continue
            path.unlink(missing_ok=True)
            written += 1
            say(f"{job.session}: observation written to {out.path} ({out.part.generator})")
    kept = {p.stem for p in queued(settings.home)}  # failed jobs: the next start retries them as jobs
    pending = [p for p in find_pending(settings, exclude=exclude or None) if p.stem not in kept]
    for path in pending[: settings.observer.recover_max]:
        try:
            out = observe_transcript(settings, load(model), path, datetime.now().astimezone())
            written += 1
            say(f"{path.stem}: recovered, observation written ({out.part.generator})")
        except Exception as e:
            say(f"{path.stem}: recovery failed ({type(e).__name__}: {e})")
    now = datetime.now().astimezone()
    try:
        if reflect and reflector.reflection_due(settings, now):
            r = reflector.reflect(settings, now=now)
            say(f"reflected {len(r.observations)} observation(s): {len(r.added)} added, {len(r.merged)} merged")
    except Exception as e:  # the observations are written; reflection runs again when due
        say(f"reflection failed ({type(e).__name__}: {e})")
    say(f"done pid {os.getpid()}")
    return written


def observe_job(settings, model, job: Job):
    """The job's observation: the stable prefix from the disk KV cache, then ``observe_live``."""
    from nanobot.observer.idle import SessionView
    from nanobot.observer.observer import observe_live

    if settings.kv_cache.enabled and hasattr(model, "llm") and job.stable:
        from nanobot.kvcache import KVCache, stable_prefix_tokens

        prefix = stable_prefix_tokens(model, job.system, job.stable)
        KVCache(settings.cache_dir / "kv", settings.kv_cache.max_mb).prepare(model, prefix)
    view = SessionView(settings, model, job.system, job.history, job.started, job.ended,
                       job.session, settings.sessions_dir)
    return observe_live(view, job.reason)
