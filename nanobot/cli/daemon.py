"""``nanobot daemon``: the one long-running process for scheduled work (``nanobot/housekeeping/scheduler.py``).

Foreground; one log line per job run on stdout; SIGTERM / SIGINT let the current job finish, then
exit 0; one copy per NANOBOT_HOME (``nanobot/base/pidlock.py``: a second one exits 2 naming the pid).
"""

from __future__ import annotations

import signal
import threading
from datetime import datetime

import typer

from nanobot.base.pidlock import acquire
from nanobot.cli.term import echo
from nanobot.config import load_settings
from nanobot.housekeeping.scheduler import JOBS, run_due
from nanobot.workspace import init_workspace


def register(app: typer.Typer) -> None:
    @app.command()
    def daemon(
        interval: float = typer.Option(30.0, "--interval", min=0.1, help="Seconds between checks."),
        once: bool = typer.Option(False, "--once", help="Run the due jobs once and exit."),
    ) -> None:
        """Run scheduled jobs (reminders, reflection, CONTEXT.md freshness) in the foreground."""
        settings = load_settings()
        init_workspace(settings.workspace)
        lock = acquire(settings.home, "daemon")  # noqa: F841 - held until the process exits
        stop = threading.Event()
        if not once:
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: stop.set())  # never mid-job: checked between runs
            names = ", ".join(j.name for j in JOBS)
            echo(f"nanobot daemon: pid lock {settings.home / 'daemon.lock'}; jobs {names}; "
                       f"checking every {interval:g}s", err=True)
        while not stop.is_set():
            for run in run_due(settings, datetime.now().astimezone()):
                echo(run.line())
            if once:
                return
            stop.wait(interval)
        echo("nanobot daemon: stopped", err=True)
