"""docs/architecture.md's worked example is true: its package, dropped in as written, plus its one line
in ``runtime.FEATURES``, gives a section in the prompt, a tool in the index and in ``nanobot tools``,
a notice at session start and its own ``nanobot agenda`` command -- with nothing else changed."""

from __future__ import annotations

import re
from pathlib import Path

import typer
from typer.testing import CliRunner

import nanobot
from nanobot import runtime
from nanobot.cli.features import Lent
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.loop.agent import Agent
from nanobot.workspace import init_workspace

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def example() -> tuple[str, str, str]:
    """(the feature module's code, its commands module's, the FEATURES line) as the doc shows them."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    module = next(b for b in blocks if "# nanobot/agenda/feature.py" in b)
    commands = next(b for b in blocks if "# nanobot/agenda/commands.py" in b)
    line = next(b for b in blocks if "nanobot.agenda.feature:make_feature" in b)
    return module, commands, line.split("  #")[0].strip().rstrip(",")


def test_the_worked_example_is_one_package_and_one_line(home, tmp_path, monkeypatch):
    code, commands, line = example()
    pkg = tmp_path / "ext" / "agenda"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "feature.py").write_text(code)
    (pkg / "commands.py").write_text(commands)
    monkeypatch.setattr(nanobot, "__path__", [*nanobot.__path__, str(tmp_path / "ext")])
    monkeypatch.setattr(runtime, "FEATURES", [*runtime.FEATURES, eval(line)])  # the doc's one line

    settings = load_settings()
    init_workspace(settings.workspace)
    agent = Agent(settings, runtime.load_model(settings, vocab_only=True))
    runtime.attach_features(agent)
    said = agent.start_session()
    assert any(isinstance(e, Notice) and "no AGENDA.md" in e.text for e in said)
    assert "agenda_read" in agent.system_prompt().text          # in the tool index

    (settings.workspace / "AGENDA.md").write_text("- 10:00 dentist\n")
    agent.start_session()
    prompt = agent.system_prompt().text
    assert "## Agenda\n- 10:00 dentist" in prompt
    assert prompt.index("## Tools") < prompt.index("## Agenda") < prompt.index("## Time")  # by its order
    known, offered, _ = runtime.every_tool(settings)
    assert "agenda_read" in known and "agenda_read" in offered   # `nanobot tools` lists it

    app = typer.Typer()
    runtime.register_commands(app, Lent())  # what `nanobot` does at start (cli/features.py)
    out = CliRunner().invoke(app, ["agenda"], env={"NANOBOT_HOME": str(settings.home)})
    assert out.exit_code == 0 and out.output == "- 10:00 dentist\n\n"  # `nanobot agenda`
