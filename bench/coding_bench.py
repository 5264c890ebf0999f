"""A small coding job end to end (issue 79): steps piped into ``nanobot chat``, scored on disk.

    .venv/bin/python bench/coding_bench.py --model qwen2.5-coder-1.5b [--set dev|dev2|check2] [--only NAME ...]
        [--limit N] [--retry] [--json bench/results/coding-NAME.json] [--masked] [--log DIR] [--cold]

Each repository of the set (bench/coding/dev.py and dev2.py: read and tuned on; bench/coding/check2.py:
only checked, run it ``--masked``, which prints the summary alone) is written to a fresh folder as a git
repository (bench/coding/make.py) and gets a fresh ``NANOBOT_HOME`` whose config.toml allows the
repository's test command (``tools.exec_allow``), makes the repository a root, and turns the observer
off. The disk KV cache is on, as a user's is, and every home shares one cache folder, made ready once
before the first repository as an install makes it (``housekeep.prewarm_next``: the judgements' examples
and calibrations on disk), so no step pays for what a user's first chat does not; each chat's own
housekeeping is waited for before the next repository starts. ``--cold``: the disk KV cache off, nothing
made ready (each repository's first steps evaluate the judgements' examples and calibrations while timed).
One ``nanobot chat -v`` runs in the repository;
its steps are written to it one at a time, each after the previous turn's figures line. After each
step the scorer checks the disk (bench/coding/spec.py):

- right: the step's checks hold -- the code parses, the definitions it asks for are there, a renamed
  name is gone, the test it asks for uses the name, its code runs, the tests pass (the scorer runs
  the repository's test command itself), the test command ran in the step where it asks for a run --
  with no definition destroyed and no file the user said to leave alone changed;
- destroyed: definitions (Python's by ``ast``; a JavaScript or shell function by its line) gone from a
  file, that the step did not ask to remove;
- left alone: files the user said to leave alone that changed;
- ran: a step asking for a run in which an ``exec`` of a test runner was shown (the chat's own output), or the
  transcript holds a run's counts;
- seconds: the turn's own total from the ``-v`` line, and the wall time from the message to that line.

``--retry``: a step that is not right is sent once more, and scored again (``right_retry``).
Each repository's chat imports nanobot from this checkout when it starts: to edit code while a run goes
on, run it from a snapshot (``git worktree add /tmp/run HEAD``, then this script from there).
Scores are counts (also by step kind, and the missed steps' failed checks by reason, names left
out, so a check-only run shows where it misses without showing a turn); the median of the turns' seconds.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "coding"))

from make import make, repos  # noqa: E402

from nanobot.tools.testcommand import command_of, is_runner  # noqa: E402
from nanobot.tools.testcounts import counts  # noqa: E402

FIGURES = re.compile(r"^\[prompt .*?total ([\d.]+)s")
STAGES = re.compile(r"(\w+) \d+ ([\d.]+)s")  # "stream 2 9.80s" in the figures line's evaluations
SET_UP = re.compile(r"set-up ([\d.]+)s")  # a calibration the turn waited for
STEP_TIMEOUT = 900.0  # a step that takes longer is scored as it is and the chat is stopped
_JS_DEFS = re.compile(r"^\s*(?:async\s+)?function\s+(\w+)|^\s*(?:const|let|var)\s+(\w+)\s*=\s*(?:\(|function|async)"
                      r"|^\s*test\(\s*[\"'`]([^\"'`]+)", re.M)
_SH_DEFS = re.compile(r"^\s*(?:function\s+)?(\w+)\s*\(\)\s*\{", re.M)
_PY_DEFS = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


def config(home: Path, repo_dir: Path, allow: list[str], cache: Path | None = None) -> None:
    """``home``'s config.toml; ``cache``: the shared cache folder (the disk KV cache on), None: off."""
    home.mkdir(parents=True, exist_ok=True)
    if cache is not None:
        (home / "cache").symlink_to(cache, target_is_directory=True)
    (home / "config.toml").write_text(
        f"[chat]\ntemperature = 0\n\n[observer]\nenabled = false\n\n[kv_cache]\nenabled = {str(cache is not None).lower()}\n\n"
        f"[tools]\nexec_allow = {json.dumps(allow)}\nroots = [{json.dumps(str(repo_dir))}]\nexec_timeout = 120\n")


def snapshot(path: Path) -> dict[str, str]:
    return {str(p.relative_to(path)): p.read_text(errors="replace") for p in sorted(path.rglob("*"))
            if p.is_file() and not {".git", "node_modules", "__pycache__", ".pytest_cache"} & set(p.relative_to(path).parts)}


def definitions(name: str, text: str) -> list[str]:
    """The names ``text`` (the file ``name``) defines: Python's by ``ast`` (its lines where it does not
    parse), a JavaScript file's functions and tests, a shell script's functions."""
    if name.endswith(".py"):
        try:
            return [n.name for n in ast.walk(ast.parse(text))
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        except SyntaxError:
            return _PY_DEFS.findall(text)
    if name.endswith(".js"):
        return [next(g for g in m if g) for m in _JS_DEFS.findall(text)]
    return _SH_DEFS.findall(text) if name.endswith(".sh") else []


def _tested(name: str, text: str, used: str) -> bool:
    """Whether a test in ``text`` uses ``used``: a ``test_*`` function of a Python file, a ``test(...)``
    block of a JavaScript one, a line of a shell test."""
    if name.endswith(".py"):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return False
        return any(isinstance(f, ast.FunctionDef) and f.name.startswith("test") and any(
            getattr(n, "id", getattr(n, "attr", None)) == used for n in ast.walk(f)) for f in ast.walk(tree))
    blocks = re.split(r"^\s*test\(", text, flags=re.M)[1:] if name.endswith(".js") else [text]
    return any(re.search(rf"\b{re.escape(used)}\b", b) for b in blocks)


def _run(command: str | list[str], cwd: Path, env: dict) -> bool:
    try:
        return subprocess.run(command, shell=isinstance(command, str), cwd=cwd, env=env, capture_output=True,
                              timeout=120).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _ran_tests(home: Path, since: int, shown: list[str]) -> bool:
    """Whether the step ran a test runner: a call the chat showed (``→ exec {...}``, in ``shown``, the
    step's output lines) or, from record ``since`` on, a result of the session's transcript that
    gives a run's counts."""
    for line in shown:
        if line.startswith("→ exec {"):
            try:
                args = ast.literal_eval(line.removeprefix("→ exec ").strip())
            except (ValueError, SyntaxError):
                continue
            if isinstance(args, dict) and is_runner(command_of(args)):
                return True
    for rec in _records(home)[since:]:
        meta = rec.get("meta", {})
        if rec.get("role") == "tool" and meta.get("name") == "exec" and meta.get("kind") == "result" and counts(
                rec.get("content", "")) is not None:
            return True
    return False


def _records(home: Path) -> list[dict]:
    files = sorted((home / "sessions").glob("*.jsonl"))
    if not files:
        return []
    return [json.loads(line) for line in files[-1].read_text().splitlines() if line.strip()]


def check(step, repo, before: dict[str, str], after: dict[str, str], path: Path, env: dict,
          ran: bool) -> tuple[list[str], list[str], list[str]]:
    """(the failed checks, the destroyed definitions, the left-alone files changed) of a step."""
    failed = [f"{n} does not parse" for n, t in after.items() if n.endswith(".py") and _parses(t) is False]
    destroyed = [f"{n}: {d}" for n, text in before.items() for d in sorted(
        set(definitions(n, text)) - set(definitions(n, after.get(n, ""))) - set(step.removes))]
    left = [n for n in step.leave if before.get(n) != after.get(n)]
    for n, names in step.defines.items():
        failed += [f"{n} lacks {d}" for d in names if d not in definitions(n, after.get(n, ""))]
    for n, names in step.absent.items():
        failed += [f"{n} still has {d}" for d in names if re.search(rf"\b{re.escape(d)}\b", after.get(n, ""))]
    for n, used in step.tested.items():
        failed += [] if _tested(n, after.get(n, ""), used) else [f"no test of {used} in {n}"]
    if step.expr:
        cmd = {"js": ["node", "-e", step.expr], "shell": ["bash", "-c", step.expr]}.get(
            repo.lang, [sys.executable, "-c", step.expr])
        failed += [] if _run(cmd, path, env) else ["its code does not run as asked"]
    if step.tests_pass and not _run(repo.test, path, env):
        failed.append("the tests fail")
    if step.run and not ran:
        failed.append("the tests did not run")
    return failed + [f"destroyed {d}" for d in destroyed] + [f"changed {n}" for n in left], destroyed, left


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


class Chat:
    """One ``nanobot chat -v`` in a repository: a message in, wait for the turn's figures line."""

    def __init__(self, model: str, home: Path, cwd: Path, env: dict):
        self.proc = subprocess.Popen([sys.executable, "-m", "nanobot", "chat", "-v", "--model", model], cwd=cwd,
                                     env=env | {"NANOBOT_HOME": str(home)}, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stderr, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stdout, False), daemon=True).start()

    def _read(self, stream, figures: bool) -> None:
        for line in stream:
            self.out.append(line)  # both streams, in the order they came (``--log``)
            if figures:
                self.lines.put(line)
        if figures:
            self.lines.put(None)

    def say(self, text: str) -> tuple[float | None, float]:
        """(the turn's own total seconds, the wall seconds) of one message; (None, wall) where the chat
        ended or the step ran past ``STEP_TIMEOUT``. ``stages``: the seconds inside each model method."""
        self.stages: dict[str, float] = {}
        t0 = time.perf_counter()
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        while (left := STEP_TIMEOUT - (time.perf_counter() - t0)) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            if m := FIGURES.match(line):
                self.stages = {k: float(v) for k, v in STAGES.findall(line.partition("evaluations")[2])}
                if set_up := SET_UP.search(line):
                    self.stages["set_up"] = float(set_up.group(1))
                return float(m.group(1)), time.perf_counter() - t0
        return None, time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


WARM = ("import sys; from nanobot.config import load_settings; from nanobot.runtime import load_model; "
        "from nanobot.housekeeping.housekeep import prewarm_next; s = load_settings(); "
        "prewarm_next(s, load_model(s, sys.argv[1]), 'local', print)")


def ready(model: str, cache: Path) -> None:
    """Make the shared cache ready as an install does (the judgements' examples and calibrations)."""
    tmp = Path(tempfile.mkdtemp(prefix="coding-warm-"))
    config(tmp / "home", tmp, [], cache)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")} | {
        "NANOBOT_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", WARM, model], cwd=tmp, env=env, check=True, timeout=900)
    shutil.rmtree(tmp, ignore_errors=True)


def housekept(timeout: float = 600.0) -> None:
    """Wait while a chat's housekeeping runs (it would share the cores with the next repository's steps)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and subprocess.run(["pgrep", "-f", "nanobot housekeep"],
                                                     capture_output=True).returncode == 0:
        time.sleep(2)


def run_repo(repo, model: str, retry: bool, log: Path | None = None, cache: Path | None = None) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix=f"coding-{repo.name}-"))
    path, home = make(repo, tmp / repo.name), tmp / "home"
    config(home, path, repo.allow, cache)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", "PYTHONPATH": str(ROOT)}
    chat, rows = Chat(model, home, path, env), []
    try:
        for i, step in enumerate(repo.steps):
            row = {"repo": repo.name, "step": i + 1, "kind": step.kind}
            for attempt in range(2 if retry else 1):
                before, since, lines = snapshot(path), len(_records(home)), len(chat.out)
                turn_s, wall_s = chat.say(step.say)
                failed, destroyed, left = check(step, repo, before, snapshot(path), path, env,
                                                _ran_tests(home, since, chat.out[lines:]) if step.run else False)
                key = "" if attempt == 0 else "_retry"
                row |= {f"right{key}": not failed, f"failed{key}": failed, f"turn_s{key}": turn_s,
                        f"wall_s{key}": round(wall_s, 2), f"stage_s{key}": chat.stages}
                row["destroyed"] = row.get("destroyed", []) + destroyed
                row["left_alone_changed"] = row.get("left_alone_changed", []) + left
                if step.run:
                    row["ran"] = row.get("ran", False) or "the tests did not run" not in failed
                if not failed or turn_s is None:
                    break
            rows.append(row)
            if turn_s is None:  # the chat ended or hung: the remaining steps cannot run
                rows += [{"repo": repo.name, "step": j + 1, "kind": s.kind, "right": False, "failed": ["not run"],
                          "destroyed": [], "left_alone_changed": [], "turn_s": None, "wall_s": 0.0}
                         | ({"ran": False} if s.run else {}) for j, s in enumerate(repo.steps[i + 1:], i + 1)]
                break
    finally:
        chat.close()
        housekept()
        if log is not None:  # the chat's own output, to read why a step went wrong (development set only)
            log.mkdir(parents=True, exist_ok=True)
            (log / f"{repo.name}.log").write_text("".join(chat.out))
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def summary(rows: list[dict], model: str, name: str, seconds: float) -> dict:
    runs = [r for r in rows if "ran" in r]
    turns = [r["turn_s"] for r in rows if r.get("turn_s") is not None]
    right = sum(r["right"] for r in rows)
    either = sum(r["right"] or r.get("right_retry", False) for r in rows)
    return {"model": model, "set": name, "repos": len({r["repo"] for r in rows}), "steps": len(rows),
            "right": right, "right_pct": round(100 * right / max(len(rows), 1), 1), "right_or_retry": either,
            "right_or_retry_pct": round(100 * either / max(len(rows), 1), 1),
            "destroyed": sum(len(r["destroyed"]) for r in rows),
            "left_alone_changed": sum(len(r["left_alone_changed"]) for r in rows),
            "runs_asked": len(runs), "runs_ran": sum(r["ran"] for r in runs),
            "median_turn_s": round(statistics.median(turns), 2) if turns else None,
            "stage_s_per_step": {k: round(sum(r.get("stage_s", {}).get(k, 0.0) for r in rows) / max(len(turns), 1), 2)
                                 for k in sorted({k for r in rows for k in r.get("stage_s", {})})},
            "by_kind": {k: [sum(r["right"] or r.get("right_retry", False) for r in rows if r["kind"] == k),
                            sum(r["kind"] == k for r in rows)] for k in sorted({r["kind"] for r in rows})},
            "misses": dict(sorted(Counter(_reason(f) for r in rows if not (r["right"] or r.get("right_retry", False))
                                          for f in r.get("failed_retry", r["failed"])).items())),
            "wall_s": round(seconds, 1), "cpus": os.cpu_count()}


def _reason(failed: str) -> str:
    """A failed check without the names in it: what a check-only set's summary may show."""
    return next((k for k in REASONS if k in failed), "other")


REASONS = ["does not parse", "lacks", "still has", "no test of", "does not run as asked", "the tests fail",
           "did not run", "destroyed", "changed", "not run"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="a model name (nanobot models) or a .gguf path")
    ap.add_argument("--set", default="dev", choices=["dev", "dev2", "check2"])
    ap.add_argument("--only", nargs="+", help="repositories by name")
    ap.add_argument("--limit", type=int, help="the first N repositories")
    ap.add_argument("--retry", action="store_true", help="send a step that is not right once more")
    ap.add_argument("--masked", action="store_true", help="print and keep the summary only (the check-only set)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--log", type=Path, help="a folder for each repository's chat output (not with --masked)")
    ap.add_argument("--cold", action="store_true", help="the disk KV cache off and nothing made ready")
    a = ap.parse_args()
    chosen = [r for r in repos(a.set) if not a.only or r.name in a.only][:a.limit]
    cache = None if a.cold else Path(tempfile.mkdtemp(prefix="coding-cache-"))
    if cache is not None:
        ready(a.model, cache)
    t0, rows = time.perf_counter(), []
    for repo in chosen:
        for row in run_repo(repo, a.model, a.retry, None if a.masked else a.log, cache):
            rows.append(row)
            if not a.masked:
                print(json.dumps(row), flush=True)
    out = summary(rows, Path(a.model).stem, a.set, time.perf_counter() - t0) | {"cache": "cold" if a.cold else "ready"}
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    print(json.dumps(out), flush=True)
    if a.json:
        a.json.write_text(json.dumps({"summary": out, **({} if a.masked else {"steps": rows})}, indent=1) + "\n")


if __name__ == "__main__":
    main()
