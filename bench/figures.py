"""How a bench script hands back its figures: the result as JSON on stdout, and in a file when asked.

Every script under bench/ ends the same way; this is that ending, once. The file is written with
``nanobot.base.atomic.atomic_write`` (a temp file renamed over the target, its folder made), so an
interrupted run never leaves a torn result under bench/results/ for ``readme_table.py`` to read.

>>> text = emit({"median_s": 0.25}, indent=None)
{"median_s": 0.25}
"""

from __future__ import annotations

import json
import os
from typing import Any

from nanobot.base.atomic import atomic_write


def emit(result: Any, out: str | os.PathLike | None = None, indent: int | None = 2, echo: bool = True) -> str:
    """Print ``result`` as JSON (unless ``echo`` is False) and write it to ``out`` when given; the text."""
    text = json.dumps(result, indent=indent)
    if echo:
        print(text, flush=True)
    if out:
        atomic_write(out, text + "\n")
    return text
