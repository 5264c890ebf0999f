"""Reading config.toml: its bytes to a dict once, or one line naming the file, where, and the fix.

What an editor may leave in a config that ``tomllib`` alone turns into a cryptic error or a traceback:

- a byte-order mark ("UTF-8 with BOM", Notepad's default): dropped, the file reads as written;
- bytes that are not UTF-8 (saved as Latin-1): the line and column of the first one
  (``base.nonutf8.where_not_utf8``);
- arrays or inline tables inside each other thousands deep: ``tomllib`` recurses once per level, so
  a ``RecursionError`` is caught, and a parsed table deeper than ``MAX_DEPTH`` (dotted table
  headers nest without recursing) is refused before the settings models walk it.

The dict goes to the settings as their TOML source (``Settings.settings_customise_sources``), so the
file is read once and what was checked is what is used.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from nanobot.base.errors import ConfigError
from nanobot.base.nonutf8 import where_not_utf8
from nanobot.base.regular import read_regular

MAX_DEPTH = 32  # a real config is 3 deep ([models.NAME] key = [..]); 32 leaves room, bounds the walk
BOM = b"\xef\xbb\xbf"


def read_toml(path: Path) -> dict[str, Any]:
    """The table in ``path``; ConfigError (one line) for a file that cannot be read or is no TOML."""
    try:
        raw = read_regular(path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read ({e.strerror}); make it a regular TOML file or delete it") from None
    raw = raw.removeprefix(BOM)
    if where := where_not_utf8(raw):
        raise ConfigError(f"{path}: not UTF-8 ({where}); re-save the file as UTF-8")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e}); fix the syntax or delete the file") from None
    except RecursionError:
        data = None
    if data is None or depth(data) > MAX_DEPTH:
        raise ConfigError(f"{path}: tables or arrays nested more than {MAX_DEPTH} levels deep (a config is "
                          "a few levels deep); fix or delete the file")
    return data


def depth(value: Any) -> int:
    """How deep tables and arrays nest in ``value``, walked without recursion (stops past MAX_DEPTH).

    >>> depth({"a": 1}), depth({"models": {"x": {"stop": ["a"]}}}), depth([])
    (1, 4, 1)
    """
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest
