"""A closed terminal (SIGHUP) or SIGTERM ends the chat like /quit: observation written (by the
detached housekeeping child, which the signal does not reach), transcript closed with the reason,
exit 0 within a bound (real signals, real CLI, real model)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.observer.observer import load_observation
from tests.conftest import ROOT, cli_env, wait_reading_stdin
from tests.housekeeping import wait_housekept

FAST = {"NANOBOT_CHAT__MAX_TOKENS": "24", "NANOBOT_OBSERVER__REFLECT_ON_START": "false",
        "NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_TOOLS__ENABLED": "[]", "PYTHONUNBUFFERED": "1"}
BOUND_S = 60  # signals.HARD_S is 40: the process must be gone by then whatever the observer does


def wait_for_reply(home, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = list_transcripts(home / "sessions")
        if files and any(r.role == "assistant" for r in read_transcript(files[0])[0]):
            return
        time.sleep(0.2)
    raise AssertionError("no reply recorded")


@pytest.mark.parametrize("sig,reason", [(signal.SIGTERM, "terminate"), (signal.SIGHUP, "hangup")])
def test_signal_ends_session_like_quit(home, sig, reason):
    env = cli_env(home, FAST)
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "chat"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        proc.stdin.write("I am Ada and I write a CSV parser in Rust.\n")
        proc.stdin.flush()  # stdin stays open: the chat waits for the next line
        wait_for_reply(home)
        wait_reading_stdin(proc.pid)  # the reply is over: the signal ends the session, not the reply
        sent = time.monotonic()
        proc.send_signal(sig)
        try:  # waited for longer than the bound, so that a slow exit fails the bound below
            _, err = proc.communicate(timeout=2 * BOUND_S)
        except subprocess.TimeoutExpired:
            err = "(still running)"
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert took < BOUND_S, f"exit took {took:.1f}s after the signal: {err}"
    assert proc.returncode == 0, err
    records, _ = read_transcript(list_transcripts(home / "sessions")[0])
    assert records[-1].content == "session end" and records[-1].meta["reason"] == reason
    wait_housekept(home)  # the observation is written by the detached housekeeping child
    files = sorted((home / "workspace" / "observations").glob("*.md"))
    assert len(files) == 1, err
    part = load_observation(files[0]).parts[-1]
    assert part.trigger == reason and part.turns == 1 and part.summary


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_closing_the_terminal_leaves_an_observation(home):
    """The interactive chat (prompt_toolkit waiting at "You: ") when its terminal goes away."""
    import pexpect

    env = cli_env(home, FAST | {"TERM": "xterm"})
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "chat"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=120, dimensions=(30, 100))
    child.expect("You: ")
    child.sendline("I am Ada and I write a CSV parser in Rust.")
    child.expect("Nano:")
    child.expect("You: ")  # back at the prompt
    wait_for_reply(home)
    os.close(child.child_fd)  # the terminal window closes: the kernel sends SIGHUP
    deadline = time.monotonic() + BOUND_S
    status = None
    while time.monotonic() < deadline and status is None:
        pid, st = os.waitpid(child.pid, os.WNOHANG)
        status = st if pid else None
        time.sleep(0.2)
    assert status is not None, "the chat outlived its terminal"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    records, _ = read_transcript(list_transcripts(home / "sessions")[0])
    assert records[-1].content == "session end" and records[-1].meta["reason"] == "hangup"
    wait_housekept(home)
    files = sorted((home / "workspace" / "observations").glob("*.md"))
    assert len(files) == 1
    assert load_observation(files[0]).parts[-1].trigger == "hangup"


def test_soft_bound_cuts_a_slow_observer_model_to_the_fallback_draft():
    """A model still drafting at the soft bound is interrupted; the extractive draft is used."""
    import signal as sig

    from nanobot.cli.signals import watchdog
    from nanobot.observer.observer import draft_or_fallback

    class Slow:  # a model far too slow to finish: one token every 0.05 s, forever
        def stream(self, messages, **kw):
            while True:
                time.sleep(0.05)
                yield "{"

    closed = []
    old = sig.getsignal(sig.SIGALRM)
    start = time.monotonic()
    cancel = watchdog(lambda: closed.append(1), soft_s=0.5, hard_s=300)
    try:
        draft, gen = draft_or_fallback(Slow(), lambda: [], [("user", "I write a CSV parser.")], 64)
    finally:
        cancel(hard=True)
        sig.signal(sig.SIGALRM, old)
    took = time.monotonic() - start
    assert gen == "fallback" and "CSV parser" in draft.summary
    assert took < 5.0 and not closed  # 0.5 s bound, 10x headroom; the hard bound never fired


def test_a_draft_is_bounded_in_time_and_closed_as_far_as_it_got():
    """``observer.draft_seconds``: a model still writing at the bound stops there; what it wrote is
    closed and kept (no watchdog, no fallback needed)."""
    from nanobot.observer.observer import generate_draft

    class Steady:  # a model writing a valid draft slowly, then (were it not stopped) forever
        def stream(self, messages, **kw):
            yield from ['{"focus": {"text": "CSV parser", "quote": "I write a CSV parser."}, ', '"task": {"text": "']
            while True:
                time.sleep(0.05)
                yield "more "

    start = time.monotonic()
    draft = generate_draft(Steady(), [], 64, seconds=0.3)
    assert time.monotonic() - start < 3.0
    assert draft is not None and draft.focus.text == "CSV parser"
