"""A reply that claims a keeping or a change in words the English list does not hold ("Anotado", "C'est
noté") is read by the model's own classifier (``judge.reply_claims``): with nothing kept, the turn is
retried with memory_add, as an English "I've saved it" already was. Where the model cannot judge (no
scored backend, a failed calibration) the list alone reads the reply, as before."""

from __future__ import annotations

from types import SimpleNamespace

from nanobot.config import load_settings
from nanobot.core.events import ToolCall
from nanobot.loop.judge import CALIBRATION, CLASSIFIERS, Judge, claim_text
from nanobot.loop.replycheck import check
from nanobot.runtime import build_agent
from tests.test_templatecalls import ToolTemplateModel, body

ASK = "Apunta que mi vuelo sale a las 7:15."  # the remember judgement leans yes without being sure
REPLY = "Anotado: tu vuelo sale a las 7:15."


def _answers(table, msgs):
    """A classifier that answers its calibration right and ``table`` for the rest (0.5 where unlisted)."""
    system, text = msgs[0].content, msgs[-1].content
    kind = next(k for k, (s, _) in CLASSIFIERS.items() if s == system)
    want = dict(CALIBRATION[kind]).get(text)
    p = (0.95 if want else 0.1) if want is not None else table.get((kind, text), 0.5)
    return p, 1 - p


class Judged:
    def __init__(self, table):
        self.table = table

    def yes_no_apart(self, msgs, **_):
        return _answers(self.table, msgs)


def _agent(table):
    return SimpleNamespace(model=Judged(table), judge=Judge(), history=[], settings=None)


def test_a_claim_in_words_no_list_holds_is_retried_with_memory_add_where_nothing_was_kept():
    table = {("remember", ASK): 0.6, ("change", ASK): 0.2, ("claimed", claim_text(ASK, REPLY)): 0.95}
    result = check(ASK, REPLY, [], agent=_agent(table))
    assert result.tool == "memory_add" and "nothing was kept" in result.correction


def test_a_keeping_claimed_in_another_language_than_the_message_is_read_too():
    """The reply says the fact back translated: no run of the message is in it, and the remember
    judgement leans yes, so the claim classifier is asked and the retry keeps the fact."""
    ask, back = "Pour plus tard : mon vélo est un Peugeot vert.", "Got it, I'll remember your bike is a green Peugeot."
    table = {("remember", ask): 0.62, ("change", ask): 0.1, ("claimed", claim_text(ask, back)): 0.96}
    assert check(ask, back, [], agent=_agent(table)).tool == "memory_add"
    table[("remember", ask)] = 0.3  # no keeping leaned to: the reply is not read
    assert not check(ask, back, [], agent=_agent(table)).problem


def test_the_classifier_saying_no_leaves_the_reply_alone():
    table = {("remember", ASK): 0.6, ("change", ASK): 0.2, ("claimed", claim_text(ASK, REPLY)): 0.3}
    assert not check(ASK, REPLY, [], agent=_agent(table)).problem


def test_the_reply_is_not_read_where_no_keeping_or_change_was_asked():
    """A question answered: the claim classifier is not even asked (it costs an evaluation)."""
    asked = []

    class Counting(Judged):
        def yes_no_apart(self, msgs, **_):
            asked.append(msgs[0].content)
            return super().yes_no_apart(msgs)

    q = "¿A qué hora sale mi vuelo?"  # a question: its reply is not read
    agent = SimpleNamespace(model=Counting({("remember", q): 0.1, ("change", q): 0.1, ("claimed", claim_text(q, REPLY)): 0.95}),
                            judge=Judge(), history=[], settings=None)
    assert not check(q, REPLY, [], agent=agent).problem
    said, back = "I had a great day at the beach.", "Glad you had a great day at the beach!"  # said back, nothing asked
    agent = SimpleNamespace(model=Counting({("remember", said): 0.1, ("change", said): 0.1,
                                            ("claimed", claim_text(said, back)): 0.95}), judge=Judge(), history=[], settings=None)
    assert not check(said, back, [], agent=agent, asked_change=False).problem
    assert CLASSIFIERS["claimed"][0] not in asked
    assert CLASSIFIERS["remember"][0] in asked  # the keeping was judged, and judged no


def test_a_model_whose_claim_classifier_fails_its_calibration_is_not_trusted():
    """A 135M model's answers sit near chance: the list alone reads its replies."""
    class Chance(Judged):
        def yes_no_apart(self, msgs, **_):
            if msgs[0].content == CLASSIFIERS["claimed"][0]:
                return 0.99, 0.01  # yes to everything, its calibration's no's too
            return super().yes_no_apart(msgs)

    table = {("remember", ASK): 0.6, ("change", ASK): 0.2}
    agent = SimpleNamespace(model=Chance(table), judge=Judge(), history=[], settings=None)
    assert not check(ASK, REPLY, [], agent=agent).problem


def test_a_turn_whose_reply_claims_a_keeping_in_spanish_keeps_it(home):
    """The whole loop: the reply "Anotado: ..." with nothing called, the check's retry calls memory_add
    and the fact is in MEMORY.md."""
    table = {("remember", ASK): 0.6, ("change", ASK): 0.2, ("claimed", claim_text(ASK, REPLY)): 0.95}

    class Noting(ToolTemplateModel):
        def yes_no_apart(self, msgs, **_):
            return _answers(table, msgs)

    model = Noting([REPLY, body("memory_add", {"text": "My flight leaves at 7:15."}), "Guardado."], [0.01] * 8)
    settings = load_settings(home, tools={"enabled": ["memory_add"], "listing": "full"}, observer={"enabled": False},
                             kv_cache={"enabled": False})
    agent = build_agent(settings, model)  # the real memory store and embedder
    events = list(agent.turn(ASK))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["memory_add"]
    assert "7:15" in (settings.workspace / "MEMORY.md").read_text()


def test_a_kept_fact_told_as_a_note_in_a_file_is_no_false_claim():
    """memory_add writes observations/notes-....md: "I added a note to your observations file" is true of
    a keeping the user asked for, and no correction says "the file is unchanged". Where the user asked
    to change a file and only memory changed, it still does."""
    from nanobot.core.events import ToolResult
    from nanobot.memory.tools import MemoryAdd

    tools = {"memory_add": MemoryAdd()}  # its declared effect: it remembers, it changes no file
    kept = [ToolCall(name="memory_add", arguments={"text": "my flight leaves at 7:15"}),
            ToolResult(name="memory_add", ok=True, text="remembered (observations/notes-2026-12-01.md:1)")]
    reply = "I have added a note to your observations file: your flight leaves at 7:15."
    assert not check("Note that my flight leaves at 7:15.", reply, kept, asked_change=True, tools=tools).problem
    assert "only memory changed" in check("Write my flight time down in a file, please.", "I have added it to the file.",
                                          kept, asked_change=True, tools=tools).problem
