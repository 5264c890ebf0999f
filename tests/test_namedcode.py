"""``tools.namedcode``: the file one of the user's earlier messages named that defines a word of the
last message; none for a name no such file defines, a file never named, or a file named too long ago."""

from __future__ import annotations

from nanobot.tools.namedcode import defined_in


def test_the_file_named_earlier_that_defines_the_name(tmp_path):
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "units.js").write_text("export function toCelsius(f) {\n  return (f - 32) / 1.8;\n}\n")
    roots = [tmp_path]
    assert defined_in(["In calc.py, fix sub", "was macht add?"], roots) == "calc.py"  # any language
    assert defined_in(["look at units.js", "ok", "is toCelsius right?"], roots) == "units.js"
    assert defined_in(["In calc.py, fix sub", "what does mul do?"], roots) is None
    assert defined_in(["what does add do?"], roots) is None  # no earlier message
    assert defined_in(["calc.py", "a", "b", "c", "what does add do?"], roots) is None  # named too long ago
