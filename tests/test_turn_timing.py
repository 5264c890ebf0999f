"""Honest ``-v`` (``nanobot/loop/report.py``): the time from Enter to the first visible token counts
the tool decision, the argument step and the tool itself, not only the final reply's own ttft."""

from __future__ import annotations

import time

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.loop.agent import Agent
from nanobot.tools.runner import StepStats
from nanobot.workspace import init_workspace

STEP = 0.2


class SlowRunner:
    """A tool runner whose decision, argument step and tool each take ``STEP`` seconds (as a CPU model's
    constrained steps do), recording its steps the way ``ToolRunner`` does."""

    def __init__(self):
        self.stats: list[StepStats] = []
        self.tools: dict = {}  # name -> Tool, as ToolRunner has (the reply checks read their effects)

    def names(self):
        return ["read_file"]

    def template_calls(self, agent):  # the names path (the runner interface the Agent reads)
        return False

    def respond(self, agent, messages):
        for kind in ("decision", "args"):
            time.sleep(STEP)
            self.stats.append(StepStats(kind=kind, tool="read_file", seconds=STEP, ttft_s=STEP, tokens=3,
                                        evaluated_tokens=10, reused_tokens=0))
        yield ToolCall(name="read_file", arguments={"path": "notes.txt"})
        time.sleep(STEP)
        yield ToolResult(name="read_file", ok=True, text="notes.txt lines 1-1 of 1\nhello")
        time.sleep(STEP)  # the decision after the tool: answer
        self.stats.append(StepStats(kind="decision", seconds=STEP, ttft_s=STEP, tokens=2,
                                    evaluated_tokens=5, reused_tokens=0))
        yield from agent.stream_reply(messages)


def test_first_token_counts_the_tool_steps(home):
    settings = load_settings(memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["It says hello."]))
    agent.tool_runner = SlowRunner()
    events = list(agent.turn("What is in notes.txt?"))  # ("read X" nanobot reads itself)
    done = events[-1]
    assert isinstance(done, TurnDone) and done.timing is not None
    t = done.timing
    assert t.decisions == 2 and abs(t.decision_s - 2 * STEP) < 1e-6
    assert t.arguments == 1 and abs(t.arguments_s - STEP) < 1e-6
    assert t.tools_s >= STEP
    # Enter -> first visible token: every step before the reply, not the reply call's own ttft
    assert t.first_token_s >= 4 * STEP > done.generation.ttft_s
    assert t.total_s >= t.first_token_s
    line = t.line()
    assert line.startswith(f"first token {t.first_token_s:.2f}s · decision ") and "arguments" in line
    assert "tools" in line and line.endswith(f"total {t.total_s:.2f}s")
    assert any(isinstance(e, TextDelta) for e in events)


def test_a_turn_without_tools_reports_first_token_and_total(home):
    settings = load_settings(memory={"enabled": False}, observer={"enabled": False}, tools={"enabled": []})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["Four."]))
    done = list(agent.turn("What is 2+2?"))[-1]
    assert done.timing.decisions == 0 and done.timing.tools_s == 0
    assert "decision" not in done.timing.line() and done.timing.first_token_s <= done.timing.total_s


def test_verbose_chat_shows_first_token_and_total_with_the_real_model(cli, home):
    r = cli("chat", "-v", input="Hello\n", env={"NANOBOT_CHAT__MAX_TOKENS": "8",
                                                  "NANOBOT_MEMORY__ENABLED": "false",
                                                  "NANOBOT_OBSERVER__ENABLED": "false"})
    assert r.returncode == 0, r.stderr
    figures = [ln for ln in r.stderr.splitlines() if ln.startswith("[prompt ")]
    assert len(figures) == 1, r.stderr
    assert " · first token " in figures[0] and " · reply ttft " in figures[0] and " · total " in figures[0]
