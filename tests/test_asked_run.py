"""A run is a run (issue 75): a message that names a program in the roots and that the model judges,
in any language, to ask for it to be run gets the program's output, not a read of its source; the
reply then answers from the output in words. The judgement is asked only where such a program is
named. Loop logic with a scripted model whose classifiers are fixed; the 1.5B's side is
bench/assistant_bench.py --set cmd_dev / cmd_check."""

from __future__ import annotations

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import ToolCall
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace

TIDES = "heights = [3.42, 4.07, 2.96]\nprint(f'mean tide: {sum(heights) / len(heights):.3f} m')\n"


class Judged(ScriptedModel):
    """Scripted replies; the run classifier answers ``run``, every other one no (calibrated before)."""

    def __init__(self, replies, run: bool):
        from nanobot.loop.judge import CLASSIFIERS

        super().__init__(replies)
        self.run, self.asked = run, []
        self._judge_trusted = dict.fromkeys(CLASSIFIERS, True)

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import RUN_SYSTEM

        self.asked.append(messages[0].content == RUN_SYSTEM)
        return (0.95, 0.05) if messages[0].content == RUN_SYSTEM and self.run else (0.05, 0.95)


def make_agent(home, model, allow=("python3",)):
    settings = load_settings(home, tools={"exec_allow": list(allow), "call_format": "names"},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "tides.py").write_text(TIDES)
    agent = Agent(settings, model)
    attach_tools(agent)
    return agent


def test_a_program_asked_to_run_in_spanish_runs_and_the_reply_answers_from_its_output(home):
    model = Judged(["La marea media es 3.483 m.", "Tool: read_file", '{"path": "tides.py"}'], run=True)
    agent = make_agent(home, model)
    events = list(agent.turn("Ejecuta tides.py y dime la marea media que calcula."))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments.get("command")) for c in calls] == [("exec", "python3 tides.py")]
    assert events[-1].reply == "La marea media es 3.483 m."
    assert "mean tide: 3.483 m" in model.calls[0]["messages"][-1].content  # the reply saw the run's output


def test_no_run_where_the_model_judges_none_asked_or_no_interpreter_is_allowed(home):
    model = Judged(["Tool: read_file", '{"path": "tides.py"}', "Answer:", "It averages three heights."], run=False)
    events = list(make_agent(home, model).turn("¿Qué hace tides.py?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    model = Judged(["Answer:", "I cannot run it."], run=True)
    events = list(make_agent(home, model, allow=("ls",)).turn("Ejecuta tides.py"))
    assert not any(isinstance(e, ToolCall) for e in events) and not any(model.asked)  # nothing to run: not asked


def test_the_judgement_is_asked_only_where_a_program_is_named(home):
    model = Judged(["Answer:", "Paris."], run=True)
    list(make_agent(home, model).turn("What is the capital of France?"))
    assert not any(model.asked)


ROTA = "week,keeper\n45,Ana\n46,Bo\n47,Cy\n"


def _rota_agent(home, model, allow=("head", "cat")):
    agent = make_agent(home, model, allow=allow)
    (agent.settings.workspace / "rota.csv").write_text(ROTA)
    return agent


def test_a_command_typed_in_dutch_runs_first_and_the_reply_answers_from_its_output(home, monkeypatch):
    model = Judged(["Week 46 is van Bo.", "Tool: read_file", '{"path": "rota.csv"}'], run=True)
    agent = _rota_agent(home, model)
    monkeypatch.chdir(agent.settings.workspace)
    events = list(agent.turn("Draai head -n 3 rota.csv: wie heeft week 46?"))
    calls = [(e.name, e.arguments.get("command")) for e in events if isinstance(e, ToolCall)]
    assert calls == [("exec", "head -n 3 rota.csv")]  # the typed command, not a read of the file
    assert "46,Bo" in model.calls[0]["messages"][-1].content
    assert events[-1].reply == "Week 46 is van Bo."


def test_a_typed_command_the_model_is_sure_is_not_to_run_is_left_to_the_model(home, monkeypatch):
    model = Judged(["Tool: read_file", '{"path": "rota.csv"}', "Answer:", "It prints the first lines."], run=False)
    agent = _rota_agent(home, model)
    monkeypatch.chdir(agent.settings.workspace)
    events = list(agent.turn("What would head -n 3 rota.csv show? Do not run it."))
    assert "exec" not in [e.name for e in events if isinstance(e, ToolCall)]


def test_an_english_run_form_runs_the_typed_command_not_the_words_after_it(home, monkeypatch):
    """check6: "run python3 swarm.py again" ran ``python3 swarm.py again``, the script given "again"."""
    model = Judged(["It printed 80001."], run=True)
    agent = make_agent(home, model)
    monkeypatch.chdir(agent.settings.workspace)
    events = list(agent.turn("run python3 tides.py again"))
    assert [e.arguments.get("command") for e in events if isinstance(e, ToolCall)] == ["python3 tides.py"]
