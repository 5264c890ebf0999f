"""What a checkpoint verifies before it commits the working copy: every changed Python file still
parses (``nanobot.base.pysyntax``), and the project's tests pass when ``[coding] test_command`` is set.

``check_working_copy(vcs, settings)`` returns None when the change may be committed, else one line
naming the file and line (or the failing test command and its last output line). A checkpoint that
gets a line back refuses (``CodingSession.checkpoint``), unless the user passes ``--allow-broken``.

For example: ``'greet.py line 3: IndentationError: unexpected indent'``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nanobot.base.pysyntax import is_python, syntax_error
from nanobot.base.regular import read_regular


def changed_python(vcs) -> list[Path]:
    """The working copy's changed Python files that exist (deleted ones have nothing to check);
    a name that is not UTF-8 is the real file too (``vcs.dirty`` keeps its bytes)."""
    return [vcs.root / rel for rel in vcs.dirty() if is_python(rel) and (vcs.root / rel).is_file()]


def shown(name: str) -> str:
    """A file name for a message: bytes that are not UTF-8 become U+FFFD (printable anywhere)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def check_working_copy(vcs, settings) -> str | None:
    for path in changed_python(vcs):
        try:
            text = read_regular(path).decode("utf-8", errors="replace")
        except OSError as e:
            return f"{shown(str(path.relative_to(vcs.root)))}: cannot read it ({e.strerror})"
        err = syntax_error(text, shown(str(path.relative_to(vcs.root))))
        if err:
            return err
    cmd = settings.coding.test_command.strip()
    return run_tests(cmd, vcs.root, settings.coding.test_timeout) if cmd else None


def run_tests(cmd: str, cwd: Path, timeout: float) -> str | None:
    """None when ``cmd`` exits 0 in ``cwd``; else a line with its exit status and last output line."""
    try:
        proc = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True,
                              errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"tests did not finish: `{cmd}` ran past {timeout:g} s (coding.test_timeout)"
    if proc.returncode == 0:
        return None
    tail = next((ln.strip() for ln in reversed((proc.stdout + proc.stderr).splitlines()) if ln.strip()), "")
    return f"tests failed: `{cmd}` exited {proc.returncode}" + (f" ({tail[:160]})" if tail else "")
