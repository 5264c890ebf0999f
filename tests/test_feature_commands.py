"""Features own their commands (issue 26): ``nanobot memory``, ``reflect``, ``vault``,
``backfill-summaries``, ``chats``, ``consolidate`` and ``session`` come from the features' modules
(``register_commands``, through ``runtime.FEATURES``), not from the CLI's own command list; the
``nanobot`` command still has every one of them."""

from __future__ import annotations

import importlib

import typer

from nanobot import runtime
from nanobot.cli import COMMANDS
from nanobot.cli.features import Lent
from tests.conftest import run_cli

OWNED = {"memory", "reflect", "vault", "backfill-summaries", "chats", "consolidate", "session"}


def names(app: typer.Typer) -> set[str]:
    return {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}


def test_the_features_register_their_commands_and_the_cli_list_holds_none():
    app = typer.Typer()
    runtime.register_commands(app, Lent())
    assert names(app) == OWNED
    own = typer.Typer()
    for name in COMMANDS:
        if name != "features":
            importlib.import_module(f"nanobot.cli.{name}").register(own)
    assert not names(own) & OWNED


def test_nanobot_help_lists_the_features_commands(home):
    r = run_cli("--help", home=home)
    assert r.returncode == 0, r.stderr
    listed = {line.split()[1] for line in r.stdout.splitlines() if line.startswith("│ ") and len(line.split()) > 2}
    assert OWNED <= listed
