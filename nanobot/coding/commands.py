"""``nanobot session``: coding sessions keyed to version-control changes.

``start "TASK"`` (new change described by TASK, recorded as the session root, then chat),
``continue [ID]`` (checkpoint, fresh context, the parent's description as the hand-off),
``resume ID`` (that session's transcript back as history, then chat), ``list`` and ``show ID``.
The chat is ``nanobot chat``'s loop with the coding feature switched on for it (``build_agent(coding_session=...)``).
The coding feature's commands: ``register_commands(app, cli)``, found in this package by
``runtime.register_commands``; ``cli`` (``core.features.Cli``) lends the chat loop and the CLI's printing.
"""

from __future__ import annotations

from pathlib import Path

import typer

from nanobot.base.safe_text import printable
from nanobot.coding import store
from nanobot.coding.session import CodingSession
from nanobot.config import load_settings
from nanobot.core.features import Cli

PATH = typer.Option(Path("."), "--path", "-C", help="The repository (default: the current directory).")
MODEL = typer.Option(None, "--model", "-m", help="Model name or .gguf path.")
VERBOSE = typer.Option(False, "--verbose", "-v", help="Per-turn token and timing figures on stderr.")


def _chat(cli: Cli, settings, session: CodingSession, model: str | None, verbose: bool) -> None:
    err = cli.console(stderr=True, highlight=False, soft_wrap=True)
    err.print(printable(f"coding session {session.root[:12]} · change {session.current[:12]} "
                        f"({session.meta.backend}) · {session.meta.task.splitlines()[0][:60]}"),
              style="dim", markup=False)
    cli.chat(settings, model, verbose, coding_session=session.root)


def register_commands(app: typer.Typer, cli: Cli) -> None:
    sub = typer.Typer(help="Coding sessions keyed to version-control changes (git or jj).",
                      no_args_is_help=True)
    app.add_typer(sub, name="session")

    @sub.command("start")
    def start(task: str = typer.Argument(..., help="What the session is for (the change's description)."),
              path: Path = PATH, allow_dirty: bool = typer.Option(
                  False, "--allow-dirty", help="Fold uncommitted changes into the session's first change."),
              model: str = MODEL, verbose: bool = VERBOSE) -> None:
        """Start a session: a new change described by TASK, then chat."""
        settings = load_settings()
        _chat(cli, settings, CodingSession.start(settings, path, task, allow_dirty=allow_dirty), model, verbose)

    @sub.command("continue")
    def cont(session_id: str = typer.Argument(None, help="Session id (default: this repository's latest)."),
             path: Path = PATH, model: str = MODEL, verbose: bool = VERBOSE,
             allow_broken: bool = typer.Option(
                 False, "--allow-broken", help="Commit even if a changed Python file does not parse or the tests fail.")) -> None:
        """Checkpoint (a new change on top), then chat with a fresh context and the hand-off. A changed
        Python file that does not parse (or failing [coding] test_command) refuses the checkpoint."""
        settings = load_settings()
        s = CodingSession.open(settings, session_id) if session_id else CodingSession.latest(settings, path)
        s.require_resumable()
        s.checkpoint(reason="continue", allow_broken=allow_broken)
        _chat(cli, settings, s, model, verbose)

    @sub.command("resume")
    def resume(session_id: str = typer.Argument(
                   ..., help="Any change id of the session: its first change or a checkpoint (a unique prefix is enough)."),
               model: str = MODEL, verbose: bool = VERBOSE) -> None:
        """Reload a session's transcript (its current change's exchanges) and go on chatting."""
        settings = load_settings()
        s = CodingSession.open(settings, session_id)
        s.require_resumable()
        named = store.change_named(s.meta, session_id)
        if named not in (s.root, s.current):  # a checkpoint's id: say where the session goes on
            n = s.meta.changes.index(named) + 1 if named in s.meta.changes else 0
            cli.console(stderr=True, highlight=False, soft_wrap=True).print(printable(
                f"{named[:12]} is change {n} of {len(s.meta.changes)} of session {s.root[:12]}; "
                f"going on from its current change {s.current[:12]}"), style="dim", markup=False)
        _chat(cli, settings, s, model, verbose)

    @sub.command("list")
    def list_() -> None:
        """Coding sessions: id, task, status (and why a session cannot be resumed), last active, changes."""
        settings = load_settings()
        out = cli.console(highlight=False, soft_wrap=True)
        metas = store.list_sessions(settings.sessions_dir)
        if not metas:
            out.print("no coding sessions yet; start one with: nanobot session start \"TASK\"", markup=False)
        for meta in metas:
            try:
                meta = CodingSession.open(settings, meta.root).check()
            except Exception as e:  # a repository gone or unreadable: say so, list the rest
                meta = meta.model_copy(update={"status": "broken", "reason": str(e)})
            why = f" ({meta.reason})" if meta.reason else ""
            out.print(printable(f"{meta.root[:12]}  {meta.status}{why}  {meta.last_active:%Y-%m-%d %H:%M}  "
                                f"{len(meta.changes)} change(s)  {meta.task.splitlines()[0][:60]}"), markup=False)

    @sub.command("show")
    def show(session_id: str = typer.Argument(..., help="Session id (a unique prefix is enough).")) -> None:
        """A session's metadata, its current description and how much transcript it has."""
        settings = load_settings()
        s = CodingSession.open(settings, session_id)
        meta = s.check()
        out = cli.console(highlight=False, soft_wrap=True)
        lines = [f"session {meta.root}", f"task: {meta.task}", f"backend: {meta.backend}  repo: {meta.repo}",
                 f"status: {meta.status}" + (f" ({meta.reason})" if meta.reason else ""),
                 f"started: {meta.started:%Y-%m-%d %H:%M}  last active: {meta.last_active:%Y-%m-%d %H:%M}",
                 "changes: " + " -> ".join(c[:12] for c in meta.changes)]
        if meta.status != "broken":
            lines += ["", f"current change {meta.current}:", s.description()]
        recs = store.records(settings.sessions_dir, meta.root)
        lines += ["", f"transcript: {sum(r.role == 'user' for r in recs)} user message(s)"]
        out.print(printable("\n".join(lines)), markup=False)
