"""Real repositories in temporary folders for the coding-session tests, one helper per backend.

Each helper runs the *user's* side (plain git or jj, outside nanobot): amend, rebase, squash,
abandon. The jj half is written against jj's documented CLI; it runs where ``jj`` is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

NO_JJ = "jj is not installed here (it cannot be installed on the project's machines); the jj backend is written against jj's documented CLI"
BACKENDS = ["git", pytest.param("jj", marks=pytest.mark.skipif(shutil.which("jj") is None, reason=NO_JJ))]


def isolate(monkeypatch, tmp_path: Path) -> None:
    """No system/global git or jj config of the machine; a fixed identity."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for k, v in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                 "GIT_COMMITTER_EMAIL": "t@t", "JJ_USER": "t", "JJ_EMAIL": "t@t",
                 "JJ_CONFIG": str(tmp_path / "jjconfig.toml")}.items():
        monkeypatch.setenv(k, v)


class Repo:
    def __init__(self, kind: str, path: Path):
        self.kind, self.path = kind, path

    def run(self, *args: str, check: bool = True) -> str:
        return subprocess.run([self.kind, *args], cwd=self.path, check=check, capture_output=True,
                              text=True).stdout

    def write(self, name: str, text: str) -> None:
        (self.path / name).write_text(text)

    @classmethod
    def make(cls, kind: str, path: Path, commits: int = 1) -> Repo:
        path.mkdir(parents=True)
        r = cls(kind, path)
        if kind == "git":
            r.run("init", "-q", "-b", "main", ".")
        else:
            r.run("git", "init", ".")
        for i in range(commits):
            r.write(f"base{i}.txt", f"base {i}\n")
            r.commit(f"base {i}")
        return r

    def commit(self, msg: str) -> None:
        """A plain commit of everything, as the user would make it (jj: describe + new)."""
        if self.kind == "git":
            self.run("add", "-A")
            self.run("commit", "-qm", msg, "--allow-empty")
        else:
            self.run("commit", "-m", msg)

    def amend_file(self, name: str, text: str) -> None:
        """Change a file into the current change (git: commit --amend, message kept)."""
        self.write(name, text)
        if self.kind == "git":
            self.run("add", "-A")
            self.run("commit", "-q", "--amend", "--no-edit")
        else:
            self.run("status")  # the snapshot rewrites @ (a new commit id, the same change id)

    def change_id(self) -> str:
        return self.run("log", "-r", "@", "--no-graph", "-T", "change_id").strip()

    def rebase_on_new_base(self, root: str, current: str) -> None:
        """A new commit lands below the session, and the session is rebased onto it."""
        if self.kind == "git":
            first = self.run("rev-list", "--max-parents=0", "HEAD").split()[0]
            self.run("checkout", "-q", "-b", "side", first)
            self.write("upstream.txt", "new upstream\n")
            self.commit("upstream work")
            self.run("checkout", "-q", "main")
            self.run("rebase", "-q", "side")
        else:
            self.run("new", f"({root})-", "-m", "upstream work")
            self.write("upstream.txt", "new upstream\n")
            self.run("rebase", "-s", root, "-d", self.change_id())
            self.run("edit", current)

    def squash_head_into_parent(self) -> None:
        if self.kind == "git":
            self.run("reset", "-q", "--soft", "HEAD~1")
            self.run("commit", "-q", "--amend", "--no-edit")
        else:
            self.run("squash")  # @ into @-; @ is then a new empty change, left for the parent
            self.run("edit", "@-")

    def abandon_session(self, root: str, changes: int) -> None:
        """Every change of the session is gone (git: reset --hard below the root; jj: abandon)."""
        if self.kind == "git":
            self.run("reset", "-q", "--hard", f"HEAD~{changes}")
        else:
            self.run("abandon", f"{root}::")

    def rebase_head_onto_unrelated(self, current: str) -> None:
        """Move only the current change onto a fresh, unrelated history."""
        if self.kind == "git":
            self.run("checkout", "-q", "--orphan", "unrelated")
            self.run("rm", "-rfq", "--cached", ".")
            self.run("clean", "-fdq")
            self.write("other.txt", "other\n")
            self.commit("unrelated root")
            self.run("checkout", "-q", "main")
            self.run("rebase", "-q", "--onto", "unrelated", "HEAD~1", "main")
        else:
            self.run("new", "root()", "-m", "unrelated root")
            self.write("other.txt", "other\n")
            self.run("rebase", "-r", current, "-d", self.change_id())
            self.run("edit", current)
