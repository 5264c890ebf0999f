"""The shape a string parameter's description declares, made a ``pattern`` for the template call grammar.

Schemas written for people declare a value's form in prose: "The start date in the format YYYY-MM-DD",
"The city, in the format of 'City, State', such as 'Berkeley, CA'". Left free, a small model writes
"2023-10-1" or "San Jose". ``shaped`` returns the schema with such a form as the parameter's
``pattern``, read from the schema's own text, in any language of the description:

- a date or time written in its letters (``YYYY-MM-DD``, ``MM/DD/YYYY``, ``HH:MM``, ``YYYY-MM-DDTHH:MM:SS``):
  the grammar admits what a model writes when it means such a date (one-digit fields, an ISO date, a
  12-hour time) and ``written`` puts the value in the declared form after the call (``dateforms``);
- quoted examples split at ", " whose fields have a fixed form (two or three capitals, a run of
  digits) beside free text: 'Berkeley, CA' and 'New York, NY' give "free text, two capitals".
  Examples with no free field ('NEW, HOT') or none of fixed form ('Python, Java') declare nothing.

The description's quoted lowercase words ('today', 'dontcare') and the schema's default stay admitted.
``enum``/``const``/``pattern``/``format`` parameters are left as they are.
"""

from __future__ import annotations

import re

from nanobot.tools.dateforms import Form

_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_WORD = re.compile(r"[a-z_]+")
_SKIP = {"enum", "const", "pattern", "format", "properties", "items", "anyOf", "oneOf", "$ref"}


def _field(part: str) -> str | None:
    """A field's fixed form (a regex) or None for free text."""
    if re.fullmatch(r"[A-Z]{2,3}", part):
        return f"[A-Z]{{{len(part)}}}"
    if re.fullmatch(r"[0-9]+", part):
        return f"[0-9]{{{len(part)}}}"
    return None


def _example_shape(description: str) -> str | None:
    """The form the quoted ", "-joined examples share: a fixed field beside a free one; else None. A
    lone all-free string names the fields ('City, State'); a second one ('City, Country', 'Paris,
    France') shows a field of fixed form elsewhere may be free text too."""
    shapes, free = set(), 0
    for a, b in _QUOTED.findall(description):
        parts = (a or b).split(", ")
        fields = tuple(_field(p) for p in parts)
        if len(parts) >= 2:
            shapes.add(fields) if any(fields) else None
            free += not any(fields)
    if len(shapes) != 1:
        return None
    fields = shapes.pop()
    if all(fields):
        return None
    return ", ".join((f if free <= 1 else None) or '[^,"]+' for f in fields)


def pattern(prop: dict) -> str | None:
    """The ``pattern`` ``prop``'s description declares, None when it declares none."""
    description = prop.get("description") or ""
    forms = [f.loose for f in Form.find(description)] or [s for s in [_example_shape(description)] if s]
    if not forms:
        return None
    words = [w for a, b in _QUOTED.findall(description) if _WORD.fullmatch(w := a or b)]
    default = prop.get("default")
    literal = [re.escape(w) for w in dict.fromkeys([*words, *([default] if isinstance(default, str) and default
                                                                 else [])])]
    return "^(" + "|".join([*forms, *literal]) + ")$"


def shaped(schema: dict) -> dict:
    """``schema`` with each declared form as its string parameter's ``pattern`` (a copy; nested too).

    >>> shaped({"type": "string", "description": "Start date, YYYY-MM-DD."})["pattern"]
    '^([0-9]{4}-[0-9]{1,2}-[0-9]{1,2})$'
    >>> shaped({"type": "string", "description": "City, such as 'Berkeley, CA' or 'New York, NY'."})["pattern"]
    '^([^,"]+, [A-Z]{2})$'
    >>> written({"properties": {"d": {"type": "string", "description": "In MM/DD/YYYY."}}}, {"d": "2024-3-7"})
    {'d': '03/07/2024'}
    """
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: shaped(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = shaped(out["items"])
    if out.get("type") == "string" and not _SKIP & set(out) and (found := pattern(out)):
        out["pattern"] = found
    return out


def written(schema: dict, args: dict) -> dict:
    """``args`` with each value of a declared date or time written in its declared form
    (``dateforms.Form.written``: "2023-10-1" -> "2023-10-01", "2022-05-12" -> "05-12-2022" for MM-DD-YYYY)."""
    props = (schema or {}).get("properties") or {}
    out = dict(args)
    for key, value in args.items():
        prop = props.get(key) or {}
        if isinstance(value, str) and prop.get("type") == "string" and not _SKIP & set(prop):
            for form in Form.find(prop.get("description") or ""):
                if (new := form.written(value)) != value:
                    out[key] = new
                    break
    return out
