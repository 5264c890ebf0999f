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


PRICING = ("def with_vat(net, rate=0.19):\n    return round(net * (1 + rate), 2)\n\n\n"
           "def split_bill(total, people):\n    return round(total / people, 2)\n\n\n"
           'if __name__ == "__main__":\n    print(split_bill(with_vat(151.2), 4))\n')


def test_a_read_ends_with_the_definition_the_message_names(home):
    """dev2, the 1.5B: "What does split_bill in pricing.py do?" was answered with with_vat, the file's first
    function. A read of a file that defines several names ends with the one the message names (any
    language, any file that spells a definition); a message naming none, or a one-definition file,
    gets the file alone."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.core.provenance import Provenance
    from nanobot.loop.judge import Judge
    from nanobot.tools.base import ToolContext
    from nanobot.tools.files import ReadFile
    from nanobot.workspace import init_workspace

    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "pricing.py").write_text(PRICING)
    (settings.workspace / "one.py").write_text("def split_bill(total, people):\n    return total / people\n")

    def read(path: str, said: str) -> str:
        agent = SimpleNamespace(provenance=Provenance(said=[said]), judge=Judge())  # a model that cannot judge
        ctx = ToolContext(settings=settings, agent=agent)
        return ReadFile().run(ReadFile.Args(path=path), ctx)

    out = read("pricing.py", "¿Qué hace split_bill en pricing.py?")
    assert out.endswith("[split_bill (named in the message) is lines 5-6:\ndef split_bill(total, people):\n"
                        "    return round(total / people, 2)]")
    assert out.startswith("pricing.py lines 1-10 of 10\ndef with_vat")
    assert "named in the message" not in read("pricing.py", "what's in pricing.py?")
    assert "named in the message" not in read("one.py", "what does split_bill do?")
    assert "named in the message" not in ReadFile().run(ReadFile.Args(path="pricing.py"), ToolContext(settings=settings))
    # a change the model is sure of: the read is the edit's source, no note to copy into ``old``
    # (the 1.5B wrote "square_area (named in the message)" as an edit's old text)
    for change, noted in ((0.96, False), (0.2, True)):
        judge = SimpleNamespace(sure=lambda agent, kind, p=change: (p >= 0.6) if kind == "change" else None)
        agent = SimpleNamespace(provenance=Provenance(said=["split_bill in pricing.py is wrong, fix it"]), judge=judge)
        out = ReadFile().run(ReadFile.Args(path="pricing.py"), ToolContext(settings=settings, agent=agent))
        assert ("named in the message" in out) is noted, change
