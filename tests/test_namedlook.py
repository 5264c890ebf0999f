"""A look's ``path`` is held to the existing files (read_file) or folders (list_dir) the user's message
names (``tools.namedlook``): the 1.5B listed "." for "whats insdie the trips folder?" and read
trips/packing.txt for "how many words are in letter.txt?"."""

from __future__ import annotations

import json
from types import SimpleNamespace

from nanobot.config import load_settings
from nanobot.core.provenance import Provenance
from nanobot.loop.agent import Agent
from nanobot.loop.judge import Judge
from nanobot.tools.base import ToolContext
from nanobot.tools.feature import attach_tools
from nanobot.tools.files import ListDir, ReadFile
from nanobot.workspace import init_workspace


def _settings(home):
    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir"]},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "trips").mkdir()
    (settings.workspace / "trips" / "packing.txt").write_text("passport\nadapter\n")
    (settings.workspace / "letter.txt").write_text("Dear Mr Okafor,\nthanks.\n")
    return settings


def _ctx(settings, said):
    return ToolContext(settings=settings, agent=SimpleNamespace(provenance=Provenance(said=[said]), judge=Judge()))


def test_a_look_is_held_to_the_entries_of_its_kind_the_message_names(home):
    settings = _settings(home)
    ctx = _ctx(settings, "how many words are in leter.txt?")  # a typo: still the file that is there
    assert ReadFile().offered(ctx)["properties"]["path"]["enum"] == ["letter.txt"]
    assert ListDir().offered(ctx) == ListDir.parameters()  # no folder named: the listing stays free
    ctx = _ctx(settings, "whats insdie the trips folder?")
    assert ListDir().offered(ctx)["properties"]["path"]["enum"] == ["trips"]
    assert "path" in ListDir().offered(ctx)["required"]  # a held path is written: no ``{}`` that lists "."
    assert ReadFile().offered(ctx) == ReadFile.parameters()
    both = _ctx(settings, "compare trips/packing.txt with letter.txt")
    assert sorted(ReadFile().offered(both)["properties"]["path"]["enum"]) == ["letter.txt", "trips/packing.txt"]
    assert ReadFile().offered(_ctx(settings, "do I have taxes_2023.pdf here?")) == ReadFile.parameters()
    assert ReadFile().offered(ToolContext(settings=settings)) == ReadFile.parameters()  # outside a chat
    assert "enum" not in json.dumps(ReadFile.parameters()["properties"]["path"])  # the class's schema is untouched


def test_the_real_model_lists_the_folder_the_message_names(model, home):
    """The real SmolLM2 writes list_dir's arguments for a misspelled ask about a folder: the folder named."""
    agent = Agent(_settings(home), model)
    attach_tools(agent)
    agent.start_session()
    text = "whats insdie the trips folder?"
    agent.provenance.said.append(text)
    runner = agent.tool_runner
    raw, args, error = runner.arguments(agent, agent.messages_for(text), runner.tools["list_dir"])
    assert args is not None and args.path == "trips", (raw, error)
    ok, result, _ = runner.execute(agent, runner.tools["list_dir"], args)
    assert ok and "packing.txt" in result
