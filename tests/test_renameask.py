"""The rename a message asks for (``tools.renameask``): the old name from a file the message names,
the new one from the message, the pair chosen by the model's rename classifier; edit_file's arguments
are then theirs, not the model's, and the rename reaches every file the message names."""

from __future__ import annotations

import pytest

from nanobot.core.events import ToolCall
from tests.test_templatecalls import JudgingTemplateModel, body, make_agent

GREET = 'def greeting(name):\n    return f"Hello, {name}!"\n'
APP = "from greet import greeting\n\n\ndef main(names):\n    return [greeting(n) for n in names]\n"


class Renaming(JudgingTemplateModel):
    """... whose rename classifier is sure of the pair ``asked`` (old, new) and of no other."""

    def __init__(self, replies, probs, asked):
        super().__init__(replies, probs, change=True)
        self.asked, self.pairs = asked, []

    def yes_no_apart(self, messages, **kw):
        from nanobot.loop.judge import CALIBRATION, RENAME_SYSTEM

        if messages[0].content != RENAME_SYSTEM:
            return super().yes_no_apart(messages, **kw)
        text = messages[-1].content
        if text in dict(CALIBRATION["rename"]):
            return (0.99, 0.01) if dict(CALIBRATION["rename"])[text] else (0.1, 0.9)
        pair = tuple(text.rpartition("\nRename: ")[2].split(" -> "))
        self.pairs.append(pair)
        return (0.99, 0.01) if pair == self.asked else (0.1, 0.9)


def rename_agent(home, model):
    agent = make_agent(home, model, enabled=["read_file", "edit_file", "write_file"], listing="lean")
    (agent.workspace / "greet.py").write_text(GREET)
    (agent.workspace / "app.py").write_text(APP)
    return agent


@pytest.mark.parametrize("pick", ['edit_file"', 'write_file"', 'read_file"'])
def test_a_rename_asked_is_made_with_the_names_of_the_message_whatever_the_model_would_write(home, pick):
    """The 1.5B, asked "Rename the function greeting to welcome in greet.py and app.py", wrote
    ``old="greet: start", new="welcome: start"`` (refused, nothing renamed); asked to rename remove to
    take, ``new="rename"``. The pairs weighed are the message's: "greeting" (greet.py defines it) with
    the later names no file holds ("to", "welcome"); the model is sure of (greeting, welcome), and the
    call renames it in both files the message names, whichever changing tool was picked, or a read (the
    French "Renomme la fonction passed en is_passing dans notes.py et dans report.py" picked read_file
    twice and renamed nothing), where the change judgement is sure."""
    model = Renaming([pick, "Renamed greeting to welcome."], [0.9, 0.1], asked=("greeting", "welcome"))
    agent = rename_agent(home, model)
    events = list(agent.turn("Rename the function greeting to welcome in greet.py and app.py."))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.name, c.arguments["old"], c.arguments["new"]) for c in calls] == [("edit_file", "greeting", "welcome")]
    assert model.pairs == [("greeting", "to"), ("greeting", "welcome")]  # in the message's order, to the sure one
    assert (agent.workspace / "greet.py").read_text() == GREET.replace("greeting", "welcome")
    assert (agent.workspace / "app.py").read_text() == APP.replace("greeting", "welcome")


def test_with_no_pair_the_model_is_sure_of_the_call_is_the_models_own(home):
    """"Fix greeting in greet.py so it says Hi": the pairs (greeting, Fix is before it; so, it, says)
    are weighed and none is sure, so the model writes the edit, and nothing is renamed."""
    edit = {"path": "greet.py", "old": "Hello", "new": "Hi"}
    model = Renaming(['edit_file"', body("edit_file", edit), "Done."], [0.9, 0.1], asked=("greeting", "welcome"))
    agent = rename_agent(home, model)
    events = list(agent.turn("Fix greeting in greet.py so it says Hi"))
    assert [c.arguments for c in events if isinstance(c, ToolCall)] == [edit]
    assert len(model.pairs) == 3 and all(old == "greeting" for old, _ in model.pairs)  # PAIRS at most
    assert "greeting" in (agent.workspace / "greet.py").read_text()


def test_a_longer_file_name_leaves_no_word_of_itself_to_weigh(home):
    """"Benenne die Funktion subtotal in basket.py und in tests/test_basket.py in sum_prices um.": taking
    basket.py out of the message before tests/test_basket.py left "tests" and "test_" as words, and with
    "in" and "und" they filled the three pairs before sum_prices. The longest file names go first."""
    model = Renaming(['edit_file"', "Umbenannt."], [0.9, 0.1], asked=("subtotal", "sum_prices"))
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "basket.py").write_text("def subtotal(prices):\n    return sum(prices)\n")
    (agent.workspace / "tests").mkdir()
    (agent.workspace / "tests" / "test_basket.py").write_text("from basket import subtotal\n")
    list(agent.turn("Benenne die Funktion subtotal in basket.py und in tests/test_basket.py in sum_prices um."))
    assert model.pairs == [("subtotal", "in"), ("subtotal", "und"), ("subtotal", "sum_prices")]
    assert "def sum_prices(" in (agent.workspace / "basket.py").read_text()
    assert (agent.workspace / "tests" / "test_basket.py").read_text() == "from basket import sum_prices\n"


class Leaning(Renaming):
    """... whose rename classifier gives the pair ``asked`` ``p``: under its sure bound."""

    def __init__(self, replies, probs, asked, p):
        super().__init__(replies, probs, asked)
        self.p = p

    def yes_no_apart(self, messages, **kw):
        yes, no = super().yes_no_apart(messages, **kw)
        return (self.p, 1 - self.p) if self.pairs and yes == 0.99 and messages[-1].content.endswith(
            " -> ".join(self.asked)) else (yes, no)


@pytest.mark.parametrize("p, renamed", [(0.93, True), (0.6, False)])
def test_the_models_own_rename_of_the_name_the_message_renames_takes_the_messages_new_name(home, p, renamed):
    """"Renomme la fonction passed en is_passing dans notes.py et dans report.py.": the rename classifier
    gave (passed, is_passing) 0.93, under its sure bound, so the model wrote the call, and turned
    ``passed`` into ``is_passed``, refused as a name nobody gave. Where the model's own edit renames the
    very definition a pair of the message renames, and the classifier gives that pair ``LEANS`` or more,
    the edit is the message's rename, in every file it names; under it the refusal stands."""
    notes = "def passed(grade):\n    return grade >= 10\n"
    report = "from notes import passed\n\n\ndef summary(g):\n    return passed(g)\n"
    edit = {"path": "notes.py", "old": "def passed(grade):", "new": "def is_passed(grade):"}
    model = Leaning(['edit_file"', body("edit_file", edit), "Renommée.", "Renommée."], [0.9, 0.1, 0.1, 0.1], ("passed", "is_passing"), p)
    agent = make_agent(home, model, enabled=["read_file", "edit_file"], listing="lean")
    (agent.workspace / "notes.py").write_text(notes)
    (agent.workspace / "report.py").write_text(report)
    list(agent.turn("Renomme la fonction passed en is_passing dans notes.py et dans report.py."))
    assert ("is_passing" in (agent.workspace / "notes.py").read_text()) is renamed
    assert (agent.workspace / "report.py").read_text() == (report.replace("passed", "is_passing") if renamed else report)
    assert "is_passed" not in (agent.workspace / "notes.py").read_text()
