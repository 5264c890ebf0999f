"""Observer costs on the bundled model: start-up overhead of the hooks, and the observation at exit.

    .venv/bin/python bench/observer_bench.py [--sessions 30] [--turns 3]

Start-up: a home with N past sessions and their observations, the workspace a git repo, and one
project dir; times ``on_session_start`` + ``time_extra`` + ``context_text`` (what the observer adds
before the first prompt), median of 5. Exit: a real ``turns``-turn chat, then ``end_session``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from figures import emit

from nanobot.config import load_settings
from nanobot.core.transcript import Transcript
from nanobot.loop.agent import Agent
from nanobot.observer.feature import ObserverFeature
from nanobot.observer.observation import Observation, ObservationDraft, ObservationPart
from nanobot.runtime import load_model
from nanobot.workspace import init_workspace


def seed(settings, n: int) -> None:
    init_workspace(settings.workspace)
    start = datetime.now().astimezone() - timedelta(days=n)
    for i in range(n):
        at = start + timedelta(days=i)
        t = Transcript.create(settings.sessions_dir, at, model="bench")
        for j in range(10):
            t.append("user", f"question {j} " * 20, now=at + timedelta(minutes=2 * j))
            t.append("assistant", f"answer {j} " * 40, now=at + timedelta(minutes=2 * j + 1))
        part = ObservationPart.of(ObservationDraft(summary="s", facts=[f"fact {i}"]), "quit", 10, at=at)
        (settings.workspace / "observations" / f"{t.id}.md").write_text(
            Observation(session=t.id, started=at, parts=[part]).render())
    subprocess.run(["git", "init", "-q", str(settings.workspace)], check=True)


def startup_ms(settings, model, repeats: int = 5) -> dict:
    times = []
    for _ in range(repeats):
        agent = Agent(settings, model)
        hook = ObserverFeature(settings)
        agent.transcript = Transcript.create(settings.sessions_dir, agent.started, model="bench")
        t0 = time.perf_counter()
        hook.on_session_start(agent)
        t1 = time.perf_counter()
        hook.time_extra(agent)
        hook.context_text(agent)
        t2 = time.perf_counter()
        times.append(((t1 - t0) * 1000, (t2 - t0) * 1000))
        agent.transcript.path.unlink()
    return {"on_session_start_ms": round(statistics.median(t[0] for t in times), 1),
            "until_prompt_ready_ms": round(statistics.median(t[1] for t in times), 1)}


def exit_cost(settings, model, turns: int) -> dict:
    from nanobot.observer.feature import attach_observer

    agent = Agent(settings, model)
    attach_observer(agent)
    agent.start_session()
    for q in ["I'm Ada; I am writing a CSV parser in Rust.", "We decided to use serde.",
              "Next: malformed rows. Any advice?"][:turns]:
        list(agent.turn(q))
    t0 = time.perf_counter()
    notices = agent.end_session("quit")
    took = time.perf_counter() - t0
    g = model.last
    return {"end_session_s": round(took, 2), "notices": [n.text for n in notices],
            "observer_call": g.model_dump(exclude={"text"})}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--turns", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NANOBOT_HOME"] = tmp
        settings = load_settings(Path(tmp), chat={"temperature": 0, "max_tokens": 64},
                                 observer={"reflect_on_start": False, "project_dirs": [str(Path.cwd())]})
        seed(settings, args.sessions)
        model = load_model(settings)
        out = {"sessions": args.sessions, **startup_ms(settings, model),
               **exit_cost(settings, model, args.turns),
               "load_1min": os.getloadavg()[0]}
    emit(out, indent=1)


if __name__ == "__main__":
    main()
