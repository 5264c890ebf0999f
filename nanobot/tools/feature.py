"""The built-in tools as a feature: the registry's enabled tools, and cron reminders fired when a
session starts and before every turn.

Other features contribute their own tools through ``Feature.tools``; the Agent builds one
``ToolRunner`` over all of them (``Agent.tool_runner``).
"""

from __future__ import annotations

from typing import Any

from nanobot.core.features import Agent, Feature, Runner
from nanobot.core.prompt import RawSection
from nanobot.tools import repofacts
from nanobot.tools.cron import notices
from nanobot.tools.named import roots_of
from nanobot.tools.paths import base_dir, start_outside
from nanobot.tools.registry import all_tools, enabled_tools

REPO = 92  # the repository's facts: volatile, after Time (read again only when git's HEAD or index changes)


class BuiltinTools(Feature):
    name = "tools"

    def __init__(self) -> None:
        self._stamps: tuple = ()  # the repositories' ``repofacts.stamp`` when their facts were read

    def tools(self, settings) -> list[Any]:
        return list(enabled_tools(settings).values())

    def sections(self, agent) -> list[RawSection]:
        if not agent.settings.prompt.repo:
            return []
        tops = self._repos(agent)
        self._stamps = tuple(repofacts.stamp(t) for t in tops)
        outside = start_outside(roots_of(agent.settings))
        facts = [f for t in tops if (f := repofacts.read(t, names=outside is None or t != repofacts.top_of(outside)))
                 is not None]
        budget = agent.settings.prompt.repo
        text = repofacts.fitted(facts, budget, agent.model.count_tokens) if facts else ""
        return [RawSection(name="repo", text=text, budget=budget, stable=False, order=REPO)] if text else []

    def on_session_start(self, agent):
        return notices(agent.settings)

    def turn_block(self, agent, query: str) -> str:
        """Nothing in front of the message; before it is sent, the prompt is rebuilt when a commit, a
        checkout or a staging changed the repository since its facts were read."""
        if agent.settings.prompt.repo and self._stamps and tuple(
                repofacts.stamp(t) for t in self._repos(agent)) != self._stamps:
            agent.refresh_prompt()
        return ""

    def on_turn_start(self, agent):
        return notices(agent.settings)

    @staticmethod
    def _repos(agent) -> list:
        """The work trees the prompt tells of: the folder nanobot was started in (inside a root or
        not: "which branch am I on?" asks of it; outside the roots only its git facts, no file
        names, as no tool reads there), where relative paths start, the other roots."""
        folders = roots_of(agent.settings)
        return repofacts.repositories([*filter(None, [start_outside(folders)]), base_dir(folders), *folders[1:]])


def catalogue(settings) -> tuple[dict, dict, list[str]]:
    """The registry's tools (classes) and the ones ``[tools]`` offers (``runtime.every_tool``)."""
    return dict(all_tools()), dict(enabled_tools(settings)), []


def make_feature(agent: Agent) -> BuiltinTools:
    return BuiltinTools()


def attach_tools(agent: Agent) -> Runner | None:
    """Add the built-in tools to ``agent``; returns its ToolRunner (None if every tool is off)."""
    agent.add_feature(BuiltinTools())
    return agent.tool_runner
