"""Files that run on their own: the file tools change them only when the user says yes.

A write to one of these shows nothing now and runs code later, with nobody choosing to run it:
Python runs a ``.pth`` file's import lines and ``sitecustomize``/``usercustomize`` at every start, a
shell its rc and profile files, git a hooks folder, direnv an ``.envrc``, a CI service its workflow
files on every push, cron and systemd their jobs and units, ssh ``~/.ssh/rc`` and the commands
``~/.ssh/config`` names, an editor its rc file. ``runs_on_its_own(path)`` says which, from the names on
the path alone, at any depth and case folded (a dotfiles folder, a root that is $HOME, a venv inside
a project are all caught). ``protected.check_writable`` asks the user (``ToolContext.confirm``) before
every such write, whatever the call policy decided; where nobody can be asked (a piped chat, ``nanobot
tools run``, a sub-agent) the write is refused. A ``.git`` folder's hooks and config are refused
outright (``protected``).

>>> runs_on_its_own(Path("/w/venv/lib/python3.12/site-packages/evil.pth"))
'Python runs its import lines at every start'
>>> runs_on_its_own(Path("proj/.GitHub/workflows/ci.yml"))
'a CI service runs it on every push'
>>> runs_on_its_own(Path("notes/bashrc.md")) is None
True
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

PYTHON = "Python runs its import lines at every start"
SHELL = "a shell (or the desktop session) runs it at every start"
CI = "a CI service runs it on every push"
HOOKS = "git runs it as a hook"
EDITOR = "the editor runs it at every start"
CRON = "cron runs it on a schedule"
SYSTEMD = "systemd starts it (or sets its variables for every program)"

# A file name (fnmatch, lower case), at any depth.
NAMES: dict[str, str] = {
    "*.pth": PYTHON, "sitecustomize.py": "Python imports it at every start",
    "usercustomize.py": "Python imports it at every start",
    ".pythonrc": "Python's interactive start (PYTHONSTARTUP) runs it", ".pythonrc.py": "Python's interactive start runs it",
    **dict.fromkeys((".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
                     ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc",
                     ".tcshrc", ".login", ".logout", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc",
                     ".pam_environment", "bash.bashrc", "rc.local"), SHELL),
    ".envrc": "direnv runs it on entering the folder",
    **dict.fromkeys((".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml",
                     "appveyor.yml", ".appveyor.yml", ".drone.yml", ".woodpecker.yml", "jenkinsfile"), CI),
    ".pre-commit-config.yaml": "pre-commit runs the hooks it names at every git commit",
    **dict.fromkeys((".vimrc", ".gvimrc", ".exrc", ".nvimrc", ".nvim.lua", ".emacs"), EDITOR),
    ".hgrc": "Mercurial runs the hooks it names", "crontab": CRON,
    "ld.so.preload": "every program loads the libraries it names",
}

# Consecutive names (lower case) at any depth: the file itself or anything below them.
FOLDERS: dict[tuple[str, ...], str] = {
    **dict.fromkeys(((".git", "hooks"), (".githooks",), (".husky",)), HOOKS),
    **dict.fromkeys(((".github", "workflows"), (".github", "actions"), (".gitea", "workflows"),
                     (".forgejo", "workflows"), (".circleci",), (".buildkite",), (".woodpecker",)), CI),
    **dict.fromkeys(((".config", "fish"), (".bashrc.d",), ("etc", "profile"), ("etc", "profile.d"),
                     ("etc", "environment"), ("etc", "zsh"), ("etc", "zshrc"), ("etc", "init.d")), SHELL),
    **dict.fromkeys(((".config", "systemd"), (".local", "share", "systemd"), ("etc", "systemd"),
                     (".config", "environment.d")), SYSTEMD),
    (".config", "autostart"): "the desktop session starts it at login",
    ("library", "launchagents"): "launchd starts it", ("library", "launchdaemons"): "launchd starts it",
    **dict.fromkeys((("cron.d",), ("cron.hourly",), ("cron.daily",), ("cron.weekly",), ("cron.monthly",),
                     ("spool", "cron"), ("anacrontab",)), CRON),
    (".ssh",): "ssh runs ~/.ssh/rc and the commands ~/.ssh/config names, and authorized_keys says who logs in",
    **dict.fromkeys(((".config", "nvim"), (".vim", "plugin"), (".emacs.d",)), EDITOR),
    (".vscode", "tasks.json"): "VS Code runs its tasks marked to run when the folder opens",
}


def runs_on_its_own(path: Path) -> str | None:
    """What runs the file at ``path`` with nobody starting it, or None for an ordinary file."""
    parts = [p.lower() for p in path.parts if p not in ("/", "")]
    if not parts:
        return None
    for pattern, why in NAMES.items():
        if fnmatchcase(parts[-1], pattern):
            return why
    for names, why in FOLDERS.items():
        n = len(names)
        if any(tuple(parts[i:i + n]) == names for i in range(len(parts) - n + 1)):
            return why
    return None
