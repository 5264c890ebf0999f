"""``backfill-summaries``: the model writes the missing one-line summaries, one ledger entry per doc.

For each doc whose frontmatter has no ``summary`` (readable frontmatter, valid UTF-8), the model is
shown its title and the first ``BODY_CHARS`` characters of its body and writes one line under a GBNF
grammar that admits only one line of ``MIN_CHARS``..``SUMMARY_MAX`` characters without markdown
characters, starting with a letter or digit. Only the frontmatter changes (``frontmatter.set_field``:
the body and every other field keep their bytes), through ``apply.apply_change`` (actor ``backfill``).
``commit`` then makes one git commit of the changed docs and the ledger when the workspace is in a
git repository (hardened git: ``nanobot.base.gitsafe``).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from nanobot.backends.base import Message
from nanobot.base.frontmatter import (
    SUMMARY_MAX,
    FrontmatterError,
    parse,
    set_field,
    summary_problem,
)
from nanobot.base.gitsafe import git_env, run_git
from nanobot.base.regular import read_regular
from nanobot.vault.apply import apply_change
from nanobot.vault.fmcache import DocMeta, scan
from nanobot.vault.ledger import ledger_path

BODY_CHARS = 500
MIN_CHARS = 10
MAX_TOKENS = 80
PREFILL = "Summary: "  # the model continues from here: no "Here is a summary" preamble
SYSTEM = "You write one-line summaries of documents."
INSTRUCTION = ("Write a summary of this whole document: one line, max 150 chars, specific and concrete. "
               "Plain text, no markdown.")
# one line, no control characters and none of * ` # [ ] < > | \ (markdown, HTML); a letter first (no "1." list)
GRAMMAR = (f'root ::= [A-Za-z] char{{{MIN_CHARS - 1},{SUMMARY_MAX - 1}}}\n'
           'char ::= [^\\x00-\\x1f*`#\\[\\]<>|\\\\]')


class Item(BaseModel):
    path: str  # relative to knowledge/
    status: Literal["written", "dry-run", "skipped"]
    summary: str = ""
    why: str = ""  # for skipped


def prompt(title: str, body: str) -> list[Message]:
    head = f"Document title: {title}\n\n" if title else ""
    return [Message(role="system", content=SYSTEM),
            Message(role="user", content=f"{head}{body.strip()[:BODY_CHARS]}\n\n{INSTRUCTION}")]


def clean(text: str) -> str:
    return " ".join(text.split()).strip()


def shorten(text: str) -> str:
    """A summary cut off by the length bound, back to its last sentence end (or word).

    >>> shorten("Parses CSV with serde. Malformed rows are skipped and")
    'Parses CSV with serde.'
    """
    end = text.rfind(". ")
    if end >= MIN_CHARS:
        return text[:end + 1]
    cut = text.rfind(" ")
    return text[:cut].rstrip(",;:- ") if cut > MIN_CHARS else text


class Backfill:
    """One run: ``docs`` (what needs a summary), ``run()`` yields an ``Item`` per doc, ``commit()``."""

    def __init__(self, settings: Any, model: Any, *, limit: int | None = None, dry_run: bool = False):
        self.settings, self.model, self.dry_run = settings, model, dry_run
        self.workspace: Path = settings.workspace
        docs = [d for d in scan(self.workspace).docs if not d.error and not d.summary]
        self.docs: list[DocMeta] = docs[:limit] if limit is not None else docs
        self.written: list[str] = []

    def summarize(self, title: str, body: str) -> str:
        text = "".join(self.model.stream(prompt(title, body), max_tokens=MAX_TOKENS, temperature=0.0,
                                         grammar=GRAMMAR, prefill=PREFILL))
        cut = self.model.last.finish_reason == "length" or len(clean(text)) >= SUMMARY_MAX - 1
        return shorten(clean(text)) if cut else clean(text)

    def run(self) -> Iterator[Item]:
        for d in self.docs:
            yield self._one(d)

    def _one(self, d: DocMeta) -> Item:
        path = self.workspace / "knowledge" / d.path
        try:
            doc = parse(read_regular(path).decode("utf-8"))
        except UnicodeDecodeError:
            return Item(path=d.path, status="skipped", why="not valid UTF-8; re-save it as UTF-8")
        except (OSError, FrontmatterError) as e:
            return Item(path=d.path, status="skipped", why=str(e))
        summary = self.summarize(doc.text("title"), doc.body)
        if problem := summary_problem(summary):
            return Item(path=d.path, status="skipped", summary=summary, why=f"the model's summary {problem}")
        if self.dry_run:
            return Item(path=d.path, status="dry-run", summary=summary)

        def make(old: str | None) -> str | None:
            if old is None or parse(old).text("summary"):
                return old  # deleted, or summarised meanwhile: leave it
            return set_field(old, "summary", summary)

        entry, _ = apply_change(self.workspace, d.path, make, actor="backfill",
                                reason="backfill-summaries: the doc had no summary",
                                change_summary="Added a one-line summary", home=self.settings.home)
        if entry is None:
            return Item(path=d.path, status="skipped", why="changed meanwhile (deleted or summarised)")
        self.written.append(d.path)
        return Item(path=d.path, status="written", summary=summary)

    def commit(self) -> str | None:
        """One commit of the written docs and the ledger; its hash, or None (nothing written, or
        the workspace is not in a git repository)."""
        if not self.written or not _git(self.workspace, "rev-parse", "--is-inside-work-tree"):
            return None
        files = [f"knowledge/{p}" for p in self.written]
        for extra in (ledger_path(self.workspace), self.workspace / "audit" / ".gitignore"):
            rel = extra.relative_to(self.workspace).as_posix()
            if extra.exists() and _git(self.workspace, "check-ignore", "-q", rel) is None:
                files.append(rel)
        n = len(self.written)
        message = f"nanobot: backfill summaries of {n} knowledge doc{'s' if n > 1 else ''}"
        if _git(self.workspace, "add", "--", *files) is None or \
                _git(self.workspace, "commit", "-q", "-m", message, "--", *files) is None:
            return None
        return _git(self.workspace, "rev-parse", "HEAD")


def _git(workspace: Path, *args: str) -> str | None:
    """stdout of a hardened git command, or None when it fails."""
    env = git_env()
    if _identity_missing(workspace, env):
        env |= {"GIT_AUTHOR_NAME": "nanobot", "GIT_AUTHOR_EMAIL": "nanobot@localhost",
                "GIT_COMMITTER_NAME": "nanobot", "GIT_COMMITTER_EMAIL": "nanobot@localhost"}
    try:
        out = run_git(workspace, *args, env=env, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _identity_missing(workspace: Path, env: dict) -> bool:
    try:
        out = run_git(workspace, "config", "user.email", env=env, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return True
    return out.returncode != 0 or not out.stdout.strip()
