"""A coding session, as a library: start, checkpoint, describe, check, query -- the CLI, the feature
and the tools all go through ``CodingSession``.

::

    s = CodingSession.start(settings, Path("."), "Add CSV export")   # new change, described
    s.checkpoint()       # the description becomes the hand-off; a new empty change on top
    s.query("@-", ["description", "diff"])
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nanobot.coding import store
from nanobot.coding.check import check_working_copy, shown
from nanobot.coding.describe import Description, parse, render
from nanobot.coding.store import SessionMeta
from nanobot.coding.vcs import VCS, CodingError, open_vcs
from nanobot.core.transcript import Record

FIRST = "(first change of this session: no parent description to hand off)"


def _now() -> datetime:
    return datetime.now().astimezone()


class CodingSession:
    def __init__(self, settings, meta: SessionMeta, vcs: VCS):
        self.settings = settings
        self.meta = meta
        self.vcs = vcs
        self.dir = settings.sessions_dir
        self.transcript = store.transcript(self.dir, meta.root)

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def start(cls, settings, path: Path, task: str, *, allow_dirty: bool = False) -> CodingSession:
        """A new change described by ``task``, recorded as the session's root."""
        task = task.strip()
        if not task:
            raise CodingError("a coding session needs a task: nanobot session start \"WHAT TO DO\"")
        vcs = open_vcs(path)
        dirty = vcs.dirty()
        if dirty and not allow_dirty:
            more = f" and {len(dirty) - 1} more" if len(dirty) > 1 else ""
            raise CodingError(f"{vcs.root} has uncommitted changes ({shown(dirty[0])}{more}); commit or stash "
                              "them first (git stash), or pass --allow-dirty to fold them into the session's change")
        root = vcs.start(task)
        vcs.describe(render(Description(task=task, session=root)), root)
        now = _now()
        meta = SessionMeta(root=root, task=task, backend=vcs.kind, repo=str(vcs.root), changes=[root],
                           current=root, started=now, last_active=now)
        store.save_meta(settings.sessions_dir, meta)
        s = cls(settings, meta, vcs)
        s.transcript.append("session", "", now=now, change=root, task=task, backend=vcs.kind, repo=str(vcs.root))
        return s

    @classmethod
    def open(cls, settings, prefix: str) -> CodingSession:
        meta = store.find_session(settings.sessions_dir, prefix)
        repo = Path(meta.repo)
        if not repo.is_dir():
            raise CodingError(f"session {meta.root[:12]}: its repository {repo} is gone")
        vcs = open_vcs(repo)
        if vcs.kind != meta.backend:
            raise CodingError(f"session {meta.root[:12]} was a {meta.backend} session, but {repo} now opens as {vcs.kind}")
        return cls(settings, meta, vcs)

    @classmethod
    def latest(cls, settings, path: Path) -> CodingSession:
        """The most recently active session of the repository at ``path``."""
        root = str(open_vcs(path).root)
        for meta in store.list_sessions(settings.sessions_dir):
            if meta.repo == root:
                return cls.open(settings, meta.root)
        raise CodingError(f"no coding session in {root}; start one with nanobot session start \"TASK\"")

    # -- state ---------------------------------------------------------------------------------
    @property
    def root(self) -> str:
        return self.meta.root

    @property
    def current(self) -> str:
        return self.meta.current

    def save(self, fn=None, **update) -> None:
        """Write ``update`` (and ``fn(meta on disk)``'s fields) into meta.json under the session's
        lock, on top of what is on disk now: concurrent commands never lose each other's writes."""
        with store.meta_lock(self.dir, self.root):
            self._save_locked(fn, **update)

    def _save_locked(self, fn=None, **update) -> None:
        def apply(disk: SessionMeta) -> SessionMeta:
            return disk.model_copy(update={"last_active": _now(), **update, **(fn(disk) if fn else {})})
        self.meta = store.update_meta(self.dir, self.root, apply, fallback=self.meta)

    def check(self) -> SessionMeta:
        """Bring the status up to date with the repository: a session is valid while its root id
        survives (a change squashed into its parent leaves the session on the newest survivor); a
        root that is gone makes it non-resumable, with the reason."""
        meta = self.meta
        if not self.vcs.exists(meta.root):
            reason = (f"root change {meta.root[:12]} is gone from {meta.repo} (abandoned, or rewritten "
                      "without its id); the session cannot be resumed")
            self.save(status="broken", reason=reason)
            return self.meta
        alive = [c for c in meta.changes if self.vcs.exists(c)]
        update: dict = {"status": "active" if meta.status == "broken" else meta.status, "reason": ""}
        if meta.current not in alive:
            update["current"] = alive[-1]
            update["reason"] = (f"change {meta.current[:12]} was squashed into its parent or abandoned; "
                                f"the session goes on from {alive[-1][:12]}")
        if update["reason"] or meta.status == "broken":
            self.save(**update)
        return self.meta

    def require_resumable(self) -> None:
        meta = self.check()
        if meta.status == "broken":
            raise CodingError(f"session {meta.root[:12]} cannot be resumed: {meta.reason}")
        here = self.vcs.current()
        if here not in meta.changes and here != meta.current:
            raise CodingError(f"the working copy of {meta.repo} is on another change ({here or 'no session change'}); "
                              f"check out this session's change {meta.current[:12]} first")

    # -- operations ----------------------------------------------------------------------------
    def description(self, change: str | None = None) -> str:
        return self.vcs.description(change or self.current)

    def describe(self, text: str, change: str | None = None) -> None:
        """Set a change's description; the ``[session: root]`` tag is always kept on it."""
        d = parse(text)
        if not d.session:
            text = f"{text.rstrip()}\n\n[session: {self.root}]"
        self.vcs.describe(text, change or self.current)
        self.save()

    def checkpoint(self, description: str | None = None, reason: str = "checkpoint", *,
                   allow_broken: bool = False) -> str:
        """Fold the working copy into the current change (its description is the hand-off) and
        start a new change on top: ``description`` or the task, tagged with the session. Refused with
        a CodingError naming the file and line when a changed Python file does not parse or the
        configured tests fail (``coding/check.py``), unless ``allow_broken``."""
        if not allow_broken and (err := check_working_copy(self.vcs, self.settings)):
            raise CodingError(f"not committed: {err}; fix it first (or commit it anyway with "
                              "nanobot session continue --allow-broken)")
        text = description or self.meta.task
        if not parse(text).session:
            text = render(Description(task=text, session=self.root))
        with store.meta_lock(self.dir, self.root):  # one checkpoint at a time per session
            self.meta = store.load_meta(store.session_dir(self.dir, self.root)) or self.meta
            old = self.current
            new = self.vcs.new_change(text)
            self._save_locked(lambda disk: {"changes": [*disk.changes, new]}, current=new, status="active")
        self.transcript.append("event", reason, change=new, parent=old)
        return new

    def handoff(self) -> tuple[str | None, str]:
        """(parent id, its description) when the parent is this session's previous change; else
        (None, a note saying why there is no hand-off)."""
        parent = self.vcs.parent(self.current)
        if self.current == self.root:
            return None, FIRST
        if parent is None or parent not in self.meta.changes:
            return None, (f"(the parent of {self.current[:12]} is not this session's previous change: "
                          "it was rebased onto an unrelated parent; no hand-off)")
        return parent, self.vcs.description(parent)

    def status_line(self) -> str:
        """The change id and a one-line VCS status, shown at each turn.

        For example: ``'change I3f2a9c01b7de (git) · 2 files changed, 5 insertions(+)'``.
        """
        stat = self.vcs.diff(self.current, stat=True).strip().splitlines()
        summary = " ".join(stat[-1].split()) if stat else "no changes yet"
        return f"change {self.current[:12]} ({self.meta.backend}) · {summary}"

    def append(self, role: str, content: str, **meta) -> Record:
        return self.transcript.append(role, content, change=self.current, **meta)

    def records(self, change: str | None = None) -> list[Record]:
        """Transcript records (user/assistant) of ``change`` (default: the current change)."""
        want = change or self.current
        return [r for r in store.records(self.dir, self.root)
                if r.role in ("user", "assistant") and r.meta.get("change") == want]
