"""A large JSON file read as a stream: the items of its top-level list, one at a time.

``ijson.basic_parse`` (yajl, in C) turns the bytes into events; each item is built here from them,
so memory holds one conversation, never the whole export (a ChatGPT ``conversations.json`` reaches
hundreds of MB). Nesting deeper than ``MAX_DEPTH`` is refused as it is read: no RecursionError, no
quadratic blow-up (``ijson.items`` keeps a prefix string per level: 10,000 levels took 250 MB).
``Counted`` reports bytes read, for a progress bar. Any problem is one ``ImportFormatError``.

>>> import io
>>> list(items(Counted(io.BytesIO(b'[{"a": [1, 2.5]}, "x"]')), "f.json"))
[(1, {'a': [1, 2.5]}), (2, 'x')]
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import ijson

from nanobot.importing.formats import ImportFormatError

MAX_DEPTH = 64  # real exports nest about 10 levels
EXACT_LINE_BYTES = 64 << 20  # a syntax error in a file this small is located by json.loads
_OPEN = {"start_map": dict, "start_array": list}
_CLOSE = ("end_map", "end_array")


class Counted:
    """A binary file that counts the bytes read (``done``), tells ``progress``, and skips a BOM."""

    def __init__(self, f: BinaryIO, progress: Callable[[int], None] | None = None):
        self.f = f
        self.done = 0
        self.progress = progress
        if f.read(3) != codecs.BOM_UTF8:
            f.seek(0)

    def read(self, n: int = -1) -> bytes:
        data = self.f.read(n)
        self.done += len(data)
        if self.progress is not None:
            self.progress(self.done)
        return data


def items(f: Counted, name: str) -> Iterator[tuple[int, Any]]:
    """``(n, value)`` for each item of the top-level list (from 1); a top-level object is item 1."""
    events = ijson.basic_parse(f, use_float=True)
    try:
        first = next(events, None)
        if first is None:
            raise ImportFormatError(f"{name}: empty; expected a JSON list of conversations")
        if first[0] != "start_array":
            yield 1, _build(events, *first, name)
        else:
            n = 0
            for ev, val in events:
                if ev == "end_array":
                    break
                n += 1
                yield n, _build(events, ev, val, f"{name}: item {n}")
        for _ in events:  # anything after the value is a syntax error yajl reports
            pass
    except ijson.JSONError as e:
        raise ImportFormatError(_where(f, name, e)) from None


def _build(events: Iterator[tuple[str, Any]], ev: str, val: Any, where: str) -> Any:
    """One value, from its first event on, built without recursion and at most MAX_DEPTH deep."""
    if ev not in _OPEN:
        return val
    root = _OPEN[ev]()
    stack: list[Any] = [root]
    keys: list[Any] = [None]
    for ev, val in events:
        if ev == "map_key":
            keys[-1] = val
            continue
        if ev in _CLOSE:
            stack.pop()
            keys.pop()
            if not stack:
                return root
            continue
        new = _OPEN[ev]() if ev in _OPEN else val
        parent = stack[-1]
        if isinstance(parent, list):
            parent.append(new)
        else:
            parent[keys[-1]] = new
        if ev in _OPEN:
            if len(stack) >= MAX_DEPTH:
                raise ImportFormatError(f"{where}: nested deeper than {MAX_DEPTH} levels; no export "
                                        "nests so deep, so this is not one (check the file)")
            stack.append(new)
            keys.append(None)
    raise ijson.IncompleteJSONError("premature EOF")


def _where(f: Counted, name: str, e: Exception) -> str:
    """A syntax error as one line naming its line: exact for files up to EXACT_LINE_BYTES (json.loads
    finds it again), else how far the read had come."""
    what = str(e).strip().splitlines()[0] if str(e).strip() else "syntax error"
    if "UTF8" in what or "UTF-8" in what:
        return f"{name}: not UTF-8 ({what}); save the file as UTF-8"
    try:
        if f.f.seek(0, 2) <= EXACT_LINE_BYTES:
            f.f.seek(0)
            raw = f.f.read()
            json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as u:
        line = raw[:u.start].count(b"\n") + 1
        return f"{name}:{line}: not UTF-8; save the file as UTF-8"
    except json.JSONDecodeError as j:
        return f"{name}:{j.lineno}: not valid JSON ({j.msg}); fix the syntax"
    except (RecursionError, OSError, ValueError):
        pass
    return f"{name}: not valid JSON ({what}) in its first {f.done:,} bytes; fix the syntax"
