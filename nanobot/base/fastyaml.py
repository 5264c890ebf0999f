"""Frontmatter YAML, fast: ``load(text)`` equals ``yaml.safe_load(text)``, without PyYAML for the
common shape, so a cold start over 1,000 docs stays within the TOC's time budget.

The common shape is flat ``key: value`` lines whose values are plain or single-quoted strings, or a
flow list of plain strings (``tags: [rust, csv]``), plus comment and blank lines. Anything else -- an
indented or continued line, a value YAML would read as a number, bool, date or null, a quote, anchor,
tag, block scalar, repeated key or unusual character -- goes to PyYAML (libyaml's parser), which also
says where malformed YAML breaks. ``tests/test_vault_frontmatter.py`` checks the two agree.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR, _MERGE = "tag:yaml.org,2002:str", "tag:yaml.org,2002:merge"
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S.*)")
_PLAIN = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@`\s][^\t]*")
_QUOTED = re.compile(r"'((?:[^']|'')*)'")
_resolve = yaml.resolver.Resolver().resolve
_BOOL_NULL = frozenset("y n yes no true false on off null".split())  # keys YAML would not read as str
_IMPLICIT = frozenset(c for cs in yaml.resolver.Resolver.yaml_implicit_resolvers for c in cs or "")


def _plain(v: str, in_flow: bool = False) -> str | None:
    """``v`` as YAML reads a plain string, or None when that is not certain."""
    if not _PLAIN.fullmatch(v) or ": " in v or " #" in v or v.endswith((":", " ")) or \
            (in_flow and any(c in v for c in ",[]{}:")):
        return None
    if v[0] not in _IMPLICIT:  # no implicit type (bool, int, float, null, date...) starts so
        return v
    return v if _resolve(yaml.ScalarNode, v, (True, False)) == _STR else None


def _value(v: str) -> Any:
    if m := _QUOTED.fullmatch(v):
        return m.group(1).replace("''", "'")
    if v.startswith("[") and v.endswith("]"):
        inner = v[1:-1].strip()
        items = [_plain(i.strip(), True) for i in inner.split(",")] if inner else []
        return None if None in items else items
    return _plain(v)


def _simple(text: str) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for line in text.split("\n"):
        line = line.removesuffix("\r")  # a lone CR (or any control character) is not printable: PyYAML
        if not line.isprintable():
            return None
        if not line.strip(" ") or line.startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None or m.group(1) in out or m.group(1).lower() in _BOOL_NULL:
            return None
        value = _value(m.group(2))
        if value is None:
            return None
        out[m.group(1)] = value
    return out


def load(text: str) -> Any:
    """``yaml.safe_load(text)``; raises ``yaml.YAMLError`` as it does."""
    fast = _simple(text)
    if fast:  # (an empty result: leave "nothing at all" to YAML, which says None)
        return fast
    return yaml.load(text, Loader=_Loader)
