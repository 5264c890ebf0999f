"""exec: run a command in the workspace (or a root) with a timeout and an output cap.

Permission: a command whose text starts with an entry of ``tools.exec_allow`` (e.g. ``"git status"``,
``"ls"``) runs without asking, and so does read-only git (``tools.git_reads``: ``gitexec.unasked``).
Otherwise an interactive chat asks the user (``ctx.confirm``); without a way to ask (piped chat,
daemon, sub-agent) the command is refused. An allow-listed ``git ...`` is held to ``tools/gitexec.py``
(read-only subcommands and options, paths inside the roots) and runs without a shell through
``gitsafe.run_git``, so it cannot run a repository's programs or touch files outside the roots. Any
other allow-listed command is expanded to its argv and runs as that argv, without a shell, only when
every argument resolves inside the roots (``tools/execargs.py``) and a test runner loads no file from
outside them (``tools/execloads.py``); it sees only ``execrun.clean_env`` plus the hardened git
environment. Where one of those does not hold, an interactive chat asks, saying why, and other sessions
refuse in one line. Every run is ``execrun.run``: its own process group killed at the timeout, output
kept to a head and a tail as it streams. The confirmation shows control characters escaped
(``nanobot/base/safe_text.py``): the command the user approves is the command that runs. A command that
fails on a path that is not there is a tool error naming the close names (``tools/missingpath.py``).
"""

from __future__ import annotations

import os
import re
import shlex

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.base.gitsafe import git_env
from nanobot.base.safe_text import printable
from nanobot.tools import execargs, execloads, execrun, gitexec, missingpath, notests
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect, arg
from nanobot.tools.paths import resolve_in_roots, roots

MAX_OUTPUT_CHARS = 20_000
# shell syntax and programs that write files or history (a fact about the command, not the user's words)
_WRITES = re.compile(r">|\btee\b|\brm\b|\bmv\b|\bcp\b|\bsed\s+-i|\btouch\b|\bmkdir\b|\bgit\s+(commit|checkout|reset|"
                     r"restore|rm|mv|apply|am|merge|rebase|push|clean|stash)\b|\bchmod\b|\bpip\s+install\b")


def writes(command: str) -> bool:
    """Whether a command line writes files or git history.

    >>> writes("git status"), writes("echo hi > a.txt"), writes("git push origin main")
    (False, True, True)
    """
    return bool(_WRITES.search(command))


def named_in(text: str, command: str) -> bool:
    """Whether ``text`` names ``command``, in any language: the command's words without options (its
    first three) are all words of the text ("Lancia git log --oneline per favore" names
    ``git log --oneline``; "Zeig mir kurz git diff." names ``git diff``).

    >>> named_in("Lancia git log per favore", "git log --oneline"), named_in("what changed?", "git log")
    (True, False)
    """
    words = [w.lower() for w in command.split() if not w.startswith("-")][:3]
    said = {w.lower().rstrip(".,;:!?") for w in re.findall(r"[\w./-]+", text)}
    return bool(words) and all(w in said for w in words)


def named_command(text: str, allow: list[str]) -> str:
    """The ``tools.exec_allow`` entry ``text`` names as a command, in any language, "" for none: an entry
    of two or more words all in it (``named_in``: "Lancia git log --oneline per favore"), or a one-word
    entry followed by an option or a path ("conta con wc -w letter.txt"), so "my cat is called Miso"
    names no ``cat``.

    >>> named_command("Lancia git log per favore", ["ls", "git log"]), named_command("my cat is Miso", ["cat"])
    ('git log', '')
    >>> named_command("zähl mit wc -w letter.txt", ["wc"])
    'wc'
    """
    for entry in (a.strip() for a in allow if a.strip()):
        if " " in entry and named_in(text, entry):
            return entry
        if " " not in entry and re.search(rf"(?<![\w./-]){re.escape(entry)}\s+(?:-\w|[\w-]*[./][\w/-])", text):
            return entry
    return ""


class ExecArgs(ToolArgs):
    command: str = Field(description="shell command line", min_length=1, max_length=1000)
    cwd: str = Field(".", description="working directory, relative to the current directory", max_length=200)


def allowed(command: str, allow: list[str]) -> bool:
    """True when ``command`` starts with an allow-listed command (whole words, no chaining).

    >>> allowed("git status -s", ["git status"]), allowed("git status; rm -rf x", ["git status"])
    (True, False)
    """
    if any(ch in command for ch in ";&|`$<>\n"):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return any(words[: len(a.split())] == a.split() for a in allow if a.strip())


class Exec(Tool):
    name = "exec"
    description = "Run a shell command in the workspace."
    intent = "run a command the user gives (git, ls, python, tests)"
    Args = ExecArgs
    effects = frozenset({Effect.RUNS})
    target_args = {"command": "command"}

    def effects_for(self, args) -> frozenset[Effect]:
        """A command that writes changes what the user keeps; any other only runs."""
        return self.effects | ({Effect.CHANGES} if writes(str(arg(args, "command"))) else set())

    def offered(self, ctx: ToolContext) -> dict:
        """Where nobody can be asked, a command ``tools.exec_allow`` refuses is not generated: the
        command starts with an allowed one (a refused "python x.py" is "python3 x.py" where only
        python3 is allowed). Where the user can be asked, any command line."""
        schema = self.parameters()
        starts = [a.strip() for a in ctx.settings.tools.exec_allow if a.strip()]
        if ctx.confirm is not None or not starts:
            return schema  # nothing named: any command line (git reads run, the rest is refused)
        command = schema["properties"]["command"] | {"x-starts": gitexec.unasked(ctx.settings.tools)}
        return schema | {"properties": schema["properties"] | {"command": command}}

    def run(self, args: ExecArgs, ctx: ToolContext) -> str:
        cwd = resolve_in_roots(args.cwd, ctx)
        if not cwd.is_dir():
            raise ToolError(f"cwd '{args.cwd}' is not a directory")
        unasked = gitexec.unasked(ctx.settings.tools)
        listed = allowed(args.command, unasked)
        words = shlex.split(args.command) if listed else []
        why, argv = "", []
        form = ""  # why a git command is not on the read-only list as written: a retry may write it so
        if listed and words[0] == "git":
            form = gitexec.check(words, cwd, roots(ctx)) or ""
            why = form or gitexec.repo_outside(cwd, roots(ctx)) or ""
        elif listed:
            why, argv = confined(args.command, words, unasked, cwd, roots(ctx))
        listed = listed and not why
        if not listed:
            if ctx.confirm is None and why:
                rule = "git command must be read-only and stay inside the roots" if words[0] == "git" else \
                    "command may name only paths inside the workspace and roots"
                raise ToolError(f"exec refused: '{printable(args.command, keep='')}': an allow-listed {rule} "
                                f"({printable(why, keep='')}); this session cannot ask the user",
                                instead="exec" if form else "")
            if ctx.confirm is None:  # the allowed commands named, so a retry can use one ("python3", not "python")
                listing = ", ".join(printable(c, keep="") for c in ctx.settings.tools.exec_allow[:12] if c.strip())
                runs = f" (the commands that run: {listing})" if listing else ""
                raise ToolError(f"exec refused: '{args.command}' is not in tools.exec_allow{runs} and "
                                "this session cannot ask the user; add it to exec_allow in config.toml")
            if not ctx.confirm(question(args.command, str(cwd), why)):
                raise ToolError(f"the user declined to run '{args.command}'")
        elif words[0] == "git":
            code, out = gitexec.run(words, cwd, ctx.settings.tools.exec_timeout)
            return _failed_on_missing(args.command, cwd, _shown(code, out))
        timeout = ctx.settings.tools.exec_timeout
        shown = run_argv(argv, cwd, timeout, git_env(execrun.clean_env()), args.command) if listed else \
            run_command(args.command, cwd, timeout)
        return _failed_on_missing(args.command, cwd, shown)


def confined(command: str, words: list[str], allow: list[str], cwd, allowed_roots) -> tuple[str, list[str]]:
    """(why not, "" when it may run; the argv it runs as) for an allow-listed command that is not git:
    its arguments resolve inside the roots (``execargs``) and a test runner loads nothing from outside
    them (``execloads``)."""
    try:
        argv = execargs.expand(command, cwd, execrun.clean_env())
    except ValueError as e:
        return str(e), []
    start = execargs.entry_words(words, allow)
    return execargs.outside(argv, cwd, allowed_roots, start) or \
        execloads.outside_loads(argv, cwd, allowed_roots) or "", argv


def _failed_on_missing(command: str, cwd, shown: str) -> str:
    """``shown`` (a run's "exit N" and output), or a tool error when the command failed and a path it
    names is not there (``tools.missingpath``): the next step calls again with a path that is."""
    if not shown.startswith("exit 0") and (gone := missingpath.missing(command, cwd)):
        raise ToolError(f"{missingpath.note(gone, cwd, command)} The run:\n{shown}")
    return shown


def question(command: str, cwd: str, why: str = "") -> str:
    """The confirmation, control characters escaped (and said so), on one line; ``why`` an allow-listed
    command asks (an argument outside the roots).

    >>> question("ls\\x1b[2K", "/w")
    'Run `ls\\\\x1b[2K` in /w? (control characters shown escaped)'
    >>> question("head /etc/hosts", "/w", "argument '/etc/hosts' is outside the workspace and roots")
    "Run `head /etc/hosts` in /w? (argument '/etc/hosts' is outside the workspace and roots)"
    """
    shown = printable(command, keep="")
    note = " (control characters shown escaped)" if shown != command else ""
    asks = f" ({printable(why, keep='')})" if why else ""
    return f"Run `{shown}` in {printable(cwd, keep='')}?{note}{asks}"


def run_command(command: str, cwd, timeout: float) -> str:
    """Run a command line the user approved with a shell and the user's environment (git prompts off)."""
    env = os.environ | {"GIT_TERMINAL_PROMPT": "0"}
    return run_argv(["/bin/sh", "-c", command], cwd, timeout, env, command)


def run_argv(argv: list[str], cwd, timeout: float, env: dict[str, str], command: str) -> str:
    """The "exit N" line and output of ``argv`` (``execrun.run``: its own session, output bounded as it
    streams); ToolError when it ran out of time, with the output so far."""
    ran = execrun.run(argv, cwd, timeout, env)
    if ran.timed_out:
        raise ToolError(f"'{command}' timed out after {timeout:g}s (tools.exec_timeout); output so far:\n"
                        f"{ran.text}")
    return _shown(ran.code, ran.text)


def _shown(code: int, text: str) -> str:
    if len(text) > MAX_OUTPUT_CHARS:
        text = text[:MAX_OUTPUT_CHARS] + f"\n[output cut at {MAX_OUTPUT_CHARS} chars]"
    return notests.said(f"exit {code}\n{text}".rstrip())
