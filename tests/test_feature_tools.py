"""Features own the tools they bring (issue 26): the memory tools are the memory feature's, the
knowledge tools the vault's; the built-in registry holds neither. The prompt's tool order, the
``[tools] enabled`` check and ``nanobot tools`` are what they were with the tools in the registry."""

from __future__ import annotations

import json

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.base.errors import ConfigError
from nanobot.config import load_settings
from nanobot.memory.tools import TOOLS as MEMORY_TOOLS
from nanobot.runtime import build_agent, every_tool, feature_tools
from nanobot.tools.registry import BUILTINS, all_tools
from nanobot.vault.tools import TOOLS as VAULT_TOOLS
from tests.conftest import run_cli

OWNED = {"memory_search", "memory_add", "knowledge_read", "knowledge_search", "knowledge_apply"}


def test_the_registry_holds_no_feature_tool_and_the_features_hold_theirs():
    assert not OWNED & set(all_tools()) and not any(".memory:" in s or ".knowledge:" in s for s in BUILTINS)
    assert [t.name for t in MEMORY_TOOLS] == ["memory_search", "memory_add"]
    assert [t.name for t in VAULT_TOOLS] == ["knowledge_read", "knowledge_search", "knowledge_apply"]
    assert {t.name for t in feature_tools()} == OWNED


def test_offered_in_the_old_order_through_the_features(home):
    names = list(every_tool(load_settings())[1])
    assert names[-5:] == ["memory_search", "memory_add", "knowledge_read", "knowledge_search", "knowledge_apply"]
    assert names[:-5] == [n for n in all_tools() if n in names]  # the built-ins first, as before
    off = every_tool(load_settings(home, memory={"enabled": False}))[1]
    assert not {"memory_search", "memory_add", "knowledge_search"} & set(off) and "knowledge_read" in off


def test_a_switched_off_features_tool_in_tools_enabled_is_skipped_not_an_error(home):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False},
                             tools={"enabled": ["memory_search", "read_file"]})
    agent = build_agent(settings, ScriptedModel([]))
    assert agent.tool_names() == ["read_file"]
    typo = load_settings(home, memory={"enabled": False}, tools={"enabled": ["memroy_search"]})
    with pytest.raises(ConfigError, match="unknown tool.*memroy_search"):
        build_agent(typo, ScriptedModel([])).tool_names()


def test_nanobot_tools_lists_each_feature_tool_once(home):
    r = run_cli("tools", "--json", home=home)
    assert r.returncode == 0, r.stderr
    names = [row["name"] for row in json.loads(r.stdout)]
    assert len(names) == len(set(names)) and OWNED <= set(names)
