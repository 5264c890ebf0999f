"""Which characters of a rendered prompt are the chat template's own markup and which are content.

The in-process backend tokenizes markup with special tokens parsed (the template's ``<|im_start|>``
becomes the control token) and every piece of content without: the same characters in a file, a web
page, an MCP result, a memory line, CONTEXT.md or the user's own message stay text and can never
open a turn. ``render`` finds the two by rendering the template once with every message content and
every string of the tool specs replaced by a unique sentinel, then putting the originals back where
the sentinels came out (raw, or JSON-escaped where the template writes ``tool | tojson``).

>>> r = Rendered((("<|im_start|>user\\n", True), ("<|im_end|>", False)))
>>> (r + "go").parts[-1], r[:13].parts
(('go', False), (('<|im_start|>u', True),))
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable

from jinja2.utils import htmlsafe_json_dumps

from nanobot.base.errors import ModelError

Part = tuple[str, bool]  # (text, is_markup)


class Rendered(str):
    """A rendered prompt that remembers its parts; ``+`` (a prefill: content) and prefix slices keep them."""

    parts: tuple[Part, ...]

    def __new__(cls, parts):
        obj = super().__new__(cls, "".join(p for p, _ in parts))
        obj.parts = tuple(p for p in parts if p[0])
        return obj

    def __add__(self, other):
        return Rendered(self.parts + (other.parts if isinstance(other, Rendered) else ((str(other), False),)))

    def __radd__(self, other):
        return Rendered(((str(other), False), *self.parts))

    def __getitem__(self, key):
        if not isinstance(key, slice) or key.step not in (None, 1):
            return str.__getitem__(self, key)
        start, stop, _ = key.indices(len(self))
        out, pos = [], 0
        for text, markup in self.parts:
            a, b = max(start - pos, 0), min(stop - pos, len(text))
            if a < b:
                out.append((text[a:b], markup))
            pos += len(text)
        return Rendered(out)


def tokenize(tok: Callable[..., list[int]], text: str) -> list[int]:
    """``tok(bytes, add_bos=False, special=...)`` over the parts of ``text``: markup with special
    tokens, content (and any plain ``str``: text of unknown origin) without."""
    parts = text.parts if isinstance(text, Rendered) else ((text, False),)
    out: list[int] = []
    for piece, markup in parts:
        out += tok(piece.encode("utf-8"), add_bos=False, special=markup)
    return out


def render(formatter: Callable[..., str], messages: list[dict], tools: list[dict] | None = None,
           **kw) -> Rendered:
    """``formatter(messages, tools=..., **kw)`` with every content and tool-spec string kept apart."""
    tag = secrets.token_hex(8)
    originals: list[str] = []

    def mark(value: str) -> str:
        if not value:  # nothing to keep apart; a template may test a content for emptiness
            return value
        originals.append(value)
        return f"\x1e{tag}:{len(originals) - 1}<\xe9\x1e"

    marked = [m | {"content": mark(m["content"])} for m in messages]
    text = formatter(marked, tools=_strings(tools, mark) if tools else tools, **kw)
    # raw, or as a JSON string: control characters escaped, then ``<`` (HTML-safe) and é (ASCII) perhaps
    sentinel = re.compile(rf"(\x1e|\\u001e){tag}:(\d+)(<|\\u003c)(\xe9|\\u00e9)(?:\x1e|\\u001e)")
    parts: list[Part] = []
    pos = 0
    for m in sentinel.finditer(text):
        value = originals[int(m.group(2))]
        if m.group(1) != "\x1e":
            value = json.dumps(value, ensure_ascii=m.group(4) != "\xe9")[1:-1]
            if m.group(3) != "<":
                value = str(htmlsafe_json_dumps(value, dumps=lambda v: v))
        parts += [(text[pos: m.start()], True), (value, False)]
        pos = m.end()
    parts.append((text[pos:], True))
    if tag in "".join(p for p, markup in parts if markup).lower():  # a sentinel written some other way
        raise ModelError("the chat template rewrites message content or tool specs; nanobot cannot keep "
                         "them apart from its markup; set chat_format for this model")
    return Rendered(parts)


def _strings(value, mark):
    """``value`` with every string (not the keys) replaced by ``mark(string)``."""
    if isinstance(value, str):
        return mark(value)
    if isinstance(value, dict):
        return {k: _strings(v, mark) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strings(v, mark) for v in value]
    return value
