"""The interactive chat in a real pseudo-terminal: labels, streaming, Ctrl-C stops a reply, Ctrl-D quits."""

import sys

import pexpect
import pytest

from tests.conftest import ROOT, cli_env
from tests.longreply import CLI


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_ctrl_c_stops_the_reply_and_keeps_the_session(home):
    # the reply cannot end before Ctrl-C lands (tests/longreply.py); tools off (not the subject)
    env = cli_env(home, dict(NANOBOT_CHAT__MAX_TOKENS="400", NANOBOT_CHAT__LOOP_GUARD="false",
                             NANOBOT_TOOLS__ENABLED="[]", NANOBOT_OBSERVER__ENABLED="false",
                             NANOBOT_MEMORY__ENABLED="false", TERM="xterm", COLUMNS="100", LINES="30"))
    child = pexpect.spawn(CLI[0], [*CLI[1:], "chat"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=120, dimensions=(30, 100))
    try:
        child.expect("You: ")
        child.sendline("Write a very long story about a dragon who learns to cook.")
        child.expect("Nano:")
        child.expect(r"\w+ \w+ \w+")  # some words have streamed
        child.sendintr()  # Ctrl-C mid-reply
        child.expect("interrupted: reply stopped, session kept")
        child.expect("You: ")
        child.sendline("/prompt")
        child.expect(r"last turn: prompt \d+ tokens")
        child.expect("You: ")
        child.sendeof()  # Ctrl-D
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    from nanobot.core.transcript import list_transcripts, read_transcript
    records, _ = read_transcript(list_transcripts(home / "sessions")[-1])
    assistant = [r for r in records if r.role == "assistant"]
    assert assistant[0].meta["interrupted"] is True and assistant[0].content
    assert records[-1].role == "event" and records[-1].meta["reason"] == "eof"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_malformed_escape_sequence_typed_or_pasted_is_ignored_not_a_traceback(home):
    env = cli_env(home, dict(NANOBOT_CHAT__MAX_TOKENS="8", NANOBOT_OBSERVER__ENABLED="false",
                             NANOBOT_MEMORY__ENABLED="false", NANOBOT_TOOLS__ENABLED="[]", TERM="xterm",
                             COLUMNS="100", LINES="30"))
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "chat"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=60, dimensions=(30, 100))
    try:
        child.expect("You: ")
        child.send("\x1b[M\xff\xfe\x01" + "hi\r")  # a mouse report prompt_toolkit cannot parse
        child.expect("Nano:")
        child.expect("You: ")
        child.sendeof()
        child.expect(pexpect.EOF)
        seen = child.before
    finally:
        child.close(force=True)
    assert "Traceback" not in seen and child.exitstatus == 0
