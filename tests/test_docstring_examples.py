"""Every docstring example (``>>>``) in nanobot/ runs and holds: each module with one is run through
doctest, and every ``>>>`` line is an example doctest ran (none skipped, none a comment)."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "nanobot"
PROMPT = re.compile(r"^\s*>>> ", re.M)


def modules_with_examples(pkg: Path = PKG) -> list[str]:
    return [".".join(p.relative_to(pkg.parent).with_suffix("").parts).removesuffix(".__init__")
            for p in sorted(pkg.rglob("*.py")) if PROMPT.search(p.read_text())]


def test_the_examples_are_found():
    assert len(modules_with_examples()) > 50


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    lines = len(PROMPT.findall(Path(module.__file__).read_text()))
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples fail (python -m doctest -v)"
    assert result.attempted == lines, f"{name}: {lines} '>>>' lines, {result.attempted} run (skipped or comment-only)"
