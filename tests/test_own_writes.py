"""nanobot's own writes (file tools, scratchpad) are not reported as "changed outside" at the next
start; a file the user edits by hand afterwards is."""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from nanobot.base.written import load_written
from nanobot.config import load_settings
from nanobot.observer.external import detect
from nanobot.tools.base import ToolContext
from nanobot.tools.files import EditFile, WriteFile
from nanobot.tools.scratchpad import Scratchpad


def run(tool, ctx, **args):
    return tool.run(tool.Args(**args), ctx)


def next_start(settings, last_end):
    """What the next start's External section says about the workspace (as ObserverFeature does)."""
    return detect([("workspace", settings.workspace)], datetime.now().astimezone(), last_end,
                  timeout=5, ignore=load_written(settings.home))


def test_session_writes_are_not_external_but_hand_edits_are(home):
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True)
    ctx = ToolContext(settings=settings, session_id="s1")
    last_end = datetime.now().astimezone() - timedelta(minutes=5)  # the session before this one
    run(WriteFile(), ctx, path="notes/plan.md", content="step one\n")
    run(WriteFile(), ctx, path="todo.txt", content="buy milk\n")
    run(EditFile(), ctx, path="notes/plan.md", old="one", new="two")
    run(Scratchpad(), ctx, action="append", text="thinking")
    assert (settings.workspace / "notes/plan.md").read_text() == "step two\n"
    assert next_start(settings, last_end) == []

    hand = settings.workspace / "todo.txt"
    hand.write_text("buy milk and bread\n")
    st = hand.stat()
    os.utime(hand, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a later edit, whatever the fs clock
    lines = next_start(settings, last_end)
    assert len(lines) == 1 and "todo.txt" in lines[0] and "plan.md" not in lines[0], lines
