"""Whether a shell script still parses: ``bash -n``, which reads the script and runs none of it.

An edit of a ``.sh``/``.bash`` file is checked as a Python one is (``base/pysyntax.py``): the 1.5B, asked
again to add ``repeat_char``, replaced the name in ``repeat_char() {`` with ``repeat_char $1 $2``, and
the script no longer parsed. ``shell_error(text, name)`` is None for a script bash parses (or where bash
is not there to ask), else one line naming the file and bash's error:

>>> shell_error("f() {\\n  echo hi\\n}\\n", "lib.sh") is None
True
>>> shell_error("f $1() {\\n  echo hi\\n}\\n", "lib.sh")
"lib.sh: bash -n: line 1: syntax error near unexpected token `('"
"""

from __future__ import annotations

import shutil
import subprocess

SECONDS = 5  # bash -n of a long script takes milliseconds


def is_shell(name: str) -> bool:
    return str(name).endswith((".sh", ".bash"))


def shell_error(text: str, name: str) -> str | None:
    """None when bash parses ``text`` (or cannot be asked); else "NAME: bash -n: line N: error"."""
    bash = shutil.which("bash")
    if bash is None or "\0" in text:
        return None
    try:
        run = subprocess.run([bash, "-n"], input=text, capture_output=True, text=True, timeout=SECONDS,
                             env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode == 0:
        return None
    first = next((ln for ln in run.stderr.splitlines() if "syntax error" in ln), run.stderr.strip().splitlines()[0] if run.stderr.strip() else "")
    return f"{name}: bash -n: {first.split(': ', 1)[-1]}" if first else f"{name}: bash -n: exit {run.returncode}"
