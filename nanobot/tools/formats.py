"""The shape a string parameter's description declares, made a ``pattern`` for the template call grammar.

Schemas written for people declare a value's form in prose: "The start date in the format YYYY-MM-DD",
"The city, in the format of 'City, State', such as 'Berkeley, CA'". Left free, a small model writes
"2023-10-1" or "San Jose". ``shaped`` returns the schema with such a form as the parameter's
``pattern``, read from the schema's own text, in any language of the description:

- a date or time written in its letters (``YYYY-MM-DD``, ``MM/DD/YYYY``, ``HH:MM``, ``YYYY-MM-DDTHH:MM:SS``);
  each two-letter field admits one or two digits and ``padded`` writes it with two afterwards, so a
  model that meant "the 1st" is never forced on to a second digit it did not mean;
- quoted examples split at ", " whose fields have a fixed form (two or three capitals, a run of
  digits) beside free text: 'Berkeley, CA' and 'New York, NY' give "free text, two capitals".
  Examples with no free field ('NEW, HOT') or none of fixed form ('Python, Java') declare nothing.

The description's quoted lowercase words ('today', 'dontcare') and the schema's default stay admitted.
``enum``/``const``/``pattern``/``format`` parameters are left as they are.

>>> shaped({"type": "string", "description": "Start date, YYYY-MM-DD."})["pattern"]
'^([0-9]{4}-[0-9]{1,2}-[0-9]{1,2})$'
>>> shaped({"type": "string", "description": "City, such as 'Berkeley, CA' or 'New York, NY'."})["pattern"]
'^([^,"]+, [A-Z]{2})$'
>>> padded({"properties": {"d": {"type": "string", "description": "In MM/DD/YYYY."}}}, {"d": "3/7/2024"})
{'d': '03/07/2024'}
"""

from __future__ import annotations

import re

_FIELDS = {"YYYY": "[0-9]{4}", "YY": "[0-9]{2}", "MM": "[0-9]{1,2}", "DD": "[0-9]{1,2}", "HH": "[0-9]{1,2}",
           "SS": "[0-9]{1,2}"}
# a date/time spelled in its field letters: at least two fields joined by - / : . T or a space, and
# an ISO "Z"; taken whole or not at all ("YYYY-MM-DDTHH:MM:SSZ" is not "YYYY-MM-DDTHH:MM")
_TOKEN = re.compile(r"(?<![A-Za-z])((?:YYYY|YY|MM|DD|HH|SS)(?:(?:[-/:.]|T| )(?:YYYY|YY|MM|DD|HH|SS))++Z?+)(?![A-Za-z])",
                    re.I)
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


def _tokens(description: str) -> list[str]:
    out = []
    for token in dict.fromkeys(t.upper() for t in _TOKEN.findall(description)):
        out.append(re.sub(r"YYYY|YY|MM|DD|HH|SS", lambda m: _FIELDS[m.group(0)], token).replace(".", r"\."))
    return out


def pattern(prop: dict) -> str | None:
    """The ``pattern`` ``prop``'s description declares, None when it declares none."""
    description = prop.get("description") or ""
    forms = _tokens(description) or [s for s in [_example_shape(description)] if s]
    if not forms:
        return None
    words = [w for a, b in _QUOTED.findall(description) if _WORD.fullmatch(w := a or b)]
    default = prop.get("default")
    literal = [re.escape(w) for w in dict.fromkeys([*words, *([default] if isinstance(default, str) and default
                                                                 else [])])]
    return "^(" + "|".join([*forms, *literal]) + ")$"


def shaped(schema: dict) -> dict:
    """``schema`` with each declared form as its string parameter's ``pattern`` (a copy; nested too)."""
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


def padded(schema: dict, args: dict) -> dict:
    """``args`` with each value of a declared date or time written with two-digit fields ("2023-10-1"
    -> "2023-10-01"): the grammar admitted one digit so the model was never forced to a second."""
    props = (schema or {}).get("properties") or {}
    out = dict(args)
    for key, value in args.items():
        prop = props.get(key) or {}
        if not isinstance(value, str) or prop.get("type") != "string" or _SKIP & set(prop):
            continue
        for token in _tokens(prop.get("description") or ""):
            if re.fullmatch(token, value):
                out[key] = re.sub(r"(?<![0-9])([0-9])(?![0-9])", r"0\1", value)
                break
    return out
