"""The ``nanobot`` command: a thin typer layer that parses, calls the library, and renders.

How to add a command: write ``nanobot/cli/NAME.py`` with a ``register(app)`` function and add it to
``COMMANDS`` below. A feature's own commands live in its package (``register_commands(app, cli)`` in
its ``commands.py``, ``core/features.py``); ``cli/features.py`` adds them all through
``runtime.FEATURES``. Raise ``NanobotError`` for anything the user must fix: ``main`` prints it as one
line and exits with code 2.
"""

from __future__ import annotations

import importlib
import os
import sys

# first: the chat model's default thread count reads what other processes do from this import on, for
# at least 0.2 s (``cores.model_threads``); imported here, that time has passed when the model loads
from nanobot.base import cores  # noqa: F401

# isort: split
import typer

from nanobot.base.errors import NanobotError, StorageError
from nanobot.base.nonutf8 import NOTICE, scrub
from nanobot.base.safe_text import printable

app = typer.Typer(
    name="nanobot", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="A local-model-first agent runtime: small GGUF models, lean prompts, fully offline.",
)

COMMANDS = ["chat", "workspace", "models", "prompt", "bench", "tools", "daemon", "housekeep", "status",
            "features", "importer", "serve"]

_registered: list[str] = []


def register(names: list[str] = COMMANDS) -> typer.Typer:
    """Add ``names``' commands to ``app`` (each module imported once)."""
    for name in names:
        if name not in _registered:
            importlib.import_module(f"nanobot.cli.{name}").register(app)
            _registered.append(name)
    return app


@app.callback()
def _group() -> None:
    """A local-model-first agent runtime: small GGUF models, lean prompts, fully offline."""


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    _scrub_argv()
    # `nanobot chat` imports only its own command: the prompt is on screen sooner (the other
    # commands' modules pull in the memory, vault and benchmark code)
    register(["chat"] if sys.argv[1:2] == ["chat"] else COMMANDS)
    try:
        app()
    except NanobotError as e:
        print(f"Error: {printable(str(e))}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:  # a read-only home, a full disk: name the cause, never a traceback
        print(f"Error: {printable(str(StorageError.from_os(e)))}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        sys.exit(130)
    finally:
        _finish_background()


def _scrub_argv() -> None:
    """Arguments that are not UTF-8 (Python keeps them as lone surrogates) are replaced, once noted."""
    bad = False
    for i, arg in enumerate(sys.argv):
        sys.argv[i], changed = scrub(arg)
        bad |= changed
    if bad:
        print(f"note: the command line {NOTICE}", file=sys.stderr)


def _finish_background() -> None:
    """Let background jobs (indexing, reflection) finish: exiting under them aborts the process."""
    from nanobot.base import background

    if background.pending():
        if sys.stderr.isatty():
            print("finishing background work (Ctrl-C to abandon it)...", file=sys.stderr)
        try:
            background.join_all()
        except KeyboardInterrupt:
            os._exit(130)
