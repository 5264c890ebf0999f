"""The git backend: jj's working-copy change modelled with commits and a ``Change-Id:`` trailer.

The session's current change is ``HEAD``, a commit carrying ``Change-Id: I...``; a checkpoint folds
the working tree into it (``git add -A`` then ``commit --amend``: everything not ignored, like jj's
snapshot) and commits a new empty change on top; describe rewrites only HEAD's message. A change is
found by its trailer among the commits reachable from any ref (what jj calls visible), so amend,
rebase and squash keep it. Every command goes through ``nanobot.base.gitsafe`` (no repository fsmonitor,
hooks, pager, signing or filter/diff drivers) and passes ``--no-ext-diff --no-textconv`` to diffs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from nanobot.base.gitrepo import UnsafeRepository
from nanobot.base.gitsafe import run_git
from nanobot.coding.changeid import ids_in, new_id, with_trailer, without_trailer
from nanobot.coding.errors import CodingError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
DIFF = ("--no-ext-diff", "--no-textconv", "--no-color")


class GitVCS:
    kind = "git"

    def __init__(self, root: Path):
        self.root = Path(root)

    @staticmethod
    def find_root(path: Path) -> Path | None:
        out = _git(path, "rev-parse", "--show-toplevel")
        return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None

    # -- plumbing ------------------------------------------------------------------------------
    def _run(self, *args: str, input: str | None = None, env: dict | None = None,
             check: bool = True) -> str:
        out = _git(self.root, *args, input=input, env=env)
        if check and out.returncode != 0:
            first = (out.stderr.strip() or out.stdout.strip()).splitlines()[:1] or ["failed"]
            hint = ("; set an identity with git config user.name/user.email"
                    if "tell me who you are" in out.stderr.lower() or "user.email" in out.stderr else "")
            raise CodingError(f"git {args[0]} failed in {self.root}: {first[0]}{hint}")
        return out.stdout

    def _message(self, rev: str) -> str:
        return self._run("log", "-1", "--format=%B", rev, "--")

    def _head(self) -> str | None:
        out = self._run("rev-parse", "--verify", "-q", "HEAD", check=False).strip()
        return out or None

    def commit_of(self, change_id: str) -> str | None:
        """The newest visible commit whose message carries ``Change-Id: change_id``."""
        out = self._run("log", "--all", "-F", f"--grep=Change-Id: {change_id}", "--format=%H%x00%B%x01",
                        check=False)
        for chunk in out.split("\x01"):
            sha, _, msg = chunk.strip("\n").partition("\x00")
            if sha and change_id in ids_in(msg):
                return sha
        return None

    def _need(self, change_id: str) -> str:
        sha = self.commit_of(change_id)
        if sha is None:
            raise CodingError(f"change {change_id} is not in {self.root} any more (abandoned, or "
                              "rewritten without its Change-Id trailer)")
        return sha

    # -- the interface -------------------------------------------------------------------------
    def start(self, description: str) -> str:
        if self._run("symbolic-ref", "-q", "HEAD", check=False).strip() == "":
            raise CodingError(f"HEAD is detached in {self.root}; the session's changes would be "
                              "unreachable: check out a branch first (git switch -c NAME)")
        change = new_id()
        self._run("commit", "-q", "--allow-empty", "--no-verify", "--cleanup=whitespace", "--only",
                  "-F", "-", input=with_trailer(description, change))
        return change

    def current(self) -> str | None:
        head = self._head()
        ids = ids_in(self._message(head)) if head else []
        return ids[0] if ids else None

    def new_change(self, description: str) -> str:
        if self.current() is not None and self.dirty():
            self._run("add", "-A")
            self._run("commit", "-q", "--amend", "--allow-empty", "--no-verify", "--no-edit")
        change = new_id()
        self._run("commit", "-q", "--allow-empty", "--no-verify", "--cleanup=whitespace", "--only",
                  "-F", "-", input=with_trailer(description, change))
        return change

    def describe(self, description: str, change_id: str | None = None) -> None:
        head = self._head()
        ids = ids_in(self._message(head)) if head else []
        if not ids or (change_id is not None and change_id not in ids):
            raise CodingError("on git only the current change (HEAD) can be described; "
                              f"{change_id or 'HEAD'} is not HEAD's change")
        body = without_trailer(description)
        msg = body + "\n\n" + "".join(f"Change-Id: {i}\n" for i in ids)
        self._run("commit", "-q", "--amend", "--allow-empty", "--no-verify", "--only",
                  "--cleanup=whitespace", "-F", "-", input=msg)

    def description(self, change_id: str) -> str:
        return without_trailer(self._message(self._need(change_id)))

    def parent(self, change_id: str) -> str | None:
        sha = self._need(change_id)
        if not self._run("rev-parse", "--verify", "-q", f"{sha}^", check=False).strip():
            return None
        ids = ids_in(self._message(f"{sha}^"))
        return ids[0] if ids else None

    def exists(self, change_id: str) -> bool:
        return self.commit_of(change_id) is not None

    def is_ancestor(self, ancestor: str, change_id: str) -> bool:
        a, b = self.commit_of(ancestor), self.commit_of(change_id)
        if a is None or b is None:
            return False
        return _git(self.root, "merge-base", "--is-ancestor", a, b).returncode == 0

    def diff(self, change_id: str, stat: bool = False) -> str:
        sha = self._need(change_id)
        base = sha + "^" if self._run("rev-parse", "--verify", "-q", f"{sha}^", check=False).strip() else EMPTY_TREE
        fmt = ["--stat"] if stat else []
        if sha != self._head():
            return self._run("diff", *DIFF, *fmt, base, sha, "--")
        with tempfile.TemporaryDirectory() as tmp:  # the working tree as jj would snapshot it,
            index = Path(tmp) / "index"               # through a copy of the index: the user's stays
            git_dir = Path(self._run("rev-parse", "--absolute-git-dir").strip())
            if (git_dir / "index").exists():
                shutil.copy2(git_dir / "index", index)  # keep its mtime: git's racy-clean check needs it
            env = {"GIT_INDEX_FILE": str(index)}
            self._run("add", "-A", env=env)
            return self._run("diff", "--cached", *DIFF, *fmt, base, "--", env=env)

    def dirty(self) -> list[str]:
        out = _git(self.root, "status", "--porcelain", "--untracked-files=all", "-z", raw=True)
        if out.returncode != 0:
            self._run("status")  # raises CodingError with git's own words
        # names decoded as the file system does (os.fsdecode): Path(name) is the real file, even
        # when the name is not UTF-8
        return [os.fsdecode(entry[3:]) for entry in out.stdout.split(b"\0") if len(entry) > 3]


def _git(path: Path, *args: str, input: str | None = None,
         env: dict | None = None, raw: bool = False) -> subprocess.CompletedProcess:
    """Hardened git (``gitsafe.run_git``); output decoded with U+FFFD for bytes that are not UTF-8
    (a file name in another encoding must not end a session in a traceback)."""
    try:
        return run_git(path, *args, input=input, env=env, timeout=60, raw=raw)
    except OSError as e:
        why = str(e) if isinstance(e, UnsafeRepository) else e.strerror or e
        raise CodingError(f"git could not run in {path}: {why}") from None
    except subprocess.TimeoutExpired:
        raise CodingError(f"git {args[0]} in {path} took over 60 s; is the repository locked?") from None
