"""Everything the CLI prints goes through ``safe_text.printable``: model output, errors, warnings,
status lines, tables.

``console()`` is a Rich ``Console`` whose ``print`` escapes control characters in every string it is
given (and in a table's cells) before Rich renders it, so Rich's own styling still works while a
file name carrying an OSC 52 or clear-screen sequence shows as ``\\x1b]52;...``. ``echo`` is the same
for plain lines (``typer.echo``/``print``).

>>> import io; buf = io.StringIO(); echo("gone\\x1b[2J", file=buf); buf.getvalue()
'gone\\\\x1b[2J\\n'
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from nanobot.base.safe_text import printable


def _clean(obj: Any) -> Any:
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, Table):
        for column in obj.columns:
            column._cells = [printable(c) if isinstance(c, str) else c for c in column._cells]
    return obj


class SafeConsole(Console):
    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().print(*(_clean(o) for o in objects), **kwargs)


def console(**kwargs: Any) -> SafeConsole:
    return SafeConsole(**kwargs)


def echo(message: object = "", err: bool = False, file=None, nl: bool = True) -> None:
    stream = file or (sys.stderr if err else sys.stdout)
    stream.write(printable(str(message)) + ("\n" if nl else ""))
    stream.flush()
