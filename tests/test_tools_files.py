"""File tools against real files: ranges, exact-match edits, listing, and confinement."""

from __future__ import annotations

import os

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, ListDir, ReadFile, WriteFile


@pytest.fixture
def ctx(home, tmp_path):
    extra = tmp_path / "extra_root"
    extra.mkdir()
    settings = load_settings(home, tools={"roots": [str(extra)]})
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


def run(tool, ctx, **args):
    return tool.run(tool.Args(**args), ctx)


def test_write_read_in_ranges(ctx):
    body = "\n".join(f"line {i}" for i in range(1, 301))
    assert run(WriteFile(), ctx, path="notes/big.txt", content=body).startswith("created notes/big.txt")
    assert (ctx.workspace / "notes" / "big.txt").read_text() == body
    first = run(ReadFile(), ctx, path="notes/big.txt", lines=3)
    assert first == "notes/big.txt lines 1-3 of 300\nline 1\nline 2\nline 3\n[more: read_file start=4]"
    last = run(ReadFile(), ctx, path="notes/big.txt", start=299, lines=10)
    assert last.endswith("line 299\nline 300") and "more:" not in last
    capped = run(ReadFile(), ctx, path="notes/big.txt", lines=1000)
    assert "lines 1-200 of 300" in capped
    with pytest.raises(ToolError, match="past the end"):
        run(ReadFile(), ctx, path="notes/big.txt", start=301)
    assert run(WriteFile(), ctx, path="notes/big.txt", content="x").startswith("overwrote")


def test_read_errors(ctx):
    with pytest.raises(ToolError, match="does not exist"):
        run(ReadFile(), ctx, path="nope.txt")
    (ctx.workspace / "bin.dat").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ToolError, match="not UTF-8"):
        run(ReadFile(), ctx, path="bin.dat")


def test_a_look_at_a_path_a_typo_away_from_one_entry_looks_at_that_entry(ctx):
    """A look is turned to the one entry one edit away (a fact of the roots) and says so; a file
    named without its folder is found there; a change is not turned: its error offers the entry."""
    (ctx.workspace / "inventory.csv").write_text("apples,3\n")
    (ctx.workspace / "reports").mkdir()
    (ctx.workspace / "reports" / "q3.txt").write_text("sold 12\n")
    read = run(ReadFile(), ctx, path="inventry.csv")
    assert read.startswith("(file 'inventry.csv' does not exist; this is 'inventory.csv')") and "apples,3" in read
    listed = run(ListDir(), ctx, path="reprots")
    assert "this is 'reports'" in listed and "q3.txt" in listed
    assert "sold 12" in run(ReadFile(), ctx, path="q3.txt")
    with pytest.raises(ToolError, match="did you mean 'inventory.csv'"):
        run(EditFile(), ctx, path="inventry.csv", old="apples", new="pears")
    with pytest.raises(ToolError, match="list_dir shows what is there"):  # nothing near: no guess
        run(ReadFile(), ctx, path="sales.csv")
    with pytest.raises(ToolError, match="did you mean .inventory.csv."):  # a folder's look is not turned to a file
        run(ListDir(), ctx, path="inventory.cs")


def test_edit_exact_match(ctx):
    f = ctx.workspace / "cfg.txt"
    f.write_text("name = a\nmode = fast\nmode = slow\n")
    assert run(EditFile(), ctx, path="cfg.txt", old="name = a", new="name = b") == "edited cfg.txt at line 1"
    assert f.read_text() == "name = b\nmode = fast\nmode = slow\n"
    with pytest.raises(ToolError, match="not found"):
        run(EditFile(), ctx, path="cfg.txt", old="colour = red", new="x")
    with pytest.raises(ToolError, match="occurs 2 times") as twice:
        run(EditFile(), ctx, path="cfg.txt", old="mode = ", new="x")
    assert "mode = fast\nmode = slow" in str(twice.value)  # the file, to copy a unique span from
    assert f.read_text() == "name = b\nmode = fast\nmode = slow\n"  # failed edits change nothing


def test_an_edit_that_empties_whole_lines_removes_them(ctx):
    """"Delete the line with duct tape": old is the line, new is empty; the line goes, no blank line stays.
    Part of a line emptied keeps the line."""
    f = ctx.workspace / "inventory.csv"
    f.write_text("item,count\nhammer,3\nduct tape,4\nladder,1\n")
    run(EditFile(), ctx, path="inventory.csv", old="duct tape,4", new="")
    assert f.read_text() == "item,count\nhammer,3\nladder,1\n"
    run(EditFile(), ctx, path="inventory.csv", old="ladder,1", new="")  # the last line
    assert f.read_text() == "item,count\nhammer,3\n"
    run(EditFile(), ctx, path="inventory.csv", old=",3", new="")
    assert f.read_text() == "item,count\nhammer\n"


def test_an_edit_that_only_repeats_the_line_next_to_it_is_refused(ctx):
    """dev3, the 1.5B, asked to fix square_area (``return side * 4``): old the def line, new the def line
    and the return as it stands. The definition was replaced whole by itself and reported as edited, and
    the reply described a fix that is not there: refused, the file unchanged; likewise a line that would
    only stand twice; the fix itself goes through."""
    f = ctx.workspace / "shapes.py"
    f.write_text("def square_area(side):\n    return side * 4\n")
    with pytest.raises(ToolError, match="would stay exactly as it is"):  # the definition replaced whole by itself
        run(EditFile(), ctx, path="shapes.py", old="def square_area(side):",
            new="def square_area(side):\n    return side * 4")
    assert f.read_text() == "def square_area(side):\n    return side * 4\n"
    notes = ctx.workspace / "notes.txt"
    notes.write_text("Monday\n  call Bob\nTuesday\n")
    with pytest.raises(ToolError, match="only repeats 'call Bob'"):
        run(EditFile(), ctx, path="notes.txt", old="Monday", new="Monday\n  call Bob")
    assert notes.read_text() == "Monday\n  call Bob\nTuesday\n"
    run(EditFile(), ctx, path="shapes.py", old="return side * 4", new="return side * side")
    assert f.read_text() == "def square_area(side):\n    return side * side\n"


def test_list_dir(ctx):
    (ctx.workspace / "sub").mkdir()
    (ctx.workspace / "a.txt").write_text("hello")
    out = run(ListDir(), ctx, path=".")
    assert "sub/" in out and "a.txt (5 B)" in out
    assert run(ListDir(), ctx, path="sub") == "sub: empty directory"


def test_a_listing_leaves_out_nanobots_own_locks_temp_files_and_databases(ctx, monkeypatch):
    """The fresh set, the 1.5B: a listing of the workspace showed ``.CONTEXT.md.lock`` and the databases
    beside the user's files, and the reply listed them as the user's. The real writers make them here."""
    from nanobot.base.atomic import atomic_write
    from nanobot.base.userfile import update_user_file
    from nanobot.tools.dbtool import workspace_db

    ws = ctx.workspace
    monkeypatch.chdir(ws)
    atomic_write(ws / "CONTEXT.md", "# Now\n")
    update_user_file(ws / "CONTEXT.md", lambda text: text + "- planting\n")  # takes .CONTEXT.md.lock
    workspace_db(ws, "CREATE TABLE IF NOT EXISTS t (x)").close()
    (ws / ".CONTEXT.md.k2j4h1x9.tmp").write_text("")  # an atomic write cut off before its rename
    mine = [".gitignore", ".yarn.lock", "data.db", "notes.txt"]  # the user's own, some lock- or db-shaped
    for name in mine:
        (ws / name).write_text("x")
    (ws / "sub").mkdir()
    (ws / "sub" / "nanobot.db").write_text("x")  # a database of that name outside the workspace's top is the user's
    assert (ws / ".CONTEXT.md.lock").exists() and (ws / "nanobot.db").exists()
    out = run(ListDir(), ctx, path=".")
    assert out.startswith(".: 5 files, 1 folder"), out  # sub/, CONTEXT.md and the user's four
    assert all(name in out for name in [*mine, "CONTEXT.md", "sub/"])
    assert ".CONTEXT.md.lock" not in out and "nanobot.db" not in out and ".tmp" not in out
    assert "nanobot.db" in run(ListDir(), ctx, path="sub")


def test_a_listing_of_an_absolute_path_nobody_named_that_is_not_there_lists_the_base_folder(ctx):
    """A new user's SmolLM2 chat, "what files are in this folder?": the retry's list_dir was given
    "/Users/nano", which is not there, and was refused as outside the roots. Such a guess lists the
    folder nanobot works in and says so; a path the user wrote, or one that exists, is refused as before."""
    from types import SimpleNamespace

    from nanobot.core.provenance import Provenance

    (ctx.workspace / "notes.txt").write_text("x")
    def asked(said):
        return ToolContext(settings=ctx.settings, agent=SimpleNamespace(provenance=Provenance(said=[said])))

    out = run(ListDir(), asked("what files are in this folder?"), path="/Users/nano")
    assert out.startswith("('/Users/nano' does not exist and the user did not name it") and "notes.txt" in out
    with pytest.raises(ToolError, match="outside the workspace"):
        run(ListDir(), asked("list /Users/nano please"), path="/Users/nano")  # the user's own path
    with pytest.raises(ToolError, match="outside the workspace"):
        run(ListDir(), asked("what files are in this folder?"), path="/etc")  # there, and not allowed
    with pytest.raises(ToolError, match="outside the workspace"):
        run(ListDir(), ctx, path="/Users/nano")  # no conversation to tell


def test_a_listing_of_a_file_shows_its_entry_and_its_text(ctx):
    """The fresh set, the 1.5B: list_dir on a file failed ("is a file; use read_file"), and the reply
    invented what the user asked. A look at a file through the listing tool is still a look at it."""
    (ctx.workspace / "notes").mkdir()
    (ctx.workspace / "notes" / "plan.md").write_text("# Plan\nship it\n")
    out = run(ListDir(), ctx, path="notes/plan.md")
    assert out.splitlines()[0] == "plan.md (15 B): a file, not a folder"
    assert out.splitlines()[1:] == ["notes/plan.md lines 1-2 of 2", "# Plan", "ship it"]


@pytest.mark.parametrize("path,why", [
    ("../outside.txt", "contains '..'"),
    ("notes/../../x", "contains '..'"),
    ("/etc/passwd", "is outside"),
])
def test_escapes_are_refused(ctx, path, why):
    for tool, extra in ((ReadFile(), {}), (WriteFile(), {"content": "x"}), (ListDir(), {})):
        with pytest.raises(ToolError, match=why):
            run(tool, ctx, path=path, **extra)


def test_symlink_escaping_the_root_is_refused(ctx, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.symlink(secret, ctx.workspace / "link.txt")
    os.symlink(tmp_path, ctx.workspace / "linkdir")
    with pytest.raises(ToolError, match="symlink that points outside"):
        run(ReadFile(), ctx, path="link.txt")
    with pytest.raises(ToolError, match="outside"):
        run(WriteFile(), ctx, path="linkdir/new.txt", content="x")
    assert not (tmp_path / "new.txt").exists()


def test_configured_root_is_allowed(ctx, tmp_path):
    target = tmp_path / "extra_root" / "ok.txt"
    run(WriteFile(), ctx, path=str(target), content="fine")
    assert "fine" in run(ReadFile(), ctx, path=str(target))


def test_an_old_text_with_other_whitespace_is_found_when_it_matches_once(ctx):
    """The 1.5B's old for calc.py was 'def add(a, b): return a + b' (copied from a memory line that had
    collapsed it): one match with other whitespace is the text meant (tools/looseedit.py)."""
    f = ctx.workspace / "calc.py"
    f.write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n")
    out = run(EditFile(), ctx, path="calc.py", old="def sub(a, b): return a + b", new="sub = lambda a, b: a - b")
    assert out == "edited calc.py at line 5 (old matched with other whitespace)"
    assert f.read_text() == "def add(a, b):\n    return a + b\n\n\nsub = lambda a, b: a - b\n"
    (ctx.workspace / "two.py").write_text("x = 1\nx = 1\n")
    with pytest.raises(ToolError, match="not found"):  # twice that way: nothing is guessed
        run(EditFile(), ctx, path="two.py", old="x  =  1", new="x = 2")


def test_an_old_block_without_its_indentation_is_found_and_the_new_one_indented(ctx):
    f = ctx.workspace / "m.py"
    f.write_text("class A:\n    def f(self):\n        return 1\n")
    run(EditFile(), ctx, path="m.py", old="def f(self):\n    return 1", new="def f(self):\n    return 2")
    assert f.read_text() == "class A:\n    def f(self):\n        return 2\n"
    with pytest.raises(ToolError, match="was not changed"):  # still syntax-checked
        run(EditFile(), ctx, path="m.py", old="def f(self): return 2", new="def f(self) return 3")


CALC = "def add(a, b):\n    return a + b\n\n\n@cache\ndef sub(a, b):\n    return a + b\n\n\nprint(add(40, 2))\n"


def test_a_whole_function_given_as_new_replaces_its_namesake(ctx):
    """The 1.5B's edit for "fix sub" was old="sub(a, b)", new="def sub(a, b):\\n    return a - b": as given
    a syntax error (refused); meant as the new sub, which replaces the old one, decorator and all
    (tools/pydefs.py)."""
    f = ctx.workspace / "calc.py"
    f.write_text(CALC)
    out = run(EditFile(), ctx, path="calc.py", old="sub(a, b)", new="def sub(a, b):\n    return a - b")
    assert out == "edited calc.py: sub replaced whole"
    assert f.read_text() == CALC.replace("@cache\ndef sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b")
    f.write_text(CALC)  # the def line as old would keep the old body under the new one: the def is replaced whole
    run(EditFile(), ctx, path="calc.py", old="def sub(a, b):", new="def sub(a, b):\n    return a - b")
    assert f.read_text().count("return a + b") == 1 and "def sub(a, b):\n    return a - b\n\n\nprint" in f.read_text()
    f.write_text(CALC)  # "return a + b" occurs twice: the whole def says which one
    run(EditFile(), ctx, path="calc.py", old="return a + b", new="    def sub(a, b):\n        return a - b\n")
    assert "def sub(a, b):\n    return a - b\n\n\nprint" in f.read_text() and "return a + b" in f.read_text()


def test_a_guard_under_a_def_line_keeps_the_body(ctx):
    """old = the def line, new = that line and a guard: the exact edit parses and keeps the old body
    reachable, so it is the edit, not a whole-function replacement that would drop the body."""
    f = ctx.workspace / "stats.py"
    f.write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    out = run(EditFile(), ctx, path="stats.py", old="def mean(xs):\n",
              new="def mean(xs):\n    if not xs:\n        raise ValueError('empty')\n")
    assert out == "edited stats.py at line 1"
    assert f.read_text() == "def mean(xs):\n    if not xs:\n        raise ValueError('empty')\n    return sum(xs) / len(xs)\n"


def test_a_whole_function_is_no_licence_to_edit_elsewhere(ctx):
    f = ctx.workspace / "calc.py"
    f.write_text(CALC)
    for old, new in (("print(add", "def sub(a, b):\n    return a - b"),  # old points outside sub
                     ("sub(a, b)", "def mul(a, b):\n    return a * b"),  # no mul to replace
                     ("sub(a, b)", "def sub(a, b):\nreturn a - b")):  # does not parse
        with pytest.raises(ToolError):
            run(EditFile(), ctx, path="calc.py", old=old, new=new)
        assert f.read_text() == CALC
    (ctx.workspace / "notes.txt").write_text("def sub(a, b):\n    return a + b\n")
    with pytest.raises(ToolError, match="not found"):  # only Python files
        run(EditFile(), ctx, path="notes.txt", old="sub(a b)", new="def sub(a, b):\n    return a - b")


def test_a_file_in_the_start_folder_outside_the_roots_is_named_with_the_setting_that_allows_it(ctx, tmp_path, monkeypatch):
    """A new user runs ``nanobot chat`` in a project folder that is not a root and asks about utils.py:
    the error says where the file is and which setting allows it (not "does not exist"), nothing of it
    is read, and no new utils.py is made in the workspace beside it. Once the folder is a root, it is used."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "utils.py").write_text("def slugify(s):\n    return s\n")
    monkeypatch.chdir(proj)
    for tool, args in [(ReadFile(), {}), (EditFile(), {"old": "slugify", "new": "slug"}),
                       (WriteFile(), {"content": "x = 1\n"})]:
        with pytest.raises(ToolError) as e:
            run(tool, ctx, path="utils.py", **args)
        assert str(proj) in str(e.value) and "roots" in str(e.value) and "does not exist" not in str(e.value)
        with pytest.raises(ToolError, match=r"is in .*to allow it, add roots = "):  # its absolute path too
            run(tool, ctx, path=str(proj / "utils.py"), **args)
    assert not (ctx.workspace / "utils.py").exists() and "slugify" in (proj / "utils.py").read_text()
    with pytest.raises(ToolError, match="does not exist; list_dir"):  # a name the folder does not have either
        run(ReadFile(), ctx, path="other.py")
    allowed = ToolContext(settings=load_settings(ctx.settings.home, tools={"roots": [str(proj)]}))
    assert "def slugify" in run(ReadFile(), allowed, path="utils.py")


def test_a_listing_of_the_workspace_from_a_project_outside_the_roots_says_whose_it_is(ctx, tmp_path, monkeypatch):
    """"what files are in this folder?" asked in a project that is not a root lists the workspace: the
    listing says so and names the setting that allows the project. From the workspace itself, or a root,
    or for a folder asked by name, it is a plain listing."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (ctx.workspace / "notes.md").write_text("x")
    monkeypatch.chdir(proj)
    listed = run(ListDir(), ctx, path=".")
    assert listed.startswith("(this is nanobot's workspace, not " + str(proj)) and "roots" in listed
    assert "notes.md" in listed
    monkeypatch.chdir(ctx.workspace)
    assert run(ListDir(), ctx, path=".").startswith(".: 1 file")
    monkeypatch.chdir(proj)
    assert "nanobot's workspace" not in run(ListDir(), ctx, path=str(ctx.workspace))  # asked by name


def test_a_window_the_user_did_not_give_shows_a_short_file_whole(ctx):
    """The 1.5B read server.toml with ``"lines": 2`` for "which log_level does it use?" and with
    ``"start": 7`` in a five-line file: the user's message holds no such numbers, so the file is shown
    whole; a window the message gives ("lines 2-3"), or a file longer than one read, is read as asked."""
    from types import SimpleNamespace

    from nanobot.core.provenance import Provenance

    (ctx.workspace / "server.toml").write_text('[server]\nhost = "0.0.0.0"\nport = 8080\nworkers = 3\nlog_level = "info"\n')
    ctx.agent = SimpleNamespace(provenance=Provenance(said=["Tell me which log_level server.toml uses."]))
    shown = run(ReadFile(), ctx, path="server.toml", lines=2)
    assert shown.startswith("server.toml lines 1-5 of 5\n") and 'log_level = "info"' in shown
    assert "lines 1-5 of 5" in run(ReadFile(), ctx, path="server.toml", start=7, lines=1)
    ctx.agent = SimpleNamespace(provenance=Provenance(said=["show me lines 2-3 of server.toml"]))
    assert run(ReadFile(), ctx, path="server.toml", start=2, lines=2).startswith("server.toml lines 2-3 of 5\n")
    (ctx.workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 301)))
    assert run(ReadFile(), ctx, path="big.txt", lines=3).startswith("big.txt lines 1-3 of 300\n")
