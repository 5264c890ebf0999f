"""Values a string parameter's description enumerates, made an ``enum`` for the template call grammar.

Schemas written for people often list a parameter's values only in prose, as quoted alternatives:
"Optional parameter to choose between 'imperial' and 'metric' systems." Left free, a small model
writes what the user said where the function takes one of those values. ``described`` returns the
schema with such a list as the parameter's ``enum`` (the description's default and the schema's
``default`` included), so the argument grammar admits only those values. Only quoted alternatives
joined by "or"/"and" are taken ("'a', 'b' or 'c'"), at most three words each, never after "e.g.",
"etc", "such as", "like" or "including"; unquoted lists ("(red, green)", "either fast or slow") are
left free.
``enum``/``const``/``pattern``/``format`` parameters are left as they are.

>>> described({"properties": {"u": {"type": "string", "description": "Units: 'metric' or 'imperial'."}}})
{'properties': {'u': {'type': 'string', 'description': "Units: 'metric' or 'imperial'.", 'enum': ['metric', 'imperial']}}}
>>> choices("Units, e.g. 'm' or 'cm'."), choices("A city name or coordinates."), choices("Mode (a, b, c).")
([], [], [])
"""

from __future__ import annotations

import re

_LISTS = (re.compile(r"((?:'[^']+'\s*,\s*)*'[^']+'\s*,?\s*(?:or|and)\s*'[^']+')"),)  # "'metric' or 'imperial'"
_OPEN_EXAMPLES = re.compile(r"\be\.g\b|\betc\b|such as|for example|\blike\b|including|\.\.\.", re.I)
_SPLIT = re.compile(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+")
_WORD = re.compile(r"[\w][\w+\-/.]*")
_QUOTED = re.compile(r"'([\w][\w +\-/.]*)'|\"([\w][\w +\-/.]*)\"")
_DEFAULT = re.compile(r"default(?:s)?(?: value)?(?: is| to)?\s*:?\s*'([^']+)'", re.I)


def _items(text: str) -> list[str]:
    parts = [p.strip() for p in _SPLIT.split(text.strip().rstrip(",")) if p.strip()]
    out = []
    for part in parts:
        quoted = _QUOTED.fullmatch(part)
        if quoted:
            value = quoted.group(1) or quoted.group(2)
            if len(value.split()) > 3:
                return []
        elif _WORD.fullmatch(part) and part.lower() not in ("a", "an", "the"):
            value = part
        else:
            return []
        out.append(value)
    return out if 2 <= len(out) <= 12 and len(set(out)) == len(out) else []


def choices(description: str) -> list[str]:
    """The closed list of values ``description`` gives, [] when it gives none."""
    for pattern in _LISTS:
        for found in pattern.finditer(description or ""):
            text, before = found.group(1), description[max(0, found.start() - 16):found.start(1)]
            if _OPEN_EXAMPLES.search(before + text) or not (values := _items(text)):
                continue
            return values
    return []


def described(schema: dict) -> dict:
    """``schema`` with each described list of values as its parameter's ``enum`` (a copy; nested too)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if "properties" in out and isinstance(out["properties"], dict):
        out["properties"] = {k: described(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = described(out["items"])
    if out.get("type", "string") == "string" and not {"enum", "const", "pattern", "format", "properties",
                                                       "items", "anyOf", "oneOf", "$ref"} & set(out):
        values = choices(out.get("description", ""))
        if values:
            for default in (*_DEFAULT.findall(out.get("description", "")), out.get("default")):
                if isinstance(default, str) and default and default not in values:
                    values.append(default)
            out["enum"] = values
    return out
