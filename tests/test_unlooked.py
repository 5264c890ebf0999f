"""A reply that speaks of the user's files with nothing looked at (``loop/looks.py``): retried with a
look when the model judges the message asks for something read or run here."""

from __future__ import annotations

import pytest

from nanobot.loop.looks import named_unlooked
from nanobot.loop.replycheck import check
from nanobot.loop.verdict import ANY_LOOK, Facts, Outcome
from nanobot.tools.effects import Effect
from tests.qwen import SKIP_REASON, qwen_agent, qwen_path

QWEN = qwen_path()
ADVICE = "To ensure that the tests still pass, you can run the `test_pricing.py` script again."


def facts(reply, handed, look_sure, done=(), target=""):
    return Facts(user_text="now make sure the tests still pass", reply=reply, done=list(done), target=target,
                 look_sure=look_sure, extra={"files": lambda: handed})


def test_advice_naming_a_file_with_nothing_tried_is_retried_with_a_look_only_when_a_look_is_judged_asked():
    verdict = named_unlooked(facts(ADVICE, ["test_pricing.py"], True))
    assert verdict is not None and verdict.tool == ANY_LOOK and "test_pricing.py" in verdict.note
    assert named_unlooked(facts(ADVICE, ["test_pricing.py"], False)) is None  # a how-to: the advice stands
    assert named_unlooked(facts("Sure, anything else?", [], True)) is None  # names no file
    ran = Outcome("exec", {"command": "python3 test_pricing.py"}, True, "2 tests passed",
                  effects=frozenset({Effect.RUNS}))
    assert named_unlooked(facts(ADVICE, ["test_pricing.py"], True, [ran])) is None  # something was tried
    assert named_unlooked(facts(ADVICE, ["test_pricing.py"], True, target="pricing.py")) is None  # not_looked's


def test_a_judgement_is_asked_only_when_the_reply_names_a_file():
    asked: list[int] = []

    def sure() -> bool:
        asked.append(1)
        return True

    assert named_unlooked(facts("Sure!", [], sure)) is None and asked == []


@pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)
def test_the_real_look_judgement_separates_a_job_to_do_from_a_how_to(tmp_path, monkeypatch):
    """The 1.5B's own look classifier, through the whole pipeline: "now make sure the tests still pass"
    answered with advice naming test_pricing.py (dev2: nothing ran) is retried with a look; the same
    file named in a suggestion of what to work on stands (not judged a look), and so does a reply that
    names no file."""
    agent = qwen_agent(tmp_path / "home")
    ws = agent.settings.workspace
    (ws / "test_pricing.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    monkeypatch.chdir(ws)
    verdict = check("now make sure the tests still pass", ADVICE, [], agent=agent)
    assert verdict.problem == "the reply speaks of test_pricing.py but nothing was read or run this turn" and verdict.tool == ANY_LOOK
    plan = "You could add a test for discount() to test_pricing.py."
    assert check("What should I work on next?", plan, [], agent=agent).problem == ""
    assert check("now make sure the tests still pass", "Sure, they should pass.", [], agent=agent).problem == ""
