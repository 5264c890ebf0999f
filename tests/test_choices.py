"""``tools.choices``: a string parameter whose description closes its set of values with quoted
alternatives ("choose between 'imperial' and 'metric'", the one BFCL development item that has such a
list) gets that set as its ``enum``; examples ("e.g.", "etc", "such as"), unquoted lists and
descriptions that only name parts or kinds are left free."""

from __future__ import annotations

import pytest

from nanobot.tools.choices import choices, described


@pytest.mark.parametrize("text, values", [
    ("Optional parameter to choose between 'imperial' and 'metric' systems.", ["imperial", "metric"]),
    ("Output level: 'brief', 'normal' or 'full'. Default is 'normal'.", ["brief", "normal", "full"]),
    ("Kind: 'sea creatures', 'bugs' and 'fish'.", ["sea creatures", "bugs", "fish"]),
])
def test_a_closed_list_in_the_description_is_found(text, values):
    assert choices(text) == values


@pytest.mark.parametrize("text", [
    "Mode of analysis, e.g. 'static' or 'dynamic'. Default is 'static'.",   # examples
    "Possible values: 'all', 'bug', 'fish', etc.",                          # an open list
    "Preferred cuisine such as Italian, Indian or Thai.",
    "The location (e.g., country) whose monarch is wanted.",
    "The point (latitude, longitude).",                                     # parts, not choices
    "Either a file path or a URL.",                                         # kinds, not values
    "The city and state, e.g. New York City, NY",
    "Sort order (asc, desc).",                                              # unquoted: left free
    "Sort order, either asc or desc.",
    "The name of the hotel.",
])
def test_examples_and_prose_are_not_choices(text):
    assert choices(text) == []


def test_described_adds_the_enum_and_the_default_and_leaves_typed_ones_alone():
    schema = {"type": "object", "required": ["mode"], "properties": {
        "mode": {"type": "string", "description": "Mode: 'walk', 'bike' or 'transit'. Default is 'drive'."},
        "units": {"type": "string", "description": "'m' or 'km'", "default": "cm"},
        "fixed": {"type": "string", "enum": ["a"], "description": "'x', 'y' or 'z'"},
        "count": {"type": "integer", "description": "'1' or '2'"},
        "legs": {"type": "array", "items": {"type": "string", "description": "'walk', 'bike' or 'transit'"}}}}
    out = described(schema)
    props = out["properties"]
    assert props["mode"]["enum"] == ["walk", "bike", "transit", "drive"]
    assert props["units"]["enum"] == ["m", "km", "cm"]
    assert props["fixed"]["enum"] == ["a"] and "enum" not in props["count"]
    assert props["legs"]["items"]["enum"] == ["walk", "bike", "transit"]
    assert "enum" not in schema["properties"]["mode"]  # a copy: the tool's own schema is unchanged
    assert described({"type": "object", "properties": {"q": {"type": "string"}}}) == {
        "type": "object", "properties": {"q": {"type": "string"}}}
