"""An MCP schema's regular expressions, kept from taking exponential time on the arguments.

jsonschema matches with Python's ``re``, which backtracks without limit: ``^(a+)+$`` against thirty
``a``s and a ``!`` doubles its work per character. So the validator's ``pattern`` and
``patternProperties`` keywords (``KEYWORDS``) match with the ``regex`` module under a time limit,
and a match that takes longer than ``LIMIT_S`` is refused as invalid arguments. jsonschema's own
code also matches ``patternProperties`` keys with ``re`` (for ``additionalProperties`` and
``unevaluatedProperties``), out of reach of a keyword, so ``vet_keys`` refuses a schema whose such
key repeats a group holding another repeat or an alternation (``(a+)+``, ``(a|ab)*``): the shapes
that backtrack exponentially (a safe one such as ``^[a-z]+(_[a-z]+)*$`` is refused too: such keys
are rare in tool schemas, and a key matched without a time limit has to be beyond doubt).

>>> nested_repeat(r"^(a+)+$"), nested_repeat(r"^(a|ab)*$"), nested_repeat(r"^x-[a-z_][a-z0-9_]{0,30}$")
(True, True, False)
"""

from __future__ import annotations

import re
from re import _constants as sre
from re import _parser as sre_parser
from typing import Any

import regex
from jsonschema import ValidationError

from nanobot.base.errors import ToolError

LIMIT_S = 0.05  # seconds one pattern may take on one value


def matches(pattern: str, text: str) -> bool:
    """``re.search(pattern, text)`` as JSON Schema means it, in at most ``LIMIT_S`` (else ValidationError)."""
    try:
        return regex.search(pattern, text, timeout=LIMIT_S) is not None
    except TimeoutError:
        raise ValidationError(f"matching {text[:40]!r} against the pattern {pattern[:60]!r} took longer "
                              f"than {LIMIT_S:g} s; refused") from None
    except regex.error:
        raise ValidationError(f"the pattern {pattern[:60]!r} is not a regular expression nanobot can use") from None


def _pattern(validator, patrn, instance, schema):
    if validator.is_type(instance, "string"):
        try:
            if not matches(patrn, instance):
                yield ValidationError(f"{instance[:60]!r} does not match {patrn[:60]!r}")
        except ValidationError as e:
            yield e


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in pattern_properties.items():
        for key, value in instance.items():
            try:
                if matches(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)
            except ValidationError as e:
                yield e


KEYWORDS = {"pattern": _pattern, "patternProperties": _pattern_properties}


def nested_repeat(pattern: str) -> bool:
    """Whether ``pattern`` repeats without bound a group that holds a repeat or an alternation
    (or does not parse)."""
    try:
        parsed = sre_parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return True
    repeats = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
    stack: list[tuple[Any, bool]] = [(parsed, False)]
    while stack:
        items, under = stack.pop()
        for op, av in items:
            if op in repeats:
                if under and av[1] > 1:
                    return True
                stack.append((av[2], under or av[1] == sre.MAXREPEAT))
            elif op is sre.BRANCH:
                if under:
                    return True
                stack += [(b, under) for b in av[1]]
            elif op is sre.SUBPATTERN:
                stack.append((av[-1], under))
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                stack.append((av[1], under))
            elif op is sre.ATOMIC_GROUP:
                stack.append((av, under))
    return False


def vet_keys(name: str, schema: Any) -> None:
    """Refuse (ToolError) a ``patternProperties`` key that ``nested_repeat`` finds, anywhere in ``schema``."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            props = node.get("patternProperties")
            for key in props if isinstance(props, dict) else ():
                if nested_repeat(key):
                    raise ToolError(f"{name}: the server's input schema has a patternProperties key "
                                    f"{key[:60]!r} that can take exponential time to match; refused")
            stack += node.values()
        elif isinstance(node, list):
            stack += node
