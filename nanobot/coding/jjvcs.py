"""The jj backend, written against jj's documented CLI (``jj log -T``, ``jj new -m``,
``jj describe -m``, ``jj diff --git``): jj's own change ids, its working-copy change as the current
change, its snapshot at the start of every command as the checkpoint's fold.

Every call is ``jj --no-pager --color=never --config ... -R ROOT``: no pager, no fsmonitor, no
external diff tool from the repository's ``.jj/repo/config.toml`` (command-line config wins).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nanobot.coding.errors import CodingError

SAFE_CONFIG = ('ui.paginate="never"', 'fsmonitor.backend="none"', 'ui.diff-formatter=":git"',
               'snapshot.auto-track="all()"')
ID = 'change_id ++ "\\n"'


def jj_cmd(root: Path, *args: str) -> list[str]:
    opts = [f"--config={c}" for c in SAFE_CONFIG]
    return ["jj", "--no-pager", "--color=never", *opts, "-R", str(root), *args]


class JjVCS:
    kind = "jj"

    def __init__(self, root: Path):
        self.root = Path(root)

    @staticmethod
    def find_root(path: Path) -> Path | None:
        try:
            out = subprocess.run(["jj", "--no-pager", "--ignore-working-copy", "root"], cwd=path,
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None

    def _run(self, *args: str, check: bool = True) -> str:
        try:
            out = subprocess.run(jj_cmd(self.root, *args), capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise CodingError(f"jj {args[0]} in {self.root} took over 60 s") from None
        if check and out.returncode != 0:
            first = (out.stderr.strip() or "failed").splitlines()[0]
            raise CodingError(f"jj {args[0]} failed in {self.root}: {first}")
        return out.stdout if out.returncode == 0 else ""

    def _one(self, revset: str) -> str | None:
        lines = self._run("log", "-r", revset, "--no-graph", "-T", ID, check=False).split()
        return lines[0] if lines else None

    def start(self, description: str) -> str:
        self._run("new", "-m", description)
        return self.current() or ""

    def current(self) -> str | None:
        return self._one("@")

    def new_change(self, description: str) -> str:
        return self.start(description)  # jj snapshots the working copy into @ first

    def describe(self, description: str, change_id: str | None = None) -> None:
        self._run("describe", change_id or "@", "-m", description)

    def description(self, change_id: str) -> str:
        return self._run("log", "-r", change_id, "--no-graph", "-T", "description").rstrip()

    def parent(self, change_id: str) -> str | None:
        return self._one(f"({change_id})- ~ root()")

    def exists(self, change_id: str) -> bool:
        return self._one(f"present({change_id})") is not None

    def is_ancestor(self, ancestor: str, change_id: str) -> bool:
        return self._one(f"present({ancestor}) & ::present({change_id})") is not None

    def diff(self, change_id: str, stat: bool = False) -> str:
        return self._run("diff", "-r", change_id, "--stat" if stat else "--git")

    def dirty(self) -> list[str]:
        return []  # jj snapshots the working copy into @: nothing is ever outside a change
