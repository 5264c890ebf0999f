"""A program the message names, told of without its run (``loop.looks.output_unrun``): a reply that gives
values nothing this turn showed, where the model's run judgement leans yes, is answered again from the
program's real run (``python3 tides.py`` in a real folder), the call taken from the user's words."""

from __future__ import annotations

from nanobot.core.events import Notice, ToolCall, ToolResult
from tests.test_templatecalls import JudgingTemplateModel, body, make_agent

TIDES = ('heights = [3.42, 4.07, 2.96, 4.51]\ndays = ["Mon", "Tue", "Wed", "Thu"]\n'
         'print(f"mean tide: {sum(heights) / len(heights):.3f} m")\n'
         'print(f"spring tide: {days[heights.index(max(heights))]}")\n')


class RunJudging(JudgingTemplateModel):
    """... whose "run" classifier gives P(yes) ``run`` for the message (its calibration answered right)."""

    def __init__(self, replies, probs, run: float):
        super().__init__(replies, probs, change=False, look=0.9, calibrated=True)
        self.run = run

    def yes_no_apart(self, messages, **_):
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

        if messages[0].content == CLASSIFIERS["run"][0] and messages[-1].content not in dict(CALIBRATION["run"]):
            return self.run, 1 - self.run
        return super().yes_no_apart(messages)


def _turn(home, text: str, run: float, reply: str, again: str = "The spring tide falls on Thu."):
    model = RunJudging(['read_file"', body("read_file", {"path": "tides.py"}), reply, again], [0.9, 0.1, 0.1], run)
    agent = make_agent(home, model, enabled=["read_file", "exec"], exec_allow=["python3"])
    (agent.workspace / "tides.py").write_text(TIDES)
    events = list(agent.turn(text))
    return events, [(e.name, e.arguments.get("path") or e.arguments["command"]) for e in events
                    if isinstance(e, ToolCall)]


def test_a_programs_output_told_from_its_source_is_answered_from_its_run(home):
    events, calls = _turn(home, "Roda o tides.py e diz-me em que dia cai a maré viva.", 0.6,
                          "The mean tide is 3.64 m and the spring tide is Wed.")
    assert calls == [("read_file", "tides.py"), ("exec", "python3 tides.py")]
    ran = [e for e in events if isinstance(e, ToolResult) and e.name == "exec"]
    assert ran[0].ok and "mean tide: 3.740 m" in ran[0].text  # the program's real output
    assert any("3.64" in e.text and "running it" in e.text for e in events if isinstance(e, Notice))
    assert events[-1].reply.endswith("The spring tide falls on Thu.")


def test_a_question_about_what_a_program_does_is_not_run(home):
    """The run judgement leans no ("what does tides.py do?"): the same values in the reply are no run owed."""
    _, calls = _turn(home, "What does tides.py do?", 0.3, "It prints the mean tide, 3.64 m, and the spring tide's day.")
    assert calls == [("read_file", "tides.py")]


def test_a_reply_whose_values_the_source_shows_is_no_run_owed(home):
    _, calls = _turn(home, "Roda o tides.py e diz-me em que dia cai a maré viva.", 0.6,
                     "It takes the heights 3.42, 4.07, 2.96 and 4.51 and prints the day of the highest.")
    assert calls == [("read_file", "tides.py")]


def test_a_run_misread_is_answered_again_from_its_output_then_shown_under_it(home):
    """A sure run judgement runs the program before any reply (``runasked.asked_run``); a reply with a
    value its output does not show is asked again with the output, and shown with it when still wrong."""
    for again, shown in (("The spring tide falls on Thu.", False), ("It falls on the 16th.", True)):
        model = RunJudging(["The spring tide is on Wed, March 16th.", again], [0.1, 0.1], run=0.9)
        agent = make_agent(home, model, enabled=["read_file", "exec"], exec_allow=["python3"])
        (agent.workspace / "tides.py").write_text(TIDES)
        events = list(agent.turn("Roda o tides.py e diz-me em que dia cai a maré viva."))
        assert [e.arguments["command"] for e in events if isinstance(e, ToolCall)] == ["python3 tides.py"]
        assert "spring tide: Thu" in model.calls[-1]["messages"][-1].content  # the retry sees the output
        assert events[-1].reply.endswith("spring tide: Thu)") is shown, events[-1].reply
