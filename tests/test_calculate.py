"""The calculate tool (``tools.calc``) and the turns it answers first (``tools.firstsum``): arithmetic on
the message's numbers is worked out by the tool where the model's sum classifier is sure, however low
P(call); the expression never runs as code. Then the real 1.5B (skipped without its GGUF)."""

from __future__ import annotations

import pytest

from nanobot.base.errors import ToolError
from nanobot.core.events import ToolCall, ToolResult
from nanobot.tools.calc import evaluate, shown
from tests.qwen import SKIP_REASON, fixed_clock, qwen_path
from tests.test_templatecalls import ToolTemplateModel, body, make_agent

QWEN = qwen_path()


@pytest.mark.parametrize("expression, value", [("2.25 * 60", "135"), ("(3 * 24 - 19)", "53"), ("81 / 4.5", "18"),
                                               ("340 * 17 / 100", "57.8"), ("0.1 + 0.2", "0.3"), ("2 ^ 10", "1024"),
                                               ("sqrt(1764)", "42"), ("round(2 / 3, 2)", "0.67"), ("-7 // 2", "-4")])
def test_arithmetic_is_worked_out_exactly(expression, value):
    assert shown(evaluate(expression)) == value


@pytest.mark.parametrize("expression", ["__import__('os').system('touch x')", "open('a.txt').read()", "x * 2",
                                        "(1).__class__", "'a' * 3", "9 ** 9 ** 9", "10 ** 1000", "1 / 0",
                                        "[1, 2][0]", "lambda: 1", "14:40 + 95"])
def test_anything_but_arithmetic_is_a_one_line_error_and_never_runs(expression, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ToolError) as e:
        evaluate(expression)
    assert "\n" not in str(e.value) and not (tmp_path / "x").exists()


class Summing(ToolTemplateModel):
    """A scripted template-tool model whose sum classifier says yes to ``sums`` (and to its calibration's
    sums), no to everything else."""

    def __init__(self, replies, probs, sums=()):
        super().__init__(replies, probs)
        self.sums, self.judged = set(sums), []

    def yes_no_apart(self, messages):
        from nanobot.loop.judge import CALIBRATION, SUM_SYSTEM

        if messages[0].content != SUM_SYSTEM:
            return 0.1, 0.9
        text = messages[-1].content
        self.judged.append(text)
        return (0.95, 0.05) if text in self.sums | {t for t, yes in CALIBRATION["sum"] if yes} else (0.05, 0.95)


def test_a_sum_the_model_is_sure_of_is_worked_out_by_the_tool_under_the_threshold(home):
    ask = "What is 1234 times 56?"
    model = Summing([body("calculate", {"expression": "1234 * 56"}), "It is 69104."], [0.05, 0.05], sums=[ask])
    agent = make_agent(home, model, enabled=["read_file", "calculate"])
    events = list(agent.turn(ask))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["calculate"]
    assert result.ok and result.text == "1234 * 56 = 69104"
    assert model.calls[0]["grammar"] is not None  # the first step was the call, not a reply that opened one


@pytest.mark.parametrize("ask", ["Give me 3 tips for sleeping better.", "what is twelve times twelve?"])
def test_no_sum_judged_or_no_number_given_no_call(home, ask):
    model = Summing(["Here you go."], [0.05], sums=[])
    agent = make_agent(home, model, enabled=["read_file", "calculate"])
    assert not [e for e in agent.turn(ask) if isinstance(e, ToolCall)]
    assert (ask in model.judged) == any(c.isdigit() for c in ask)  # judged no; with no number, never asked


def test_without_a_computing_tool_offered_nothing_is_asked(home):
    ask = "What is 18% of 250?"
    model = Summing(["45."], [0.05], sums=[ask])
    agent = make_agent(home, model, enabled=["read_file"])
    assert not [e for e in agent.turn(ask) if isinstance(e, ToolCall)] and model.judged == []


@pytest.mark.realmodel
@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_qwen_works_out_a_product_with_the_tool_and_greets_without_it(home):
    """The 1.5B answered "What is 1234 times 56?" with 6804 from its head; its sum classifier (0.999) makes
    the first step calculate, whose expression is grammar-held, validated and evaluated."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import load_settings
    from nanobot.models import resolve_model

    model = LlamaBackend(resolve_model(load_settings(home), str(QWEN)))
    agent = make_agent(home, model, clock=fixed_clock, enabled=["read_file", "calculate"], listing="lean")
    events = list(agent.turn("What is 1234 times 56?"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [c.name for c in calls][:1] == ["calculate"] and results[0].ok
    expression = calls[0].arguments["expression"]
    assert results[0].text == f"{expression.strip()} = {shown(evaluate(expression))}"
    assert not [e for e in agent.turn("hello!") if isinstance(e, ToolCall)]
