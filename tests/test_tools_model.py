"""Tool calls with the real bundled SmolLM2-135M at temperature 0.

Validity, not choice: over a fixed set of varied requests, every tool call the model produces must
parse and validate (the grammar guarantees the JSON shape; pydantic checks it). The count is printed.
Nothing leaves the machine: exec has an empty allow-list (and cannot ask), and the web tools are
replaced by offline ones with the same arguments (their grammar and validation are what is tested
here; tests/test_tools_web.py runs them against a 127.0.0.1 server).
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools
from nanobot.tools.grammar import CALL, REPLY
from nanobot.tools.registry import all_tools
from nanobot.tools.web import WebFetch, WebSearch
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow
NOW = datetime(2026, 3, 2, 10, 30).astimezone()

# (request, the tool it is about): the tool is forced for the argument test; the decision test
# lets the model choose freely.
REQUESTS: list[tuple[str, str]] = [
    ("Run git status in the proj folder", "exec"),
    ("Show me the disk usage of this folder with du -sh", "exec"),
    ("Print the current date using the date command", "exec"),
    ("Read notes.md", "read_file"),
    ("Show lines 10 to 20 of README.md", "read_file"),
    ("What does the file todo.txt say?", "read_file"),
    ("Write 'hello world' to hello.txt", "write_file"),
    ("Save a shopping list with eggs, milk and bread to shopping.md", "write_file"),
    ("Create a file called plan.txt that says: finish the report", "write_file"),
    ("In config.txt replace 'mode = slow' with 'mode = fast'", "edit_file"),
    ("Fix the typo 'teh' -> 'the' in notes.md", "edit_file"),
    ("List the files in my workspace", "list_dir"),
    ("What is inside the skills folder?", "list_dir"),
    ("Search the web for llama.cpp grammar performance", "web_search"),
    ("Look up the weather in Paris online", "web_search"),
    ("Fetch http://127.0.0.1:9/index.html and summarize it", "web_fetch"),
    ("Get the page at http://127.0.0.1:9/docs", "web_fetch"),
    ("Add a task: buy milk", "task_board"),
    ("Show my task list", "task_board"),
    ("Mark task 2 as done", "task_board"),
    ("Note in the scratchpad that step 1 is done", "scratchpad"),
    ("What did I write in the scratchpad?", "scratchpad"),
    ("Which skills do you have?", "skill_manager"),
    ("Load the commit-message skill", "skill_manager"),
    ("Ask a helper to write a haiku about autumn", "spawn"),
    ("Delegate: count the vowels in 'banana'", "spawn"),
    ("Remind me every 30 minutes to stretch", "cron"),
    ("Remind me at 2030-01-01 09:00 to renew my passport", "cron"),
    ("Cancel reminder number 3", "cron"),
    ("Send me a message saying the build finished", "message"),
    ("Tell me right away: lunch is ready", "message"),
    ("Search my memory for my birthday", "memory_search"),
    ("Remember that my sister is called Ana", "memory_add"),
]
# The suite runs the first request of each tool (every tool's argument grammar, every decision
# admitted); bench/tools_bench.py runs the whole set and reports the rates.
PER_TOOL: list[tuple[str, str]] = list({tool: (r, tool) for r, tool in reversed(REQUESTS)}.values())[::-1]


@pytest.fixture
def agent(home, model):
    settings = load_settings(
        home, chat={"temperature": 0, "max_tokens": 48}, memory={"enabled": False},
        observer={"enabled": False}, kv_cache={"enabled": False},
        tools={"exec_allow": [], "web_search_url": None,  # every tool, the ones off by default too
               "enabled": [*all_tools()]},
    )
    init_workspace(settings.workspace)
    (settings.workspace / "notes.md").write_text("teh notes\n")
    a = Agent(settings, model, clock=lambda: NOW)  # a fixed prompt: decisions are reproducible
    runner = attach_tools(a)
    runner.tools |= {"web_fetch": OfflineFetch(), "web_search": OfflineSearch()}
    a.start_session()
    assert set(t for _, t in REQUESTS) <= set(runner.names()) | {"memory_search", "memory_add"}
    return a


class OfflineFetch(WebFetch):
    def run(self, args, ctx) -> str:
        raise ToolError("web_fetch is offline in this test")


class OfflineSearch(WebSearch):
    def run(self, args, ctx) -> str:
        raise ToolError("web_search is offline in this test")


CUT = "were cut off before the JSON was complete"  # the runtime's report of a call cut at args_tokens


def _attempts(events) -> tuple[int, list[str], int]:
    """Argument generations in ``events``, the errors of those that did not validate, and how many
    were cut at ``tools.args_tokens``. A cut is not a failure: a free-text argument (a file's content,
    a shell command) may run past any token budget; what the runtime guarantees is that it says so
    (and retries) instead of running a truncated call."""
    calls = sum(isinstance(e, ToolCall) for e in events)
    errors = [e.text for e in events if isinstance(e, ToolResult) and not e.ok
              and e.text.startswith("arguments for")]
    cut = sum(CUT in e for e in errors)
    return calls + len(errors), [e for e in errors if CUT not in e], cut


def test_every_tool_call_parses_and_validates(agent, capsys):
    runner = agent.tool_runner
    assert len(PER_TOOL) >= 15
    total, failures, executed, cuts = 0, [], 0, 0
    for request, tool in PER_TOOL:
        if tool not in runner.tools:
            continue
        msgs = agent.messages_for(request)
        events = list(runner.call(agent, msgs, tool))
        n, bad, cut = _attempts(events)
        total, cuts = total + n, cuts + cut
        failures += [f"{request!r} -> {tool}: {b}" for b in bad]
        executed += any(isinstance(e, ToolResult) and e.ok for e in events)
    decisions = [s for s in runner.stats if s.kind == "args"]
    with capsys.disabled():
        print(f"\n[tools] forced tool calls: {total - len(failures) - cuts}/{total} parsed and validated "
              f"over {len(PER_TOOL)} requests ({cuts} cut at args_tokens, reported); {executed} ran "
              f"without a tool error; "
              f"args step mean {sum(s.seconds for s in decisions) / len(decisions):.2f}s")
    assert total >= len(PER_TOOL) - 2  # memory tools are offered only with memory on
    assert failures == []
    _cuts_were_cut(runner, cuts)


def test_free_decisions_are_valid_and_their_calls_validate(agent, capsys):
    runner = agent.tool_runner
    names = runner.names()
    chosen: list[str | None] = []
    raw: list[str] = []
    total, failures, cuts = 0, [], 0
    for request, _ in PER_TOOL:
        msgs = agent.messages_for(request)
        name = runner.decide(agent, msgs, names)
        raw.append(agent.model.last.text)
        chosen.append(name)
        if name is not None:  # whichever tool it is: its call validates, or its cut is reported
            n, bad, cut = _attempts(list(runner.call(agent, msgs, name)))
            total, cuts = total + n, cuts + cut
            failures += bad
    steps = [s for s in runner.stats if s.kind == "decision"]
    with capsys.disabled():
        print(f"\n[tools] free decisions: {sum(c is not None for c in chosen)}/{len(PER_TOOL)} chose a tool; "
              f"{total - len(failures) - cuts}/{total} of those calls validated ({cuts} cut, reported); "
              f"decision step mean "
              f"{sum(s.seconds for s in steps) / len(steps) * 1000:.0f} ms, "
              f"{sum(s.tokens for s in steps) / len(steps):.1f} tokens")
    # the grammar held: the model wrote exactly one of the admitted decisions, nothing more
    admitted = {REPLY} | {CALL + n for n in names}
    assert [t for t in raw if t not in admitted] == []
    assert chosen == [None if t == REPLY else t[len(CALL):] for t in raw]
    assert failures == []
    _cuts_were_cut(runner, cuts)


def _cuts_were_cut(runner, cuts: int) -> None:
    """Each reported cut is an argument step that really ran to ``tools.args_tokens``."""
    full = [s for s in runner.stats if s.kind == "args" and s.tokens >= runner.settings.tools.args_tokens]
    assert cuts <= len(full), (cuts, full)


def test_a_plain_reply_after_the_decision_reuses_the_prompt_from_the_kv_cache(agent):
    list(agent.turn("Hello!"))  # whatever the model does with it
    runner = agent.tool_runner
    msgs = agent.messages_for("What is the capital of France?")
    prompt = agent.model.prompt_tokens(msgs)
    runner.decide(agent, msgs, runner.names())
    step = runner.stats[-1]
    # the decision evaluated the new message (not the history) ...
    assert step.evaluated_tokens < prompt // 2 < step.reused_tokens
    # ... and a reply from the same prompt re-uses all of it: only the last token is replayed
    done = list(agent.stream_reply(msgs))[-1]
    assert done.generation.evaluated_tokens == 1
    assert done.generation.reused_tokens == prompt - 1


def test_cli_tools_and_prompt_cost(cli, capsys):
    listing = cli("tools")
    assert listing.returncode == 0, listing.stderr
    for name in ("exec", "read_file", "edit_file", "web_fetch", "cron", "message"):
        assert name in listing.stdout
    schema = json.loads(cli("tools", "edit_file").stdout)
    assert schema["name"] == "edit_file" and schema["parameters"]["required"] == ["path", "old", "new"]
    bad = cli("tools", "nope")
    assert bad.returncode == 2 and bad.stderr.startswith("Error: no tool 'nope'")
    report = json.loads(cli("prompt", "--json").stdout)
    tools = report["tools"]
    with capsys.disabled():
        print(f"\n[tools] index {tools['index_tokens']} tokens vs all schemas {tools['all_schemas_tokens']}")
    assert tools["index_tokens"] <= 200 and tools["index_tokens"] * 10 < tools["all_schemas_tokens"]  # [prompt] tools
    section = next(s for s in report["sections"] if s["name"] == "tools")
    assert "exec: " in report["text"] and "read_file: " in report["text"] and section["tokens"] == tools["index_tokens"]
