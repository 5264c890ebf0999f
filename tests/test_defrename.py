"""A definition renamed to a name the user never gave is refused (``tools.defrename``); real files."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nanobot.config import load_settings
from nanobot.core.provenance import PolicyError, Provenance
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.workspace import init_workspace

LIB = "to_upper() {\n  tr a-z A-Z\n}\n\nrepeat_char() {\n  printf '%s' \"$1\"\n}\n"


def _ctx(home, said):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "lib.sh").write_text(LIB)
    (settings.workspace / "notes.py").write_text("def passed(grade):\n    return grade >= 10\n")
    return ToolContext(settings=settings, agent=SimpleNamespace(provenance=Provenance(said=[said]), judge=Judge())), settings.workspace


def test_a_named_definition_renamed_to_a_name_nobody_gave_is_refused(home):
    """The 1.5B, asked again to add repeat_char, called edit_file(old="repeat_char", new="repeat_char_new")."""
    ctx, ws = _ctx(home, "Füge lib.sh eine Funktion repeat_char hinzu, die das Zeichen $1 genau $2-mal ausgibt.")
    with pytest.raises(PolicyError, match="repeat_char into repeat_char_new"):
        EditFile().run(EditFile.Args(path="lib.sh", old="repeat_char", new="repeat_char_new"), ctx)
    with pytest.raises(PolicyError, match="repeat_char into repeat_char_new"):
        WriteFile().run(WriteFile.Args(path="lib.sh", content=LIB.replace("repeat_char", "repeat_char_new")), ctx)
    assert (ws / "lib.sh").read_text() == LIB


def test_a_rename_the_user_asks_and_a_definition_added_pass(home):
    ctx, ws = _ctx(home, "Renomme la fonction passed en is_passing dans notes.py.")
    EditFile().run(EditFile.Args(path="notes.py", old="def passed(", new="def is_passing("), ctx)
    assert "def is_passing(" in (ws / "notes.py").read_text()
    ctx, ws = _ctx(home, "Add a function shout to lib.sh")
    EditFile().run(EditFile.Args(path="lib.sh", old="repeat_char() {", new="shout() {\n  echo \"$1!\"\n}\n\nrepeat_char() {"), ctx)
    assert "shout() {" in (ws / "lib.sh").read_text()
