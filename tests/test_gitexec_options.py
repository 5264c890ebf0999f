"""Allow-listed git is checked option by option (issue 41, class 3): each subcommand has a table of
its options and of which take a file (``tools/gitoptions.py``); a file outside the roots is refused
with a one-line reason, and an option not in the table is refused whatever it is.

The leak: ``git blame -S /outside/secret a.txt`` printed every line of the outside file as
"bad graft data: <line>" because ``-S``'s value was taken for a search string, as in ``git log -S``.
"""

from __future__ import annotations

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools import gitexec
from nanobot.tools.base import ToolContext
from nanobot.tools.gitoptions import PATH, TABLE
from nanobot.tools.shell import Exec
from tests.test_hostile_git import make_repo

SECRET = "TOP SECRET LINE"


@pytest.fixture
def setup(home, tmp_path):
    settings = load_settings(home, tools={"roots": [str(tmp_path / "repo")],
                                          "exec_allow": [f"git {sub}" for sub in TABLE]})
    settings.workspace.mkdir(parents=True)
    ctx = ToolContext(settings=settings)
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "secret").write_text(SECRET + "\n")
    return ctx, repo, tmp_path / "secret"


@pytest.mark.parametrize("command", [
    "git blame -S {secret} f.txt", "git blame -S{secret} f.txt", "git blame --contents {secret} f.txt",
    "git blame --contents={secret} f.txt", "git blame --ignore-revs-file {secret} f.txt",
    "git diff -O {secret}", "git log -p -O{secret}", "git show -O {secret}",
    "git ls-files -X {secret}", "git ls-files --exclude-from={secret}", "git grep -f {secret}",
])
def test_an_option_whose_value_is_a_file_outside_the_roots_is_refused(setup, command):
    ctx, repo, secret = setup
    with pytest.raises(ToolError, match="^exec refused") as e:
        Exec().run(Exec.Args(command=command.format(secret=secret), cwd=str(repo)), ctx)
    assert f"path '{secret}' is outside the workspace and roots" in str(e.value)
    assert SECRET not in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("command,option", [
    ("git diff --output=x", "--output"), ("git log --outp=x", "--outp"), ("git grep -O a", "-O"),
    ("git grep --open-files-in-pager a", "--open-files-in-pager"), ("git grep --no-index a", "--no-index"),
    ("git grep --recurse-submodules a", "--recurse-submodules"), ("git log -L1,2:f.txt", "-L1,2:f.txt"),
    ("git status --ignore-submodules=none", "--ignore-submodules"), ("git blame -O x f.txt", "-O"),
    ("git log --stat-x", "--stat-x"), ("git ls-files --recurse-submodules", "--recurse-submodules"),
    ("git diff --no-index a b", "--no-index"), ("git status --porcelain=v2 --zzz", "--zzz"),
    ("git rev-parse --git-path hooks", "--git-path"), ("git log -p5", "-p5"),
])
def test_an_option_not_in_its_subcommands_table_is_refused(setup, command, option):
    ctx, repo, _ = setup
    with pytest.raises(ToolError, match="^exec refused") as e:
        Exec().run(Exec.Args(command=command, cwd=str(repo)), ctx)
    assert f"option '{option}' is not on nanobot's read-only git list" in str(e.value)
    assert e.value.instead == "exec"  # a command written again may be on the list: the turn's steps retry it


def test_the_blame_leak_is_closed_and_blame_still_works(setup):
    ctx, repo, secret = setup
    for command in (f"git blame -S {secret} f.txt", f"git blame -S{secret} f.txt"):
        with pytest.raises(ToolError) as e:
            Exec().run(Exec.Args(command=command, cwd=str(repo)), ctx)
        assert SECRET not in str(e.value)
    out = Exec().run(Exec.Args(command="git blame -w -M f.txt", cwd=str(repo)), ctx)
    assert out.startswith("exit 0") and "a" in out


@pytest.mark.parametrize("argv", [
    "git log -S needle", "git log -Sneedle -p", "git log -n 3 --stat=80", "git log -3 --oneline",
    "git diff -U5 --stat HEAD~1", "git status -uno -b", "git status --porcelain=v1",
    "git grep -n -e a -C 2", "git branch --contains HEAD", "git shortlog -sn", "git blame -L 1,2 f.txt",
    "git diff -O order.txt", "git describe --always --dirty",
])
def test_read_only_options_pass_the_check(tmp_path, argv):
    (tmp_path / "order.txt").write_text("*\n")
    assert gitexec.check(argv.split(), tmp_path, [tmp_path]) is None


def test_every_table_names_its_file_options():
    """The options known to read a file are PATH in every subcommand that has them."""
    assert {k for k, v in TABLE["blame"].items() if v == PATH} == {"-S", "--contents", "--ignore-revs-file"}
    for sub in ("diff", "log", "show", "whatchanged"):
        assert TABLE[sub]["-O"] == PATH
        assert "--output" not in TABLE[sub] and "--no-index" not in TABLE[sub]
    assert TABLE["grep"]["-f"] == PATH and "-O" not in TABLE["grep"]


def test_a_command_not_allowed_is_refused_naming_the_commands_that_run(home, tmp_path):
    """A piped session cannot ask: the refusal names what does run, so the model's retry can use it
    (``python3 pricing.py`` where it wrote ``python pricing.py``)."""
    settings = load_settings(home, tools={"roots": [str(tmp_path)], "exec_allow": ["python3", "git status"]})
    settings.workspace.mkdir(parents=True)
    with pytest.raises(ToolError) as e:
        Exec().run(Exec.Args(command="python pricing.py", cwd=str(tmp_path)), ToolContext(settings=settings))
    assert str(e.value).startswith("exec refused: 'python pricing.py' is not in tools.exec_allow")
    assert "(the commands that run: python3, git status)" in str(e.value) and "\n" not in str(e.value)
