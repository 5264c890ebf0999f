"""``nanobot memory``: search, reindex and inspect the memory index. The memory feature's commands:
``register_commands(app, cli)``, found in this package by ``runtime.register_commands``; ``cli``
(``core.features.Cli``) lends the CLI's printing."""

from __future__ import annotations

import json
import sys

import typer
from rich.table import Table
from rich.text import Text

from nanobot.base.errors import ConfigError
from nanobot.base.safe_text import printable
from nanobot.config import load_settings
from nanobot.core.features import Cli
from nanobot.memory.indexer import IndexReport
from nanobot.memory.service import BIG_BACKLOG, MemoryService, get_service
from nanobot.workspace import init_workspace


def _service() -> MemoryService:
    settings = load_settings()
    if not settings.memory.enabled:
        raise ConfigError("memory is disabled (memory.enabled = false); enable it in config.toml to use it")
    init_workspace(settings.workspace)
    return get_service(settings)


def index_shown(svc: MemoryService, console, full: bool = False) -> IndexReport:
    """``svc.refresh`` with a progress bar in files on ``console`` when stdout and stderr are a terminal
    (piped: nothing drawn). Ctrl-C: one line saying how far it got (what is committed stays), exit 130."""
    seen = [0, 0]

    def follow(done: int, todo: int) -> None:
        seen[:] = [done, todo]
        if bar is not None:
            bar.update(task, completed=done, total=todo)

    bar = task = None
    if sys.stdout.isatty() and sys.stderr.isatty():
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(TextColumn("indexing memory (files)"), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=console, transient=True)
        task = bar.add_task("index", total=None)
        bar.start()
    try:
        return svc.refresh(full=full, progress=follow)
    except KeyboardInterrupt:
        if bar is not None:
            bar.stop()
            bar = None
        console.print(f"indexing stopped at {seen[0]:,} of {seen[1]:,} files; what was indexed is kept, "
                      "and `nanobot memory reindex` (or the next chat) goes on from there",
                      markup=False, highlight=False)
        raise typer.Exit(130) from None
    finally:
        if bar is not None:
            bar.stop()


def reindex_imported(console) -> IndexReport | None:
    """Index what ``nanobot import`` just wrote, shown (``index_shown``); None when memory is off or
    does not index past conversations (``memory.transcripts = false``)."""
    settings = load_settings()
    if not (settings.memory.enabled and settings.memory.transcripts):
        return None
    init_workspace(settings.workspace)
    return index_shown(get_service(settings), console)


def register_commands(app: typer.Typer, cli: Cli) -> None:
    memory_app = typer.Typer(help="Search and maintain the memory index (MEMORY.md, observations/, knowledge/, past sessions).",
                             no_args_is_help=True)
    app.add_typer(memory_app, name="memory")

    def _notices(svc: MemoryService) -> None:
        for note in svc.notices():  # e.g. a damaged index moved aside and rebuilt
            cli.echo(f"warning: {note}", err=True)
        indexed, total = svc.searchable()
        if total - indexed >= BIG_BACKLOG:  # not indexed here: that would take minutes, unshown
            cli.echo(f"note: {indexed:,} of {total:,} files are indexed so far; `nanobot memory reindex` "
                     "indexes the rest (with progress)", err=True)

    @memory_app.command()
    def search(
        query: str = typer.Argument(..., help="What to look for."),
        k: int = typer.Option(None, "--k", "-k", min=1, max=100, help="How many results (default memory.k)."),
        mode: str = typer.Option("hybrid", "--mode", help="hybrid, vector or fts."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list of {text, source, score}."),
    ) -> None:
        """Search memory the way a turn does (hybrid vector + keyword), without the similarity floor."""
        if mode not in ("hybrid", "vector", "fts"):
            raise ConfigError(f"--mode '{mode}' is not one of hybrid, vector, fts")
        svc = _service()
        hits = svc.search(query, k, mode=mode)  # type: ignore[arg-type]
        _notices(svc)
        if as_json:
            out = [{"text": h.text, "source": h.where, "score": h.score} for h in hits]
            cli.echo(json.dumps(out, indent=2, ensure_ascii=False))
            return
        if not hits:
            cli.echo("no memory matches (nothing indexed yet? add bullets to MEMORY.md)")
            return
        table = Table("score", "source", "text", box=None)
        for h in hits:
            table.add_row(f"{h.score:.2f}", Text(printable(h.where)), Text(printable(h.text)))  # data, not markup
        cli.console().print(table)

    @memory_app.command()
    def reindex(full: bool = typer.Option(False, "--full", help="Re-chunk every file, not only changed ones.")) -> None:
        """Bring the index up to date with the workspace files (cheap when nothing changed); a progress
        bar on a terminal; Ctrl-C keeps the batches done, and the next run goes on from there."""
        svc = _service()
        r = index_shown(svc, cli.console(stderr=True), full=full)
        _notices(svc)
        for w in r.warnings:
            cli.echo(f"warning: {w}", err=True)
        cli.echo(f"indexed: {len(r.added)} added, {len(r.updated)} updated, {len(r.removed)} removed; "
                 f"{r.chunks} chunks ({r.embedded} embedded, {r.cached} from cache) in {r.seconds:.2f}s")

    @memory_app.command()
    def stats(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Chunks, sources, database size and the embedder."""
        svc = _service()
        svc.refresh(patient=False)
        data = svc.stats()
        _notices(svc)
        if as_json:
            cli.echo(json.dumps(data, indent=2))
            return
        cli.echo(f"chunks: {data['chunks']} from {len(data['sources'])} source(s)")
        for src, n in sorted(data["sources"].items()):
            cli.echo(f"  {src}: {n}")
        cli.echo(f"db: {data['db']} ({data['db_bytes'] / 1e6:.1f} MB)")
        cli.echo(f"embedder: {data['embedder']} ({data['embedder_path']}), dim {data['dim']}, "
                 f"{data['cached_embeddings']} cached embeddings")
