"""The built-in tools as a feature: the registry's enabled tools, and cron reminders fired when a
session starts and before every turn.

Other features contribute their own tools through ``Feature.tools``; the Agent builds one
``ToolRunner`` over all of them (``Agent.tool_runner``).
"""

from __future__ import annotations

from typing import Any

from nanobot.core.features import Feature
from nanobot.tools.cron import notices
from nanobot.tools.registry import all_tools, enabled_tools


class BuiltinTools(Feature):
    name = "tools"

    def tools(self, settings) -> list[Any]:
        return list(enabled_tools(settings).values())

    def on_session_start(self, agent):
        return notices(agent.settings)

    def on_turn_start(self, agent):
        return notices(agent.settings)


def catalogue(settings) -> tuple[dict, dict, list[str]]:
    """The registry's tools (classes) and the ones ``[tools]`` offers (``runtime.every_tool``)."""
    return dict(all_tools()), dict(enabled_tools(settings)), []


def make_feature(agent: Any) -> BuiltinTools:
    return BuiltinTools()


def attach_tools(agent: Any):
    """Add the built-in tools to ``agent``; returns its ToolRunner (None if every tool is off)."""
    agent.add_feature(BuiltinTools())
    return agent.tool_runner
