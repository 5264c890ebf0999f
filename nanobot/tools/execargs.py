"""What an allow-listed command's arguments may name: paths that resolve inside the roots.

An ``exec_allow`` entry names a program (``head``, ``python3 -m pytest``); the words after it are the
model's. ``expand`` turns the command line into the argv the shell would make -- ``/bin/sh`` prints its
words, and with ``$``, backquotes, ``; & | < >`` and newlines refused before (``shell.allowed``) that
expansion runs nothing: globs, ``~`` and quotes only -- and the command then runs as exactly that argv,
without a shell, so what was checked is what runs. ``outside`` resolves each argument after the entry as
a path against the working directory (``~`` expanded, symlinks followed), and also the value of an
option written ``--opt=VALUE`` or ``-oVALUE``, whatever follows an ``=`` (``if=/dev/zero``), the file
of an ``@file`` argument and the path of a ``file:`` URL: each must land inside the workspace or a
root, and never under ``/proc``, ``/dev`` or ``/sys`` (kernel files, whatever the roots). A word that is
not a path resolves inside the working directory and passes; ``/etc/passwd``, ``~/.ssh/id_rsa``,
``../..`` from a root, ``/proc/self/environ`` and a link in the workspace to ``/root`` do not.

>>> outside(["head", "-n", "3", "notes.txt"], "/w", ["/w"], 1) is None
True
>>> outside(["head", "-c/etc/passwd"], "/w", ["/w"], 1)
"argument '-c/etc/passwd' names /etc/passwd, outside the workspace and roots"
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

MAX_WORDS = 4096
KERNEL = (Path("/proc"), Path("/dev"), Path("/sys"))


def entry_words(words: list[str], allow: list[str]) -> int:
    """How many leading words of ``words`` the longest matching allow-list entry spells (0: none)."""
    lengths = [len(e.split()) for e in allow if e.strip() and words[: len(e.split())] == e.split()]
    return max(lengths, default=0)


def expand(command: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """The argv ``/bin/sh`` makes of ``command`` (ValueError with the shell's one line when it cannot)."""
    try:
        proc = subprocess.run(["/bin/sh", "-c", "printf '%s\\0' " + command], cwd=cwd, env=env,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=5)
    except subprocess.TimeoutExpired:
        raise ValueError("the shell took over 5 s to expand its words") from None
    if proc.returncode != 0:
        said = os.fsdecode(proc.stderr).strip().splitlines() or [f"exit {proc.returncode}"]
        raise ValueError(f"the shell cannot read it ({said[-1]})")
    argv = [os.fsdecode(w) for w in proc.stdout.split(b"\0")[:-1]]
    if len(argv) > MAX_WORDS:
        raise ValueError(f"it expands to {len(argv)} words (at most {MAX_WORDS})")
    return argv


def _pieces(word: str) -> list[str]:
    """The parts of ``word`` a program may take as a path: itself, what follows each ``=``, the value
    glued to a short option (``-c/etc/x.ini``), an ``@file`` of arguments, the path of a ``file:`` URL."""
    parts = [word, *word.split("=")[1:]]
    if len(word) > 2 and word[0] == "-" and word[1] != "-":
        parts.append(word[2:])
    if word.startswith("@"):  # a file of more arguments (pytest, argparse, compilers)
        parts.append(word[1:])
    return parts + [p[5:] for p in parts if p.startswith("file:")]


def inside(path: Path, roots: list[Path]) -> bool:
    """Whether ``path`` (resolved) is in a root and not in a kernel file system."""
    if any(path == k or k in path.parents for k in KERNEL):
        return False
    return any(path == r or r in path.parents for r in roots)


def outside(argv: list[str], cwd, roots, start: int) -> str | None:
    """Why an argument of ``argv`` from ``start`` on reaches outside ``roots``, or None."""
    resolved = [Path(r).resolve() for r in roots]
    for word in argv[start:]:
        for piece in _pieces(word):
            try:
                real = Path(cwd, os.path.expanduser(piece)).resolve()
            except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL
                return f"argument '{word}' cannot be resolved as a path"
            if not inside(real, resolved):
                said = "is" if word == str(real) else f"names {real},"
                return f"argument '{word}' {said} outside the workspace and roots"
    return None
