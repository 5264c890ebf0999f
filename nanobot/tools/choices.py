"""Values a string parameter's description enumerates, made an ``enum`` for the template call grammar.

Schemas written for people often list a parameter's values only in prose: "The mode of transportation
(walk, bike, transit, drive).", "Type of the scale, either major or minor.", "The time display format:
'12h' or '24h'.". Left free, a model writes what the user said ("public transportation") where the
function takes "transit". ``described`` returns the schema with such a list as the parameter's ``enum``
(the description's default and the schema's ``default`` included), so the argument grammar admits only
those values. Only lists that close the set are taken: a parenthesis holding nothing but the list,
"one of / possible values / options / either ... or / choose between ...", or quoted alternatives
("'a' or 'b'"); never one with "e.g.", "etc", "such as", "like" or "including". Unquoted values are single
words, quoted ones at most three. ``enum``/``const``/``pattern``/``format`` parameters are left as they are.

>>> described({"properties": {"mode": {"type": "string", "description": "Mode (walk, bike, transit)."}}})
{'properties': {'mode': {'type': 'string', 'description': 'Mode (walk, bike, transit).', 'enum': ['walk', 'bike', 'transit']}}}
>>> choices("Units, e.g. 'm' or 'cm'."), choices("A city name or coordinates."), choices("At (lat, lon).")
([], [], [])
"""

from __future__ import annotations

import re

_OPEN = r"(?:one of|possible values(?: are)?|allowed values(?: are)?|valid values(?: are)?|options(?: are)?|either|choose between)"
_LISTS = (re.compile(r"\(([^()]*)\)"),                                     # "(walk, bike, transit)"
          re.compile(rf"\b{_OPEN}\s*:?\s*([^.;()]*)", re.I),               # "either major or minor"
          re.compile(r"((?:'[^']+'\s*,\s*)*'[^']+'\s*,?\s*(?:or|and)\s*'[^']+')"))  # "'12h' or '24h'"
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
    for i, pattern in enumerate(_LISTS):
        for found in pattern.finditer(description or ""):
            text, before = found.group(1), description[max(0, found.start() - 16):found.start(1)]
            if _OPEN_EXAMPLES.search(before + text) or not (values := _items(text)):
                continue
            if i == 0 and len(values) < 3 and not re.search(r"\bor\b|'", text):
                continue  # "(latitude, longitude)" names parts, not choices
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
