"""Hostile text on the terminal: markup and control characters from a model, a tool, a file or a web
page are shown as visible text, never interpreted (no Rich markup crash, no ESC sequence reaching
the terminal, no hidden part in the command the user approves)."""

from __future__ import annotations

import sys
import unicodedata
from types import SimpleNamespace

import pexpect
import pytest

from nanobot.backends.base import Generation
from nanobot.base.safe_text import printable
from nanobot.cli.chat import ChatUI
from nanobot.config import load_settings
from nanobot.core.events import Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.tools.base import ToolContext
from nanobot.tools.cron import Cron
from nanobot.tools.shell import Exec
from tests.conftest import ROOT, cli_env

HOSTILE = "[/] [bold red]x[/bold red] \x1b[2J\x1b]0;pwned\x07\roverwrite\x08\x9b31m \u202eevil"


def test_printable_escapes_every_control_character_but_newline_and_tab():
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable(HOSTILE) == ("[/] [bold red]x[/bold red] \\x1b[2J\\x1b]0;pwned\\x07\\roverwrite\\x08"
                                  "\\x9b31m \\u202eevil")
    assert printable("a\tb\nc\x00\x7f", keep="") == "a\\tb\\nc\\x00\\x7f"
    assert printable("héllo 日本 ✓") == "héllo 日本 ✓"  # printable non-ASCII stays as it is
    every = "".join(map(chr, range(0x2100)))
    shown = printable(every)
    assert [c for c in shown if unicodedata.category(c) == "Cc"] == ["\t", "\n"]  # every other C0/C1
    assert not any(c in shown for c in "\x1b\r\x08\x07\x9b\u202e\u2066\u2028")


def test_chat_renders_hostile_events_as_plain_visible_text(capsys):
    ui = ChatUI(_no_agent(), interactive=False, verbose=False)
    events = [Notice(text=HOSTILE), ToolCall(name="read_file", arguments={"path": HOSTILE}),
              ToolResult(name="read_file", ok=True, text=HOSTILE), TextDelta(text=HOSTILE),
              TurnDone(reply=HOSTILE, generation=Generation())]
    ui.render(iter(events))
    ui.render(iter([TurnDone(reply="[/] final \x1b[31m[bold]", generation=Generation())]))
    out, err = capsys.readouterr()
    for stream in (out, err):
        assert "\x1b" not in stream and "\r" not in stream and "\x08" not in stream and "\u202e" not in stream
    assert out.count("[/] [bold red]x[/bold red] \\x1b[2J\\x1b]0;pwned\\x07\\roverwrite") == 1
    assert "Nano: [/] final \\x1b[31m[bold]" in out
    assert err.count("\\x1b]0;pwned\\x07") == 3  # notice, tool arguments, tool result


def test_the_exec_confirmation_shows_the_command_that_runs(home, monkeypatch):
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    asked: list[str] = []
    ctx = ToolContext(settings=settings, confirm=lambda q: asked.append(q) or False)
    command = "echo harmless\x1b[2K\rrm -rf ~/important"  # on a terminal: only "rm -rf ..." would show
    with pytest.raises(Exception, match="declined"):
        Exec().run(Exec.Args(command=command), ctx)
    assert asked == [f"Run `echo harmless\\x1b[2K\\rrm -rf ~/important` in {settings.workspace.resolve()}? "
                     "(control characters shown escaped)"]
    prompts: list[str] = []
    monkeypatch.setattr("builtins.input", lambda p: prompts.append(p) or "n")
    ui = ChatUI(_no_agent(), interactive=False, verbose=False)
    assert ui.confirm("Run `a\x1b[8m` ?") is False  # the UI escapes whatever question it is given
    assert prompts == ["Run `a\\x1b[8m` ? [y/N] "]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_hostile_reminder_cannot_crash_or_drive_the_real_chat(home):
    """A cron message (the model may write one from a web page) is shown at start as plain text."""
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    Cron().run(Cron.Args(action="add", message=f"check {HOSTILE}", at="2001-01-01 00:00"),
               ToolContext(settings=settings))
    env = cli_env(home, dict(NANOBOT_OBSERVER__ENABLED="false", TERM="xterm", COLUMNS="200", LINES="30"))
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "chat"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=120, dimensions=(30, 200))
    try:
        child.expect("You: ")
        # the session starts behind the prompt (the model loads while you type): its notices follow it
        child.expect_exact("reminder #1: check [/] [bold red]x[/bold red]")
        shown = child.before + child.after
        child.expect("You: |\\x08")  # the rest of the notice line
        shown += child.before + str(child.after)
        child.sendeof()
        child.expect(pexpect.EOF)
        shown += child.before
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, shown
    assert "reminder #1: check [/] [bold red]x[/bold red] \\x1b[2J\\x1b]0;pwned\\x07\\roverwrite\\x08" in shown
    assert "\x1b[2J" not in shown and "\x1b]0;" not in shown and "\x9b" not in shown and "\u202e" not in shown


def _no_agent() -> SimpleNamespace:
    """What ChatUI reads of an agent when nothing runs (no observer to detach)."""
    return SimpleNamespace(settings=SimpleNamespace(observer=SimpleNamespace(enabled=False)),
                           feature=lambda kind: None)
