"""Running one ``exec`` command: its own session, bounded output read as it streams, a real timeout.

The child starts in a session of its own (``start_new_session``), so its whole process group dies with
one ``os.killpg``. Its output (stdout and stderr together) is read as it arrives: the first ``HEAD``
bytes and the last ``TAIL`` are kept, the bytes between are counted and dropped, so
``head -c 300000000 /dev/zero`` costs kilobytes, not a gigabyte, and the text says
"... N bytes dropped ...". The call ends when the child exits (output already written is read for
``GRACE`` seconds; a process it left behind that still holds the output is killed with the group, and
one that left the group -- ``setsid`` -- no longer holds the call), or at the deadline, when the group
is killed and the output is not waited for. ``timed_out`` is true only when the deadline passed
before the child exited.

>>> ran = run(["printf", "hi"], ".", 5, clean_env())
>>> ran.code, ran.text, ran.timed_out
(0, 'hi', False)
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass

HEAD, TAIL, CHUNK, GRACE, POLL = 15_000, 4_000, 65_536, 0.2, 0.05
# what an allow-listed command sees of nanobot's environment: where programs are, whose home, which
# language and terminal -- no tokens, keys or proxies (so /proc/self/environ shows none)
KEPT_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR",
            "VIRTUAL_ENV")


def clean_env() -> dict[str, str]:
    """``KEPT_ENV`` and the ``LC_*`` locale of nanobot's environment, nothing else."""
    return {k: v for k, v in os.environ.items() if k in KEPT_ENV or k.startswith("LC_")}


@dataclass
class Ran:
    code: int
    text: str
    timed_out: bool
    dropped: int  # bytes of output counted but not kept


class _Kept:
    """The first ``HEAD`` and last ``TAIL`` bytes of a stream, and how many it had."""

    def __init__(self) -> None:
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = HEAD - len(self.head)
        self.head += data[:max(room, 0)]
        rest = data[max(room, 0):]
        self.tail = bytearray(rest[-TAIL:]) if len(rest) >= TAIL else (self.tail + rest)[-TAIL:]

    def text(self) -> tuple[str, int]:
        dropped = self.total - len(self.head) - len(self.tail)
        cut = f"\n... {dropped} bytes dropped ...\n" if dropped else ""
        return self.head.decode("utf-8", "replace") + cut + self.tail.decode("utf-8", "replace"), dropped


def _exited(proc: subprocess.Popen) -> bool:
    """Whether ``proc`` has exited, without reaping it where the system can (the zombie keeps its
    process group's id from being reused before ``killpg``; macOS before Python 3.13 reaps)."""
    if not hasattr(os, "waitid"):
        return proc.poll() is not None
    return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


class _Output:
    """The child's output pipe and (where the system has one) a descriptor readable when it exits."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc, self.fd, self.sel, self.eof = proc, proc.stdout.fileno(), selectors.DefaultSelector(), False
        self.sel.register(self.fd, selectors.EVENT_READ)
        try:
            self.pidfd = os.pidfd_open(proc.pid)  # no polling for the exit
            self.sel.register(self.pidfd, selectors.EVENT_READ)
        except (AttributeError, OSError):
            self.pidfd = None

    def pump(self, kept: _Kept, deadline: float) -> bool:
        """Read into ``kept`` until the child has exited and the output is closed (or ``GRACE`` later);
        True when ``deadline`` came first."""
        exited = None
        while True:
            now = time.monotonic()
            if exited is None and _exited(self.proc):
                exited = now
                if self.pidfd is not None:
                    self.sel.unregister(self.pidfd)
            if exited is not None and (self.eof or now >= exited + GRACE):
                return False
            if exited is None and now >= deadline:
                return True
            wait = (exited + GRACE if exited is not None else deadline) - now
            wait = wait if self.pidfd is not None or exited is not None else min(wait, POLL)
            for key, _ in (self.sel.select(wait) if self.sel.get_map() else time.sleep(wait) or []):
                if key.fd == self.fd:
                    data = os.read(self.fd, CHUNK)
                    kept.add(data)
                    if not data:
                        self.eof = True
                        self.sel.unregister(self.fd)

    def close(self) -> None:
        self.sel.close()
        self.proc.stdout.close()
        if self.pidfd is not None:
            os.close(self.pidfd)


def run(argv: list[str], cwd, timeout: float, env: dict[str, str]) -> Ran:
    """Run ``argv`` in ``cwd`` for at most ``timeout`` seconds (see the module docstring)."""
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    except OSError as e:  # no such program, not executable
        return Ran(127, f"{argv[0]}: {e.strerror}", False, 0)
    kept, out, timed_out = _Kept(), _Output(proc), False
    try:
        timed_out = out.pump(kept, time.monotonic() + timeout)
    finally:
        if timed_out or not out.eof:  # out of time, or the group still holds the output
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        out.close()
        try:
            code = proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = -signal.SIGKILL
    text, dropped = kept.text()
    return Ran(code, text, timed_out, dropped)
