"""What a person waits for (issue 23): the real ``nanobot chat`` in a pseudo-terminal.

    python bench/waits_bench.py [--model qwen2.5-coder-1.5b|smollm2|PATH.gguf ...] [--sessions 3]
                                [--root DIR] [--wpm 60] [--enter-after 0] [--threads N] [--context FILE]
                                [--idle-between] [--json OUT]

Per model, one ``NANOBOT_HOME`` (a temporary one, its config naming the model), one warm-up session,
then ``--sessions`` timed ones, each started right after the previous one ended (so the previous
session's background observation is still running, as for a person who opens a new chat at once;
``--idle-between``: each once that housekeeping is done, the same waits with nothing in the background):

* **prompt**: process start -> ``You:`` shown on the terminal;
* **first token**: Enter -> the first visible character after ``Nano:`` for "What is the capital of
  France?" (a question that needs no tool), the question typed at ``--wpm`` words per minute right
  after the prompt appears (0: pasted at once), Enter ``--enter-after`` seconds after the last
  character (0: at once; 1: "pasted and sent a second later");
* **exit**: Ctrl-D at the next prompt -> the process gone (EOF on the pty and exit status read).

Reports the medians (and every sample) with the 1-minute load (``os.getloadavg``) before and after.
``--root`` runs another checkout's code (the same script measures ``main`` before and a branch after).
The model's reply is held to ``--max-tokens`` (24) tokens: the figures are waits, not reply lengths.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from figures import emit

QUESTION = "What is the capital of France?"
ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = {"qwen2.5-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"}


def model_file(name: str) -> Path | None:
    """A catalogue model's GGUF: ``$NANOBOT_QWEN_GGUF``, ~/.nanobot/models, /work/models."""
    if name not in CATALOGUE:
        return None
    env = os.environ.get("NANOBOT_QWEN_GGUF")
    for p in ([Path(env)] if env else []) + [Path.home() / ".nanobot" / "models" / CATALOGUE[name],
                                             Path("/work/models") / CATALOGUE[name]]:
        if p.is_file():
            return p
    raise SystemExit(f"{name}: model file not found; run: nanobot models install {name}")


def make_home(model: str, home: Path | None = None, threads: int | None = None) -> tuple[Path, str]:
    """A NANOBOT_HOME whose config names ``model`` (``threads``: its llama.cpp ``n_threads``)."""
    home = home or Path(tempfile.mkdtemp(prefix="waits-"))
    path = model_file(model)
    extra = f"n_threads = {threads}\n" if threads else ""
    if path is not None:
        (home / "config.toml").write_text(f'[models."{model}"]\npath = "{path}"\nn_ctx = 8192\n{extra}')
    elif extra:
        (home / "config.toml").write_text(f'[models."{model}"]\n{extra}')
    return home, model


def env_for(home: Path, root: Path, max_tokens: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
    return env | {"NANOBOT_HOME": str(home), "NANOBOT_CHAT__MAX_TOKENS": str(max_tokens),
                  "NANOBOT_CHAT__TEMPERATURE": "0", "PYTHONPATH": str(root), "TERM": "xterm",
                  "COLUMNS": "100", "LINES": "30"}


CPR = "\x1b[6n"  # prompt_toolkit asks the terminal where the cursor is; a terminal answers at once


def expect(child, pattern: str) -> str:
    """``child.expect(pattern)``, answering cursor-position requests the way a terminal does (left
    unanswered, prompt_toolkit waits 2 s for the answer before it draws the prompt); what came
    before the match."""
    seen = ""
    while child.expect([pattern, CPR.replace("[", "\\[")]) == 1:
        seen += child.before
        child.send("\x1b[1;1R")
    return seen + child.before


def session(home: Path, model: str, root: Path, wpm: float, max_tokens: int, timeout: float,
            enter_after: float = 0.0) -> dict:
    import pexpect

    t0 = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "chat", "--model", model, "-v"], cwd=str(root),
                          env=env_for(home, root, max_tokens), encoding="utf-8", timeout=timeout,
                          dimensions=(30, 100))
    try:
        expect(child, "You:")
        prompt = time.perf_counter() - t0
        prompt_cpu, prompt_main = cpu_seconds(child.pid), cpu_seconds(child.pid, main=True)
        gap = 60.0 / (wpm * 5) if wpm else 0.0  # five characters a word
        for ch in QUESTION:
            child.send(ch)
            if gap:
                time.sleep(gap)
        if enter_after:
            time.sleep(enter_after)
        child.send("\r")
        enter = time.perf_counter()
        expect(child, r"Nano:(?:\x1b\[[0-9;?]*[A-Za-z]|\s)*[^\s\x1b]")  # its first visible character
        first = time.perf_counter() - enter
        shown = expect(child, "You:")
        done = time.perf_counter() - enter
        line = re.search(r"\[prompt \d+ tok[^\]]*\]", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown))
        timing = line.group(0) if line else ""
        time.sleep(0.3)  # a person reads before leaving
        bye = time.perf_counter()
        child.sendeof()
        child.expect(pexpect.EOF)
        child.wait()
        gone = time.perf_counter() - bye
    finally:
        child.close(force=True)
    return {"prompt_s": round(prompt, 3), "prompt_cpu_s": prompt_cpu, "prompt_main_cpu_s": prompt_main, "first_token_s": round(first, 3), "reply_done_s": round(done, 3),
            "exit_s": round(gone, 3), "exit_status": child.exitstatus, "timing": timing}


def housekeeping() -> list[int]:
    """The pids of ``nanobot housekeep`` children running now (any home: the bench's machine is its own)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"housekeep" in cmd and any(c.endswith(b"nanobot") for c in cmd):
                found.append(int(proc.name))
    return found


def settle(idle: bool, limit: float = 600.0) -> float:
    """With ``idle``, wait until no housekeeping child runs (the previous session's observation done);
    the seconds waited (0 without)."""
    start = time.perf_counter()
    while idle and housekeeping() and time.perf_counter() - start < limit:
        time.sleep(1.0)
    return round(time.perf_counter() - start, 1)


def cpu_seconds(pid: int, main: bool = False) -> float:
    """CPU time ``pid`` used so far (user + system, all its threads): on a shared machine, what the
    start-up costs regardless of how long other processes kept it waiting."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat" if main else f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return -1.0
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 3)


def med(rows: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in rows), 3)


def run_model(model: str, args) -> dict:
    home, name = make_home(model, args.home, args.threads)
    if args.context:  # a CONTEXT.md with content, as a person's has after some sessions
        (home / "workspace").mkdir(parents=True, exist_ok=True)
        (home / "workspace" / "CONTEXT.md").write_text(args.context.read_text())
    load0 = os.getloadavg()[0]
    warm = session(home, name, args.root, args.wpm, args.max_tokens, args.timeout, args.enter_after)
    rows = []
    for _ in range(args.sessions):
        waited = settle(args.idle_between)
        rows.append(session(home, name, args.root, args.wpm, args.max_tokens, args.timeout, args.enter_after)
                    | {"housekeeping_waited_s": waited})
    out = {"model": model, "root": str(args.root), "idle_between": args.idle_between, "wpm": args.wpm, "enter_after": args.enter_after, "threads": args.threads,
           "context": str(args.context or ""), "warmup": warm, "sessions": rows,
           "median": {k: med(rows, k) for k in ("prompt_s", "prompt_cpu_s", "first_token_s", "reply_done_s", "exit_s")},
           "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2), "home": str(home)}
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append", help="model name or .gguf (repeatable; default: both)")
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose nanobot runs")
    ap.add_argument("--wpm", type=float, default=60.0, help="typing speed (0: the question pasted at once)")
    ap.add_argument("--enter-after", type=float, default=0.0, help="seconds from the last character to Enter")
    ap.add_argument("--max-tokens", type=int, default=24)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--context", type=Path, help="start with this CONTEXT.md (e.g. bench/data/waits-context.md)")
    ap.add_argument("--threads", type=int, help="llama.cpp n_threads (default: the chat's own choice)")
    ap.add_argument("--idle-between", action="store_true",
                    help="start each timed session once the previous one's housekeeping is done (no draft running)")
    ap.add_argument("--home", type=Path, help="reuse this NANOBOT_HOME (one model; its disk KV cache kept)")
    args = ap.parse_args()
    results = [run_model(m, args) for m in (args.model or ["qwen2.5-coder-1.5b", "smollm2"])]
    doc = {"bench": "waits", "uptime_load": os.getloadavg(), "cores": os.cpu_count(), "results": results}
    emit(doc, args.json, indent=1, echo=False)


if __name__ == "__main__":
    main()
