"""``tools.namedonly``: an edit of a Python file that also changed definitions the request does not
name is kept to the named ones, only where changing definitions is all it did."""

from __future__ import annotations

from nanobot.tools.namedonly import named_occurrence, named_only

CALC = "import math\n\n\ndef add(a, b):\n    return a + b\n\n\n@cache\ndef sub(a, b):\n    return a + b\n\n\nclass Box:\n    size = 1\n"


def test_only_the_named_definitions_take_the_edit():
    after = CALC.replace("a + b", "a - b").replace("size = 1", "size = 2")
    text, kept = named_only(CALC, after, "Bitte sub in calc.py reparieren: a - b")  # any language
    assert text == CALC.replace("@cache\ndef sub(a, b):\n    return a + b", "@cache\ndef sub(a, b):\n    return a - b")
    assert kept == ["Box", "add"]
    text, kept = named_only(CALC, after, "fix sub and make Box bigger")
    assert "size = 2" in text and "return a + b" in text and kept == ["add"]


def test_an_edit_that_does_more_than_change_definitions_is_not_split():
    fixed = CALC.replace("@cache\ndef sub(a, b):\n    return a + b", "@cache\ndef sub(a, b):\n    return a - b")
    assert named_only(CALC, fixed.replace("import math", "import os"), "fix sub") is None  # a statement changed
    assert named_only(CALC, fixed + "\n\ndef mul(a, b):\n    return a * b\n", "fix sub") is None  # one added
    assert named_only(CALC, CALC.replace("def add(a, b):\n    return a + b\n\n\n", ""), "fix sub") is None
    assert named_only(CALC, CALC.replace("size = 1", "size = 2"), "fix sub") is None  # the named one unchanged
    assert named_only(CALC, "def sub(:", "fix sub") is None


def test_of_several_occurrences_the_one_in_the_named_definition_is_picked():
    calc = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
    assert named_occurrence(calc, "return a + b", "In calc.py, fix sub: it should return a - b") == calc.rindex("return")
    assert named_occurrence(calc, "return a + b", "fix add and sub") is None  # both named: still ambiguous
    assert named_occurrence(calc, "return a + b", "fix the bug") is None
    assert named_occurrence(calc, "a", "fix sub") is None  # two occurrences inside sub
