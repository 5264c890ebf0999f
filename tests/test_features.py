"""The feature contract: sections, a per-turn block, tools and lifecycle hooks plug in through one
``Feature``; the template workspace's prompt is byte-for-byte what it was before the contract."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic import Field

from nanobot.config import load_settings
from nanobot.core.events import Notice, TurnDone
from nanobot.core.features import Feature, merge_sections
from nanobot.core.prompt import RawSection
from nanobot.core.transcript import Transcript, read_transcript
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features, load_model
from nanobot.tools.base import Tool, ToolArgs
from nanobot.workspace import init_workspace

DATA = Path(__file__).parent / "data"
NOW = datetime(2026, 3, 10, 15, 40, tzinfo=timezone(timedelta(hours=1)))


def _prompt(settings) -> str:
    agent = Agent(settings, load_model(settings, vocab_only=True), clock=lambda: NOW)
    attach_features(agent)
    agent.start_session()
    return agent.system_prompt().text


def test_template_prompt_bytes_are_unchanged_by_the_contract(home):
    """tests/data/template_prompt.txt was printed by the code before the contract (commit 264a28d)
    for the template workspace, default features, the bundled model's tokenizer and this clock; the
    contract left it byte-identical (cd362d8). Since then only the Time lines changed, on purpose
    (issue 10's wording: "Session: just started", gap wording, the last session's length) and, with the knowledge vault
    (issue 11), the tool index gained knowledge_read, knowledge_search, knowledge_apply; an empty vault
    adds no section. Issue 29 (deliberate): the ``rules`` line (retrieved text is information, not
    instructions), intent lines in the tool index, and no web tools without a search URL or hosts.
    Issue 39 (deliberate): append_file in the tool index. Issue 37 (deliberate): the last session's end,
    length and pattern moved from Time to a stable "Last session" section (the disk KV entry holds it).
    Round 32 (deliberate): ``message`` off by default, so not in the tool index."""
    settings = load_settings()
    init_workspace(settings.workspace)
    assert _prompt(settings) == (DATA / "template_prompt.txt").read_text(encoding="utf-8")


def test_lived_in_prompt_bytes_are_unchanged_by_the_contract(home):
    """USER.md, CONTEXT.md (rendered by the observer) and an earlier session (Time lines), as
    printed by the code before the contract (same history as template_prompt.txt); issue 37 moved the
    last session's end and length from Time to the stable "Last session" section on purpose."""
    settings = load_settings()
    ws = settings.workspace
    init_workspace(ws)
    (ws / "USER.md").write_text("# User\n- Name: Ada\n- Prefers: short answers\n")
    (ws / "CONTEXT.md").write_text("# Context\n\n## Now\n- Focus: CSV parser in Rust\n- Task: malformed rows\n\n"
                                   "## Recent\n- Decided to use serde\n\n## Notes\n- my own line\n")
    for f in ws.rglob("*"):
        os.utime(f, (1767225600, 1767225600))  # written before the last session: no "Changed outside"
    t = Transcript.create(settings.sessions_dir, NOW - timedelta(hours=3), model="x")
    t.append("user", "hi", now=NOW - timedelta(hours=3))
    t.append("assistant", "hello", now=NOW - timedelta(hours=2, minutes=40))
    t.append("event", "session end", now=NOW - timedelta(hours=2, minutes=40), reason="quit")
    assert _prompt(settings) == (DATA / "lived_in_prompt.txt").read_text(encoding="utf-8")


def test_merge_leads_with_the_first_appends_later_lines_and_replace_takes_over():
    core = RawSection(name="ctx", text="as written", budget=50, header="## Context", order=40)
    time_ = RawSection(name="time", text="Now: 9:00", budget=80, stable=False, order=90)
    extra = RawSection(name="time", text="Back after 2 h", budget=0, order=90)
    empty = RawSection(name="time", text="  ", budget=0, order=90)
    early = RawSection(name="soul", text="Hi", budget=9, order=10)
    ours = RawSection(name="ctx", text="rendered", budget=60, header="## Context", order=40, replace=True)
    out = merge_sections([core, time_, extra, empty, early, ours])
    assert [(s.name, s.text, s.budget, s.stable) for s in out] == [
        ("soul", "Hi", 9, True), ("ctx", "rendered", 60, True), ("time", "Now: 9:00\nBack after 2 h", 80, False)]
    assert time_.text == "Now: 9:00"  # contributions are not mutated (they may be cached)


class PingArgs(ToolArgs):
    word: str = Field(description="a word", max_length=20)


class Ping(Tool):
    name = "ping_note"
    description = "Write a word into ping.txt."
    Args = PingArgs

    def run(self, args: PingArgs, ctx) -> str:
        (ctx.workspace / "ping.txt").write_text(args.word)
        return "written"


class Probe(Feature):
    """A feature touching every member of the contract, recording the hooks it sees."""

    name = "probe"

    def __init__(self):
        self.calls: list[str] = []

    def sections(self, agent):
        return [RawSection(name="probe", text="Probe rules apply.", budget=20, order=35),
                RawSection(name="time", text="Probe clock line.", budget=0, stable=False, order=90)]

    def turn_block(self, agent, query):
        return f"Probe block for: {query}"

    def tools(self, settings):
        return [Ping()]

    def on_session_start(self, agent):
        self.calls.append("start")
        return [Notice(text="probe started")]

    def on_turn_start(self, agent):
        self.calls.append("turn_start")

    def on_context_pressure(self, agent, used):
        self.calls.append(f"pressure:{used > 0}")

    def on_turn_end(self, agent, done):
        assert isinstance(done, TurnDone)
        self.calls.append("turn_end")

    def on_session_end(self, agent, reason):
        self.calls.append(f"end:{reason}")


def test_one_feature_contributes_sections_block_tools_and_hooks_with_the_real_model(home, model, monkeypatch):
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", '["ping_note", "read_file"]')
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    monkeypatch.setenv("NANOBOT_OBSERVER__THRESHOLD", "0.01")  # every turn is "under pressure"
    monkeypatch.setenv("NANOBOT_CHAT__MAX_TOKENS", "16")
    settings = load_settings()
    init_workspace(settings.workspace)
    agent = Agent(settings, model, clock=lambda: NOW)
    attach_features(agent)
    probe = agent.add_feature(Probe())
    start = agent.start_session()
    assert any(isinstance(e, Notice) and e.text == "probe started" for e in start)

    built = agent.system_prompt()
    names = [s.name for s in built.sections]
    assert names.index("tools") < names.index("probe") < names.index("time")  # order 35
    # intent lines first, the other tools after, each in the order of [tools] enabled
    assert "## Tools\nread_file: read or show a file the user names\nother tools: ping_note" in built.text
    time_text = next(s.text for s in built.sections if s.name == "time")
    assert time_text.startswith("## Time\nNow: ") and time_text.endswith("Probe clock line.")
    assert "Probe clock line." not in built.stable_text  # volatile lines stay after the prefix

    events = list(agent.turn("hello there"))
    assert isinstance(events[-1], TurnDone)
    agent.end_session("quit")
    assert probe.calls == ["start", "pressure:True", "turn_start", "turn_end", "end:quit"]
    records, _ = read_transcript(agent.transcript.path)
    assert next(r for r in records if r.role == "user").content == "hello there"
    memory = next(r for r in records if r.role == "event" and r.content == "memory")
    assert memory.sent == "Probe block for: hello there\n\nhello there"  # block in front, that turn only
    assert agent.system_prompt().text == built.text


def test_a_feature_tool_runs_end_to_end_when_forced(home, model, monkeypatch):
    """With the contributed tool the only one, and the decision forced, the real model's call is
    grammar-constrained, validated, passes the call policy (an undeclared tool is guarded as one that
    changes; the user asked for the change) and runs: the file appears."""
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", '["ping_note"]')
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    monkeypatch.setenv("NANOBOT_OBSERVER__ENABLED", "false")
    settings = load_settings()
    init_workspace(settings.workspace)
    agent = Agent(settings, model, clock=lambda: NOW)
    agent.add_feature(Probe())
    runner = agent.tool_runner
    assert runner.names() == ["ping_note"]
    agent.start_session()
    ask = "Write the word hello into the ping note."
    agent.provenance.said.append(ask)  # as a turn records the user's message (the call policy reads it)
    msgs = agent.messages_for(ask)
    events = list(runner.call(agent, msgs, "ping_note", set()))
    assert (settings.workspace / "ping.txt").exists()
    assert any(getattr(e, "name", "") == "ping_note" and getattr(e, "ok", False) for e in events)


def test_vault_and_team_chat_prompt_bytes_are_unchanged_by_the_layout(home):
    """Knowledge docs (the vault's TOC and digest), a team chat selected (``--chat team --as alice``),
    USER.md, CONTEXT.md and an earlier session: tests/data/vault_chat_prompt.txt was printed by the
    code before issue 26's layout and feature-owned tools (483db4a); the same bytes now, but for issue
    37's "Last session" section (the Time lines that do not depend on now, moved before Time)."""
    settings = load_settings()
    ws = settings.workspace
    init_workspace(ws)
    (ws / "USER.md").write_text("# User\n- Name: Ada\n- Prefers: short answers\n")
    (ws / "CONTEXT.md").write_text("# Context\n\n## Now\n- Focus: CSV parser in Rust\n- Task: malformed rows\n\n"
                                   "## Recent\n- Decided to use serde\n")
    kn = ws / "knowledge"
    (kn / "projects").mkdir(parents=True, exist_ok=True)
    (kn / "projects" / "csv.md").write_text("---\ntitle: CSV parser\nsummary: A streaming CSV parser in Rust "
                                            "with serde.\n---\n# CSV parser\nNotes.\n")
    (kn / "recipes.md").write_text("---\ntitle: Recipes\nsummary: Family recipes, mostly soups.\n---\nSoup.\n")
    for f in ws.rglob("*"):
        os.utime(f, (1767225600, 1767225600))
    t = Transcript.create(settings.sessions_dir, NOW - timedelta(hours=3), model="x")
    t.append("user", "hi", now=NOW - timedelta(hours=3))
    t.append("assistant", "hello", now=NOW - timedelta(hours=2, minutes=40))
    t.append("event", "session end", now=NOW - timedelta(hours=2, minutes=40), reason="quit")
    from nanobot.chats.feature import ChatContextFeature

    agent = Agent(settings, load_model(settings, vocab_only=True), clock=lambda: NOW)
    attach_features(agent)
    agent.feature(ChatContextFeature).select("team", "alice")
    agent.start_session()
    assert agent.system_prompt().text == (DATA / "vault_chat_prompt.txt").read_text(encoding="utf-8")
