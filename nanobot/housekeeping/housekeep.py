"""Housekeeping off the user's path: a session's observation, the CONTEXT.md update and a due
reflection run in a detached, low-priority child process, one at a time per NANOBOT_HOME.

At the end of a chat the observer writes a job file, ``$NANOBOT_HOME/housekeep/<session>.json``: the
session as the model saw it (system prompt, history, turns, times, model file). ``spawn`` starts
``python -m nanobot housekeep`` in a new session (a closed terminal does not stop it), stdin closed,
output appended to ``$NANOBOT_HOME/logs/housekeep.log``, and returns at once. ``work`` (the child)
runs at the lowest priority (nice 19 and SCHED_IDLE: a core only when nothing else wants one; an I/O
scheduler that weighs priorities, BFQ, gives a SCHED_IDLE task the idle I/O class) and yields to a busy chat (``nanobot/base/foreground.py``). One child per home works at a time: it
holds ``housekeep.lock`` (``nanobot/base/pidlock.py``), and a child started meanwhile exits at once,
its job file left in the queue for the holder, which looks at the queue again after it lets go of the
lock (so no job waits for a child that left). The holder
observes every job file (the stable system-prompt prefix restored from the disk KV cache, so only
the history is evaluated), deleting each only after its observation is written; then up to
``observer.recover_max`` past sessions that have no observation; then, for a child a session start
found reflection due for (``observer.reflect_on_start``), the reflection into MEMORY.md; last, with
the model still loaded, the disk KV entry through the rewritten CONTEXT.md that the observed chats'
next start restores (``nanobot/kvcache/prewarm.py``), after any busy chat, so that start evaluates
only its Time section and the message.
Killed at any point, the job file or the transcript is still there: the next chat start sees it
and starts a child again. ``report`` is what ``nanobot status`` shows. The queue and ``spawn`` live
in ``observer/handoff.py`` (the observer writes them); this module is the child and imports the
observer, never the other way round.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from nanobot.backends.base import abilities
from nanobot.base import foreground, pidlock
from nanobot.base.regular import read_regular, tail_lines
from nanobot.observer.handoff import (  # noqa: F401 - the queue's names, as callers knew them here
    JOB_MAX,
    LOCK,
    Job,
    jobs_dir,
    log_path,
    model_arg,
    queued,
    running,
    spawn,
    write_job,
)


class Status(BaseModel):
    running: int | None = None  # pid of the child holding the lock
    queued: list[str] = []  # sessions whose job file waits
    pending: list[str] = []  # past sessions with no observation and no job
    log: Path
    last_lines: list[str] = []


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
    started at a session start that found it due) reflection. Returns how many observations it wrote.
    While another child holds the lock it exits at once: that one takes the queued jobs too."""
    priority = foreground.lower_priority()
    try:
        lock = pidlock.acquire(settings.home, LOCK)
    except pidlock.AlreadyRunning:
        say(f"pid {running(settings.home) or '?'} is housekeeping this home and takes the queue: "
            f"pid {os.getpid()} exits ({len(queued(settings.home))} job(s) queued)")
        return 0
    models: dict[str, object] = {}
    tried: set[Path] = set()
    written, first = 0, True
    while True:
        say(f"start pid {os.getpid()} ({priority})")
        written += _round(settings, model, say, models, tried, exclude, reflect if first else False, first)
        say(f"done pid {os.getpid()}")
        lock.close()  # then a job queued meanwhile (its child found the lock held and left) is taken here
        first = False
        if not [p for p in queued(settings.home) if p not in tried]:
            return written
        try:
            lock = pidlock.acquire(settings.home, LOCK)
        except pidlock.AlreadyRunning:  # a newer child took the lock, and the queue with it
            return written


def _round(settings, model: str, say: Callable[[str], None], models: dict, tried: set[Path],
           exclude: str, reflect: bool, recover: bool) -> int:
    """The queued jobs not ``tried`` yet; with ``recover``, then the past sessions and the reflection;
    then the next start's KV entry of each chat observed. ``models`` keeps the loaded models."""
    from nanobot.observer.catchup import catch_up

    def load(path: str):
        from nanobot.runtime import load_model

        if foreground.active(settings.home):  # a chat loading its model or answering comes first
            say("a chat is busy: waiting for it")
            say(f"going on after {foreground.wait_while_busy(settings.home):.1f} s")
        if path not in models:
            models[path] = foreground.Yielding(load_model(settings, model_name(settings, path or model)),
                                               settings.home)
        return models[path]

    written, chats = 0, set()
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
            chats.add((job.model, chat_of(settings, job.session)))
            say(f"{job.session}: observation written to {out.path} ({out.part.generator})")
    if recover:
        kept = frozenset(p.stem for p in queued(settings.home))  # failed jobs: the next start retries them
        done = catch_up(settings, lambda: load(model), datetime.now().astimezone(), exclude=exclude or None,
                        skip=kept, limit=settings.observer.recover_max, refresh=False,  # each start refreshes it
                        reflect="due" if reflect else "no", keep_going=True)
        for o in done.observed:
            say(f"{o.session}: recovered, observation written ({o.generator})")
        for what, why in done.failed:
            say(f"{what} failed ({why})" if what == "reflection" else f"{what}: recovery failed ({why})")
        if r := done.reflection:
            say(f"reflected {len(r.observations)} observation(s): {len(r.added)} added, {len(r.merged)} merged")
        written += len(done.observed)
        chats |= {(model, chat_of(settings, o.session)) for o in done.observed}
    for path, chat in sorted(chats):
        if path in models and chat:
            prewarm_next(settings, models[path], chat, say)
    return written


def model_name(settings, path: str) -> str:
    """The configured name of the model file at ``path``, so the child loads it with the settings the
    chat had (the disk KV cache's key holds them); ``path`` itself when no name has that file."""
    from nanobot.base.errors import NanobotError
    from nanobot.models import configured_models, resolve_model

    target = Path(path).expanduser()
    if not target.is_file():
        return path
    for name in configured_models(settings):
        try:
            found = resolve_model(settings, name).path
        except NanobotError:
            continue
        if found is not None and found.resolve() == target.resolve():
            return name
    return path


def chat_of(settings, session: str) -> str:
    """The chat a session ran in (its registered scope ``chat:ID``); "" for a coding session."""
    from nanobot.observer import nowscope

    scope = nowscope.load(settings.sessions_dir).get("sessions", {}).get(session, "chat:local")
    return scope.removeprefix("chat:") if isinstance(scope, str) and scope.startswith("chat:") else ""


def prewarm_next(settings, model, chat: str, say: Callable[[str], None]) -> None:
    """The next start's disk KV entry for ``chat`` (derived data: a failure is logged, no more)."""
    from nanobot.housekeeping.warmjudge import warm
    from nanobot.kvcache.prewarm import prewarm
    from nanobot.runtime import build_agent

    if not settings.kv_cache.enabled or not abilities(model).state_save:
        return
    if foreground.active(settings.home):
        foreground.wait_while_busy(settings.home)
    try:
        agent = build_agent(settings, getattr(model, "inner", model), interactive=True, chat_id=chat)
        result = prewarm(agent)
        asked = warm(agent, settings.home)  # the judgements' examples too: the first turn that needs one
    except Exception as e:  # the next start evaluates what is missing itself
        say(f"next start's KV cache for chat {chat}: failed ({type(e).__name__}: {e})")
        return
    if result is not None:
        say(f"next start's KV cache for chat {chat}: {result.action}, {result.prefix_tokens} tokens"
            f" ({result.evaluated} evaluated); {asked} judgement prompt(s) ready")


def first_start(settings, say: Callable[[str], None]) -> None:
    """Make the first chat's start ready, as housekeeping makes every later one after a session: the
    default model loaded once (at install), the stable prompt's disk KV entry for the default chat
    and every judgement prompt on disk (``warm``), so the first session's turns do not evaluate them
    while the person waits. Nothing without a disk KV cache; a failure is one line through ``say``."""
    from nanobot.runtime import load_model

    if not settings.kv_cache.enabled:
        return
    try:
        model = load_model(settings)
    except Exception as e:  # the first chat evaluates them itself
        say(f"first start not made ready: {type(e).__name__}: {e}")
        return
    prewarm_next(settings, model, "local", say)


def observe_job(settings, model, job: Job):
    """The job's observation: the stable prefix from the disk KV cache, then ``observe_live``."""
    from nanobot.observer.idle import SessionView
    from nanobot.observer.observer import observe_live

    if settings.kv_cache.enabled and abilities(model).state_save and job.stable:
        from nanobot.kvcache.feature import KVCache, stable_prefix_tokens

        prefix = stable_prefix_tokens(model, job.system, job.stable)
        KVCache(settings.cache_dir / "kv", settings.kv_cache.max_mb).prepare(model, prefix)
    view = SessionView(settings, model, job.system, job.history, job.started, job.ended,
                       job.session, settings.sessions_dir)
    return observe_live(view, job.reason)
