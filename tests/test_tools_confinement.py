"""list_dir and skill_manager stay inside the roots: symlinks that leave them are not followed."""

from __future__ import annotations

import os

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.files import ListDir
from nanobot.tools.skills import SkillManager


@pytest.fixture
def ctx(home):
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


def test_list_dir_does_not_follow_links_out_of_the_roots(ctx, tmp_path, monkeypatch):
    monkeypatch.chdir(ctx.workspace)  # started in the workspace: "." is it, with no note about another folder
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"x" * 12345)
    (ctx.workspace / "inside.txt").write_text("hello")
    os.symlink(secret, ctx.workspace / "out-file")
    os.symlink(tmp_path, ctx.workspace / "out-dir")
    os.symlink(ctx.workspace / "inside.txt", ctx.workspace / "in-link")
    os.symlink(tmp_path / "nothing", ctx.workspace / "broken")
    out = ListDir().run(ListDir.Args(path="."), ctx)
    assert out.splitlines() == [".: 5 files", "broken -> (link)",
                                "in-link (5 B)", "inside.txt (5 B)", "out-dir -> (link)", "out-file -> (link)"]
    assert "12345" not in out


def test_skill_manager_refuses_a_skill_linked_out_of_the_roots(ctx, tmp_path):
    skills = ctx.workspace / "skills"
    skills.mkdir()
    (skills / "ok.md").write_text("do the thing")
    outside = tmp_path / "passwd"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.symlink(outside, skills / "steal.md")
    (skills / "dir").mkdir()
    os.symlink(outside, skills / "dir" / "SKILL.md")
    tool = SkillManager()
    assert tool.run(tool.Args(action="load", name="ok"), ctx) == "do the thing"
    for name in ("steal", "dir"):
        with pytest.raises(ToolError, match="symlink that points outside the workspace"):
            tool.run(tool.Args(action="load", name=name), ctx)
