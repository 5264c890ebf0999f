"""The observer's hand-off queue: at the end of a chat the session's observation (and a due
reflection) is written as a job file, ``$NANOBOT_HOME/housekeep/<session>.json`` (the session as the
model saw it), and ``spawn`` starts the detached ``nanobot housekeep`` child (``nanobot/housekeeping/housekeep.py``)
that works through the queue. Nothing here loads a model.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, field_validator

from nanobot.backends.base import Message
from nanobot.base import pidlock
from nanobot.base.atomic import atomic_write
from nanobot.base.confine import safe_id
from nanobot.base.foreground import NICE
from nanobot.base.regular import open_append

LOCK = "housekeep"
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
    root = str(Path(__file__).resolve().parents[2])  # this checkout's nanobot, whatever the cwd
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
               NANOBOT_HOME=str(settings.home))
    cmd = [sys.executable, "-m", "nanobot", "housekeep", "--model", model,
           *(["--exclude", exclude] if exclude else []), *(["--reflect"] if reflect else [])]
    if nice := shutil.which("nice"):  # niced from exec on: its imports, before it sets SCHED_IDLE itself,
        cmd = [nice, "-n", str(NICE), *cmd]  # are neither a core taken from the next chat nor counted busy by it
    with open_append(log) as out:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, env=env)
        out.write(f"{datetime.now().astimezone():%Y-%m-%d %H:%M:%S} spawned pid {proc.pid} "
                  f"(by pid {os.getpid()})\n".encode())
    return proc.pid
