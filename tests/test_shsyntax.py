"""An edit that leaves a shell script that bash cannot parse is refused, as a Python one is
(``base/shsyntax.py``); real files, real ``bash -n``."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
LIB = "to_upper() {\n  printf '%s\\n' \"$1\" | tr a-z A-Z\n}\n\nrepeat_char() {\n  printf '%s' \"$1\"\n}\n"
ASK = "Füge lib.sh eine Funktion repeat_char hinzu, die das Zeichen $1 genau $2-mal hintereinander ausgibt."


def _ctx(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "lib.sh").write_text(LIB)
    return ToolContext(settings=settings, agent=SimpleNamespace(provenance=Provenance(said=[ASK]), judge=Judge())), settings.workspace


def test_an_edit_that_breaks_the_scripts_syntax_is_refused_and_the_file_kept(home):
    """The 1.5B, asked again, called edit_file(old="repeat_char", new="repeat_char $1 $2"), which made
    ``repeat_char $1 $2() {`` of the definition."""
    ctx, ws = _ctx(home)
    with pytest.raises(ToolError, match=r"lib.sh: bash -n: line 5: syntax error"):
        EditFile().run(EditFile.Args(path="lib.sh", old="repeat_char()", new="repeat_char $1 $2()"), ctx)
    assert (ws / "lib.sh").read_text() == LIB
    with pytest.raises(ToolError, match="bash -n"):
        WriteFile().run(WriteFile.Args(path="lib.sh", content=LIB + "if true; then\n"), ctx)
    assert (ws / "lib.sh").read_text() == LIB


def test_an_edit_that_keeps_it_parsing_is_made(home):
    ctx, ws = _ctx(home)
    body = "  local i\n  for ((i = 0; i < $2; i++)); do printf '%s' \"$1\"; done\n  echo\n"
    EditFile().run(EditFile.Args(path="lib.sh", old="  printf '%s' \"$1\"\n", new=body), ctx)
    assert body in (ws / "lib.sh").read_text()
