"""Issue 79: a test file the model writes without importing what it tests gets the import from the module
that defines the name (``tools.testimports``). Real files in a real git repository, run with pytest."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.tools.testimports import imported
from nanobot.workspace import init_workspace

NOTES = "def average(grades):\n    return sum(grades) / len(grades)\n\n\ndef spread(grades):\n    return max(grades) - min(grades)\n"
# the 1.5B's test file for "Écris un test pour spread dans un nouveau fichier test_notes.py.": no import
WRITTEN = "def test_spread():\n    grades = [85, 90, 78, 92]\n    assert spread(grades) == 14\n"


def _repo(home, said: str):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    ws = settings.workspace
    (ws / "notes.py").write_text(NOTES)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    return ToolContext(settings=settings, agent=SimpleNamespace(provenance=Provenance(said=[said]), judge=Judge())), ws


def _pytest(ws) -> str:
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                         cwd=ws, capture_output=True, text=True)
    return run.stdout.strip().splitlines()[-1]


def test_a_new_test_file_gets_the_import_it_forgot_and_its_test_passes(home):
    ctx, ws = _repo(home, "Écris un test pour spread dans un nouveau fichier test_notes.py.")
    out = WriteFile().run(WriteFile.Args(path="test_notes.py", content=WRITTEN), ctx)
    assert (ws / "test_notes.py").read_text() == "from notes import spread\n\n\n" + WRITTEN
    assert "added the import of spread" in out
    assert _pytest(ws).startswith("1 passed")


def test_an_edit_widens_the_import_line_the_file_has(home):
    ctx, ws = _repo(home, "Add a test for spread to test_notes.py")
    (ws / "test_notes.py").write_text("from notes import average\n\n\ndef test_average():\n    assert average([2, 4]) == 3\n")
    EditFile().run(EditFile.Args(path="test_notes.py", old="    assert average([2, 4]) == 3\n",
                                 new="    assert average([2, 4]) == 3\n\n\ndef test_spread():\n    assert spread([1, 4]) == 3\n"), ctx)
    assert (ws / "test_notes.py").read_text().startswith("from notes import average, spread\n")
    assert _pytest(ws).startswith("2 passed")


def test_a_name_bound_in_the_file_two_modules_define_or_no_module_defines_is_left_alone(home, tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "b.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return 3\n")
    target = tmp_path / "test_x.py"
    assert imported("def test_f():\n    assert f() == 1\n", target, tmp_path) is None  # two homes
    assert imported("def test_h():\n    assert h() == 1\n", target, tmp_path) is None  # none
    assert imported("def g():\n    return 0\n\n\ndef test_g():\n    assert g() == 0\n", target, tmp_path) is None
    assert imported("import b\n\n\ndef test_g(g):\n    assert b.g() == g\n", target, tmp_path) is None
    assert imported("def test_g(:\n", target, tmp_path) is None  # does not parse


def test_a_code_file_is_written_as_the_model_wrote_it(home):
    ctx, ws = _repo(home, "Write report.py that prints spread([1, 2])")
    WriteFile().run(WriteFile.Args(path="report.py", content="print(spread([1, 2]))\n"), ctx)
    assert (ws / "report.py").read_text() == "print(spread([1, 2]))\n"
