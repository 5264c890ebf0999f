"""Housekeeping off the user's path (issue 17): two latencies the user feels, for any checkout.

    python bench/housekeep_bench.py exit   [--root DIR] [--model PATH] [--max-tokens N] [--runs 3]
    python bench/housekeep_bench.py pressure [--root DIR] [--model PATH] [--typing 10]

``exit``: the real ``nanobot chat`` (piped, one message, then EOF) run from ``--root`` (so the same
script measures ``main`` before and a branch after); the figure is the time from the end of the reply
on stdout to the process's exit ("exit latency after the last reply"), and, where the observation is
written later by a child, when its file appears. Memory is off (its embedder load is not the
observer's cost); the chat's reply is ``--max-tokens`` long.

``pressure``: in-process, the model with a small n_ctx; turns of a fixed long message until the
observer's 80% threshold is crossed, with ``--typing`` seconds between a reply and the next message
(the user reading and typing, simulated by sleeping after ``agent.prefill()``, what the interactive
chat calls). Reports the median normal turn and the turn after the crossing. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit

MESSAGE = "I am Ada. We decided to use the csv crate with serde for my Rust CSV parser."


def exit_latency(root: Path, model: str | None, max_tokens: int, runs: int, obs_max: int | None) -> dict:
    rows = []
    for _ in range(runs):
        home = Path(tempfile.mkdtemp(prefix="hk-exit-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
        env |= {"NANOBOT_HOME": str(home), "NANOBOT_CHAT__TEMPERATURE": "0", "PYTHONUNBUFFERED": "1",
                "NANOBOT_CHAT__MAX_TOKENS": str(max_tokens), "NANOBOT_MEMORY__ENABLED": "false",
                "NANOBOT_OBSERVER__REFLECT_ON_START": "false", "PYTHONPATH": str(root)}
        if obs_max:
            env["NANOBOT_OBSERVER__MAX_TOKENS"] = str(obs_max)
        cmd = [sys.executable, "-m", "nanobot", "chat", *(["--model", model] if model else [])]
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=root)
        proc.stdin.write(MESSAGE + "\n")
        proc.stdin.close()
        reply_done = None
        for line in proc.stdout:  # the reply ends with the last line on stdout (it may span several)
            if "Nano:" in line or reply_done is not None:
                reply_done = time.monotonic()
        proc.wait()
        exited = time.monotonic()
        proc.stderr.read()
        obs_dir = home / "workspace" / "observations"
        appeared = None
        while time.monotonic() - exited < 900:
            if list(obs_dir.glob("*.md")):
                appeared = time.monotonic()
                break
            time.sleep(0.05)
        rows.append({"reply_done_s": round(reply_done - t0, 2) if reply_done else None,
                     "exit_after_reply_s": round(exited - reply_done, 2) if reply_done else None,
                     "observation_after_exit_s": round(appeared - exited, 2) if appeared else None})
    return {"bench": "exit", "root": str(root), "model": model or "bundled SmolLM2-135M",
            "chat_max_tokens": max_tokens, "observer_max_tokens": obs_max or "default", "runs": rows,
            "exit_after_reply_s_median": statistics.median(r["exit_after_reply_s"] for r in rows)}


def pressure_latency(model_path: str | None, n_ctx: int, typing: float, max_tokens: int,
                     obs_max: int | None) -> dict:
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.models import resolve_model
    from nanobot.runtime import build_agent

    home = Path(tempfile.mkdtemp(prefix="hk-pressure-"))
    os.environ["NANOBOT_HOME"] = str(home)
    observer = {"reflect_on_start": False, **({"max_tokens": obs_max} if obs_max else {})}
    settings = load_settings(home, chat={"max_tokens": max_tokens, "temperature": 0},
                             memory={"enabled": False}, observer=observer, tools={"enabled": []})
    resolved = resolve_model(settings, model_path)
    resolved = dataclasses.replace(resolved, settings=resolved.settings.model_copy(update={"n_ctx": n_ctx}))
    agent = build_agent(settings, LlamaBackend(resolved), interactive=True)
    agent.start_session()
    turns = []
    long = (MESSAGE + " ") * 4
    for i in range(40):
        agent.prefill()  # the interactive chat does this after each reply
        time.sleep(typing)
        t0 = time.perf_counter()
        notices = [ev.text for ev in agent.turn(f"{i}: {long}") if type(ev).__name__ == "Notice"]
        turns.append({"s": round(time.perf_counter() - t0, 2), "notices": notices})
        if any("observation" in n for n in notices):
            break
    agent.end_session("quit")
    fired = next((i for i, t in enumerate(turns) if any("observation" in n for n in t["notices"])), None)
    normal = [t["s"] for i, t in enumerate(turns) if fired is None or i < fired - 1]
    return {"bench": "pressure", "model": model_path or "bundled SmolLM2-135M", "n_ctx": n_ctx,
            "typing_s": typing, "chat_max_tokens": max_tokens, "turns": turns,
            "normal_turn_s_median": statistics.median(normal) if normal else None,
            "observation_turn_s": turns[fired]["s"] if fired is not None else None,
            "ratio": round(turns[fired]["s"] / statistics.median(normal), 2) if fired and normal else None}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["exit", "pressure"])
    p.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    p.add_argument("--model", default=None)
    p.add_argument("--max-tokens", type=int, default=24)
    p.add_argument("--observer-max-tokens", type=int, default=None)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--n-ctx", type=int, default=2048)
    p.add_argument("--typing", type=float, default=10.0)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    if a.what == "exit":
        out = exit_latency(a.root.resolve(), a.model, a.max_tokens, a.runs, a.observer_max_tokens)
    else:
        out = pressure_latency(a.model, a.n_ctx, a.typing, a.max_tokens, a.observer_max_tokens)
    emit(out, a.json, indent=1)


if __name__ == "__main__":
    main()
