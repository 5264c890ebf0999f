"""The fit check (``tools.fitcheck``): on the lean listing a turn's first call is made only when the
model judges that the tool the lean step picked does what the user's message asks; then P(call) needs
only ``FIT_FLOOR``. The loop with a scripted model whose yes/no is set per test, then the 1.5B
(skipped without its GGUF) on a tool that fits one message and not another."""

from __future__ import annotations

import pytest

from nanobot.config import load_settings
from nanobot.core.events import ToolCall
from nanobot.core.features import Feature
from nanobot.loop.agent import Agent
from nanobot.tools.feature import attach_tools
from nanobot.tools.fitcheck import FIT_FLOOR, FIT_YES, SYSTEM, fit_prompt, fits
from nanobot.workspace import init_workspace
from tests.qwen import SKIP_REASON, qwen_path
from tests.test_features import Ping
from tests.test_templatecalls import ToolTemplateModel, body, make_agent

QWEN = qwen_path()


class Judging(ToolTemplateModel):
    """Answers the fit classifier with ``fit`` (P(yes)); any other classifier is unsure."""

    def __init__(self, replies, probs, fit):
        super().__init__(replies, probs)
        self.fit, self.asked = fit, []

    def yes_no_apart(self, messages, **_):
        if messages[0].content != SYSTEM:
            return 0.5, 0.5
        self.asked.append(messages[-1].content)
        return self.fit, 1 - self.fit


class Pings(Feature):
    """``test_features.Ping``, a tool a test adds: no index line of nanobot's, so the fit check judges it."""

    name = "pings"

    def tools(self, settings):
        return [Ping()]


def pinging(home, model):
    settings = load_settings(home, tools={"enabled": ["read_file", "ping_note"], "listing": "lean"},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, model, known_tools=lambda: ["ping_note"])
    attach_tools(agent)
    agent.add_feature(Pings())
    assert set(agent.tool_runner.tools) == {"read_file", "ping_note"}
    return agent


def test_a_likely_call_whose_tool_does_not_fit_the_message_is_declined(home):
    model = Judging(['ping_note"', "I can't check the weather here."], [0.9], fit=FIT_YES - 0.2)
    agent = pinging(home, model)
    events = list(agent.turn("what's the weather in Oslo?"))
    assert not [e for e in events if isinstance(e, ToolCall)] and not (agent.workspace / "ping.txt").exists()
    assert events[-1].reply == "I can't check the weather here."
    assert model.asked == ["Tool: ping_note(word) - Write a word into ping.txt\nMessage: what's the weather in Oslo?"]


def test_an_unlikely_call_whose_tool_fits_is_made_from_the_floor(home):
    p = (FIT_FLOOR + 0.3) / 2  # under the lean listing's threshold (0.3), over the floor
    model = Judging(['ping_note"', body("ping_note", {"word": "hi"}), "Done."], [p, 0.05],
                    fit=FIT_YES + 0.3)
    agent = pinging(home, model)
    events = list(agent.turn("ping the word hi"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["ping_note"]
    assert (agent.workspace / "ping.txt").read_text() == "hi"
    assert len(model.asked) == 1  # the first step only: after the call, the threshold decides


def test_nanobots_own_tools_keep_the_threshold(home):
    """read_file has nanobot's own index line: not judged; under the threshold no call, over it the
    call whatever the classifier would say."""
    pick, call = 'read_file"', body("read_file", {"path": "a.txt"})
    for p, replies, calls in (((FIT_FLOOR + 0.3) / 2, [pick, "Which note?"], []),
                              (0.9, [pick, call, "It says hi."], ["read_file"])):
        model = Judging(replies, [p, 0.05], fit=0.0)
        agent = pinging(home, model)
        (agent.workspace / "a.txt").write_text("hi")
        events = list(agent.turn("what does my note say?"))
        assert [e.name for e in events if isinstance(e, ToolCall)] == calls and model.asked == []


def test_without_a_yes_no_the_threshold_alone_decides(home):
    model = ToolTemplateModel(["Hello!"], [0.2])  # a server or scripted model: nothing to score with
    agent = make_agent(home, model, listing="lean")
    assert not [e for e in agent.turn("put hi into a.txt") if isinstance(e, ToolCall)]
    assert fits(model, {"name": "x"}, "hello") is None


def test_the_prompt_names_the_tool_its_parameters_and_the_first_sentence():
    spec = {"name": "get_weather", "description": "Current weather in a city. Celsius by default.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}
    msgs = fit_prompt(spec, "Is it raining in Lisbon?")
    assert msgs[0].content == SYSTEM and msgs[-1].content == (
        "Tool: get_weather(city, unit) - Current weather in a city\nMessage: Is it raining in Lisbon?")
    assert [m.role for m in msgs[1:-1]] == ["user", "assistant"] * 6


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_judges_a_tool_that_fits_above_one_that_does_not(home):
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.models import resolve_model

    qwen = LlamaBackend(resolve_model(load_settings(home), str(QWEN)))
    weather = {"name": "get_current_weather", "description": "Retrieves the current weather conditions for a city.",
               "parameters": {"properties": {"location": {}, "unit": {}}}}
    fitting = fits(qwen, weather, "How warm is it in Porto right now?")
    other = fits(qwen, weather, "Using my API key, list the files that talk to example.org on VirusTotal.")
    assert fitting is not None and other is not None and fitting >= FIT_YES > other


class Placing(Judging):
    """... whose look classifier places every message on this computer (P(yes) 0.9)."""

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import LOOK_SYSTEM

        return (0.9, 0.1) if messages[0].content == LOOK_SYSTEM else super().yes_no_apart(messages)


def test_a_pick_declined_under_the_threshold_is_the_looks_pick_not_a_second_one(home):
    """P(call) 0.2: the fit step picks read_file, one of nanobot's own tools, under the threshold:
    declined; the question is then looked into (``firstlook.asked_here``) with that same pick."""
    model = Placing(['read_file"', body("read_file", {"path": "notes.txt"}), "It says hi."],
                    [0.2, 0.1], fit=0.9)
    agent = pinging(home, model)
    (agent.workspace / "notes.txt").write_text("hi\n")
    events = list(agent.turn("Is there anything new here?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    assert len(model.calls) == 3  # one pick, the arguments, the reply


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_sends_a_repository_question_to_exec_and_a_folder_question_to_list_dir(home):
    """``best_fit`` over nanobot's three looking tools, as the lean pick's names alone did not: the
    1.5B's name pick sent "Do I have any uncommitted changes?" to list_dir."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.models import resolve_model
    from nanobot.tools.callgrammar import tool_specs
    from nanobot.tools.fitcheck import best_fit

    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir", "exec"]})
    init_workspace(settings.workspace)
    agent = Agent(settings, LlamaBackend(resolve_model(settings, str(QWEN))))
    attach_tools(agent)
    looks = [s["function"] for s in tool_specs(agent.tool_runner.tools)]
    assert best_fit(agent.model, looks, "Do I have any uncommitted changes?") == "exec"
    assert best_fit(agent.model, looks, "¿qué hay en la carpeta docs?") == "list_dir"


class FitsPerTool(Judging):
    """Answers the fit classifier per tool: ``fit[name]`` for the tool the prompt's line names."""

    def yes_no_apart(self, messages, **_):
        if messages[0].content != SYSTEM:
            return 0.5, 0.5
        self.asked.append(messages[-1].content)
        p = next((v for name, v in self.fit.items() if messages[-1].content.startswith(f"Tool: {name}(")), 0.0)
        return p, 1 - p


@pytest.mark.parametrize("exec_fits", [True, False])
def test_a_listing_picked_by_its_name_for_a_message_that_names_nothing_goes_to_the_tool_that_fits(home, exec_fits):
    """"Which branch am I on?" names no file, folder or command, and the lean step picked list_dir by
    its name: the model's fit check of nanobot's looking tools sends it to exec (``git branch``) when
    exec fits it better; a listing that fits as well is made as picked."""
    fit = {"exec": 0.14 if exec_fits else 0.003, "list_dir": 0.003, "read_file": 0.007}
    made = "exec" if exec_fits else "list_dir"
    call = body("exec", {"command": "git branch --show-current"}) if exec_fits else body("list_dir", {"path": "."})
    model = FitsPerTool(['list_dir"', call, "You are on feature/x."], [0.9, 0.05, 0.05], fit=fit)
    settings = load_settings(home, tools={"enabled": ["read_file", "list_dir", "exec"], "listing": "lean",
                                          "exec_allow": ["git branch"]},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, model)
    attach_tools(agent)
    events = list(agent.turn("Which branch am I on?"))
    assert [e.name for e in events if isinstance(e, ToolCall)] == [made]
    assert sorted(line.split("(")[0] for line in model.asked) == ["Tool: exec", "Tool: list_dir", "Tool: read_file"]
