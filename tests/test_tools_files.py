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


def test_edit_exact_match(ctx):
    f = ctx.workspace / "cfg.txt"
    f.write_text("name = a\nmode = fast\nmode = slow\n")
    assert run(EditFile(), ctx, path="cfg.txt", old="name = a", new="name = b") == "edited cfg.txt at line 1"
    assert f.read_text() == "name = b\nmode = fast\nmode = slow\n"
    with pytest.raises(ToolError, match="not found"):
        run(EditFile(), ctx, path="cfg.txt", old="colour = red", new="x")
    with pytest.raises(ToolError, match="occurs 2 times"):
        run(EditFile(), ctx, path="cfg.txt", old="mode = ", new="x")
    assert f.read_text() == "name = b\nmode = fast\nmode = slow\n"  # failed edits change nothing


def test_list_dir(ctx):
    (ctx.workspace / "sub").mkdir()
    (ctx.workspace / "a.txt").write_text("hello")
    out = run(ListDir(), ctx, path=".")
    assert "sub/" in out and "a.txt (5 B)" in out
    assert run(ListDir(), ctx, path="sub") == "sub: empty directory"


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
