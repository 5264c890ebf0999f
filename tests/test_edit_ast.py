"""Issue 79: an edit of a Python file is judged by what it does to the code (``tools.pyloss``), not by
its lines. Real files in a real git repository; the tests the edit leaves are run with pytest."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from nanobot.config import load_settings
from nanobot.core.provenance import PolicyError, Provenance, Refusal
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.editloss import lost
from nanobot.tools.files import EditFile, WriteFile
from nanobot.workspace import init_workspace

MODULE = 'def slugify(text):\n    return "-".join(text.lower().split())\n\n\ndef shout(text):\n    return text.upper()\n'
TESTS = ("from textutil import slugify, shout\n\n\ndef test_slugify():\n    assert slugify(\"A b\") == \"a-b\"\n\n\n"
         "def test_shout():\n    assert shout(\"hi\") == \"HI\"\n")
WIDENED = TESTS.replace("slugify, shout\n", "slugify, shout, reverse_words\n") + (
    "\n\ndef test_reverse_words():\n    assert reverse_words(\"a b\") == \"b a\"\n")


def _repo(home, said: list[str]):
    """A git repository as the workspace, with a module of two functions (a third added, as the issue's
    second step left it) and a test file for the first two."""
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    ws = settings.workspace
    (ws / "textutil.py").write_text(MODULE + '\n\ndef reverse_words(text):\n    return " ".join(text.split()[::-1])\n')
    (ws / "test_textutil.py").write_text(TESTS)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    agent = SimpleNamespace(provenance=Provenance(said=said), judge=Judge())
    return ToolContext(settings=settings, agent=agent), ws


def _pytest(ws) -> str:
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                         cwd=ws, capture_output=True, text=True)
    return run.stdout.strip().splitlines()[-1]


def test_an_import_widened_and_a_test_added_is_no_loss_and_the_tests_pass(home):
    """The issue's third step: the edit extends the import line and adds a test. Nothing disappears."""
    ask = "Now add a test for reverse_words to test_textutil.py."
    ctx, ws = _repo(home, [ask])
    EditFile().run(EditFile.Args(path="test_textutil.py", old="from textutil import slugify, shout\n",
                                 new="from textutil import slugify, shout, reverse_words\n"), ctx)
    ctx, ws = _repo(home, [ask])
    WriteFile().run(WriteFile.Args(path="test_textutil.py", content=WIDENED), ctx)  # the whole file, rewritten
    assert (ws / "test_textutil.py").read_text() == WIDENED
    assert _pytest(ws).startswith("3 passed")


def test_a_definition_or_an_imported_name_that_disappears_unasked_is_refused(home):
    ask = "Now add a test for reverse_words to test_textutil.py."
    ctx, ws = _repo(home, [ask])
    dropped = WIDENED.replace('\n\ndef test_shout():\n    assert shout("hi") == "HI"\n', "")
    with pytest.raises(PolicyError) as err:
        WriteFile().run(WriteFile.Args(path="test_textutil.py", content=dropped), ctx)
    assert err.value.kind is Refusal.LOSES_LINES and "def test_shout():" in str(err.value)
    narrowed = WIDENED.replace("slugify, shout, reverse_words", "slugify, reverse_words")
    with pytest.raises(PolicyError) as err:
        WriteFile().run(WriteFile.Args(path="test_textutil.py", content=narrowed), ctx)
    assert "'from textutil import shout'" in str(err.value)
    assert (ws / "test_textutil.py").read_text() == TESTS and _pytest(ws).startswith("2 passed")


def test_a_block_that_disappears_is_a_loss_unless_its_definition_is_named(home):
    """A block (``if``, a top-level call) gone from a definition nobody named is lost; one gone from the
    function the request names is the body the user asked to change."""
    code = "def clamp(x):\n    if x < 0:\n        return 0\n    return x\n\n\nprint(clamp(-1))\n"
    assert lost(code, "def clamp(x):\n    return x\n\n\nprint(clamp(-1))\n", ["add a docstring to main.py"],
                "main.py") == ["if x < 0:"]
    assert lost(code, "def clamp(x):\n    return max(x, 0)\n\n\nprint(clamp(-1))\n", ["simplify clamp"], "main.py") == []
    assert lost(code, "def clamp(x):\n    if x < 0:\n        return 0\n    return x\n", ["add a docstring"],
                "main.py") == ["print(clamp(-1))"]


def test_a_python_file_that_does_not_parse_is_judged_by_its_lines(home):
    """No parse tree to read: the line rule stays (a line gone, nobody asked)."""
    assert lost("def f(:\n    x = 1\n", "def f(:\n", ["add g to a.py"], "a.py") == ["x = 1"]
    assert lost("x = 1\ny = 2\n", "x = 1\n", ["add g to a.py"], "a.py") == ["y = 2"]  # parses: a name is gone


def test_a_line_extended_in_a_file_judged_by_lines_is_no_loss(home):
    """The coding bench, the 1.5B: "Now add a test for multiply to calc.test.js." widened
    ``const { add, subtract } = require("./calc");`` and added a test; the line rule refused it as
    removing the require line (its one new word was the user's, so the line counted as dictated, not
    changed). A line whose every token the new line keeps, in order, is extended, in any language; a
    token dropped is still a loss."""
    before = 'const { add, subtract } = require("./calc");\n\ntest("add", () => {\n  ok(add(1, 1));\n});\n'
    after = before.replace("{ add, subtract }", "{ add, subtract, multiply }") + (
        '\ntest("multiply", () => {\n  ok(multiply(2, 3));\n});\n')
    ask = ["Now add a test for multiply to calc.test.js."]
    assert lost(before, after, ask, "calc.test.js") == []
    narrowed = after.replace("{ add, subtract, multiply }", "{ add, multiply }")
    assert lost(before, narrowed, ask, "calc.test.js") == ['const { add, subtract } = require("./calc");']


def test_an_edit_that_restates_the_line_after_its_old_text_leaves_it_once(home):
    """The coding bench, the 1.5B: "Rename the function greeting to welcome in greet.py and app.py." became
    old ``def greeting(name):``, new that line renamed plus the body line after it as it stands: greet.py
    got the return line twice. The lines new restates of those around old stay in the file once."""
    ctx, ws = _repo(home, ["Rename the function shout to yell in textutil.py"])
    EditFile().run(EditFile.Args(path="textutil.py", old="def shout(text):",
                                 new="def yell(text):\n    return text.upper()"), ctx)
    assert (ws / "textutil.py").read_text() == (MODULE.replace("def shout", "def yell") +
                                                '\n\ndef reverse_words(text):\n    return " ".join(text.split()[::-1])\n')


def test_a_test_method_added_to_a_unittest_class_is_no_change_of_the_class(home):
    """"Ahora añade una prueba para remove_contact en test_agenda.py" after "Añade ... un método
    remove_contact(name)": the 1.5B put the new test method after the class's last line, and the edit
    was refused as a change of AgendaTest, which the user did not name. A class that only gains a method,
    every statement it had kept, is not changed; one whose own method is rewritten still is."""
    case = ("import unittest\n\nfrom textutil import shout\n\n\nclass ShoutTest(unittest.TestCase):\n"
            "    def test_shout(self):\n        self.assertEqual(shout(\"hi\"), \"HI\")\n")
    said = ["Add a method remove_contact(name) to textutil.py", "Now add a test for remove_contact to test_textutil.py."]
    ctx, ws = _repo(home, said)
    (ws / "test_textutil.py").write_text(case)
    added = "\n\n    def test_remove_contact(self):\n        self.assertTrue(True)\n"
    last = '        self.assertEqual(shout("hi"), "HI")\n'
    EditFile().run(EditFile.Args(path="test_textutil.py", old=last, new=last.rstrip("\n") + added), ctx)
    assert (ws / "test_textutil.py").read_text() == case.rstrip("\n") + added
    (ws / "test_textutil.py").write_text(case)
    with pytest.raises(PolicyError):
        EditFile().run(EditFile.Args(path="test_textutil.py", old=last,
                                     new=last.replace('"HI"', '"HI!"').rstrip("\n") + added), ctx)


def test_a_new_test_file_with_no_test_in_it_is_refused(home):
    """"Écris un test pour spread dans un nouveau fichier test_notes.py": the 1.5B wrote spread itself
    into test_notes.py, and pytest collected nothing from it. A test file (``test_*.py``) whose text
    defines no test is refused with what a test looks like; a test is written."""
    from nanobot.base.errors import ToolError

    ctx, ws = _repo(home, ["Write a test for reverse_words in a new file test_more.py."])
    with pytest.raises(ToolError, match="holds no test"):
        WriteFile().run(WriteFile.Args(path="test_more.py", content=MODULE), ctx)
    assert not (ws / "test_more.py").exists()
    test = "from textutil import reverse_words\n\n\ndef test_reverse_words():\n    assert reverse_words(\"a b\") == \"b a\"\n"
    WriteFile().run(WriteFile.Args(path="test_more.py", content=test), ctx)
    assert (ws / "test_more.py").read_text() == test


def test_a_test_that_takes_a_parameter_pytest_cannot_fill_is_refused(home):
    """"Écris un test pour spread dans un nouveau fichier test_notes.py": the 1.5B wrote
    ``def test_spread(grades):``, and pytest stopped at "fixture 'grades' not found". Such a test is
    refused (write_file, edit_file); pytest's own fixtures, a ``conftest.py`` fixture, a ``parametrize``
    name, and a parameter another test of the folder already takes are filled, and pass."""
    from nanobot.base.errors import ToolError
    from nanobot.tools.append import AppendFile

    ctx, ws = _repo(home, ["Write a test for reverse_words in a new file test_more.py."])
    bad = "from textutil import reverse_words\n\n\ndef test_reverse_words(words):\n    assert reverse_words(words) == words\n"
    (ws / "probe").mkdir()  # the premise: pytest itself does not run such a test
    (ws / "probe" / "test_probe.py").write_text(bad.replace("from textutil import reverse_words\n", "reverse_words = str\n"))
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                          str(ws / "probe")], capture_output=True, text=True)
    assert ran.returncode != 0 and "fixture 'words' not found" in ran.stdout
    with pytest.raises(ToolError, match=r"test_reverse_words\(words\) takes a parameter that pytest cannot fill"):
        WriteFile().run(WriteFile.Args(path="test_more.py", content=bad), ctx)
    assert not (ws / "test_more.py").exists()
    with pytest.raises(ToolError, match="cannot fill"):
        EditFile().run(EditFile.Args(path="test_textutil.py", old="def test_shout():", new="def test_shout(text):"), ctx)
    with pytest.raises(ToolError, match="cannot fill"):
        AppendFile().run(AppendFile.Args(path="test_textutil.py", text=bad.split("\n\n\n")[1]), ctx)
    good = ("import pytest\n\nfrom textutil import reverse_words\n\n\n@pytest.mark.parametrize('words', ['a b'])\n"
            "def test_reverse_words(words, tmp_path, sample):\n    assert reverse_words(words) == 'b a'\n")
    (ws / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture\ndef sample():\n    return 1\n")
    WriteFile().run(WriteFile.Args(path="test_more.py", content=good), ctx)
    (ws / "test_plugin.py").write_text("def test_uses(mocker):\n    pass\n")  # a plugin's fixture the project uses
    EditFile().run(EditFile.Args(path="test_textutil.py", old="def test_shout():", new="def test_shout(mocker):"), ctx)
