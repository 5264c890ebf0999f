"""A small model that copies the observer's instruction, makes quotes up or quotes itself must not
pollute CONTEXT.md or MEMORY.md: only items whose quotes ground them in what the user typed stay
(scripted draft here; tests/test_grounded_real.py runs the real model)."""

import json
from datetime import datetime

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.observer.evidence import ground
from nanobot.observer.feature import attach_observer
from nanobot.observer.observation import GroundedDraft, Said, quote_spans
from nanobot.observer.observer import INSTRUCTION, load_observation, observation_path
from nanobot.observer.reflector import lexical_similarity, reflect
from nanobot.workspace import init_workspace

SAID = "My name is Ada and I work on a Rust compiler called Ferrum."
REPLY = "Nice to meet you, Ada! I'm glad you're happy to have me."
REAL = Said(text="Ferrum, a Rust compiler", quote="i work on a Rust compiler called  FERRUM")
FABRICATED = Said(text="Porting Ferrum to Go", quote="I want to port Ferrum to Go")
PARROTED = Said(text="the user's current task, decisions made, open questions and facts",
                quote="I work on a Rust compiler")
DRAFT = GroundedDraft(
    focus=REAL, task=FABRICATED,
    blocked=Said(text="Take notes on our conversation so far as JSON: the topic", quote="My name is Ada"),
    decisions=[Said(text="I'm glad you're happy to have me", quote="I'm glad you're happy to have me")],
    facts=[PARROTED, Said(text="User's name is Ada", quote="my name is Ada")])


def test_ground_keeps_only_the_real_quote():
    g = ground(GroundedDraft(focus=REAL, task=FABRICATED, facts=[PARROTED]), SAID, INSTRUCTION)
    assert (g.draft.focus, g.draft.task, g.draft.facts) == ("Ferrum, a Rust compiler", "", [])
    assert g.draft.evidence == {"Ferrum, a Rust compiler": REAL.quote}
    assert [d.rsplit("(", 1)[1] for d in g.dropped] == ["quote not in transcript)", "repeats the instructions)"]


def test_scripted_session_writes_only_grounded_items(home):
    settings = load_settings(chat={"max_tokens": 64, "temperature": 0}, observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel([REPLY, DRAFT.model_dump_json()]))
    attach_observer(agent)
    agent.start_session()
    list(agent.turn(SAID))
    agent.end_session("quit")
    (part,) = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts
    assert part.generator == "model" and part.focus == "Ferrum, a Rust compiler"
    assert part.task == "" and part.decisions == []  # fabricated; the assistant's own words
    assert part.blocked == ""  # the instruction, parroted
    assert part.summary == "Ferrum, a Rust compiler"  # the model's grounded focus, not the first message
    assert part.facts == [f'User said: "{SAID}"', "User's name is Ada"]  # stated floor first
    assert part.evidence["User's name is Ada"] == "my name is Ada"
    context = (agent.workspace / "CONTEXT.md").read_text()
    for junk in ("Go", "Take notes", "glad", "current task"):
        assert junk not in context
    report = reflect(settings, now=datetime.now().astimezone(), similarity=lexical_similarity)
    memory = (agent.workspace / "MEMORY.md").read_text()
    assert f"- User's name is Ada ({part.at:%Y-%m-%d}, session {agent.transcript.id})\n" in memory
    assert "current task" not in memory and report.ungrounded == []


def test_reflector_promotes_no_fact_without_evidence_in_the_transcript(home):
    settings = load_settings(chat={"max_tokens": 64, "temperature": 0}, observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    draft = GroundedDraft(facts=[Said(text="User's name is Ada", quote="my name is Ada")])
    agent = Agent(settings, ScriptedModel(["Hello!", json.dumps(draft.model_dump())]))
    attach_observer(agent)
    agent.start_session()
    list(agent.turn("Hi there, I'm new here"))  # the name was never said
    agent.end_session("quit")
    (part,) = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts
    assert part.facts == ['User said: "Hi there, I\'m new here"']
    path = observation_path(agent.workspace, agent.transcript.id)  # a forged line in the file
    path.write_text(path.read_text().replace("### Facts\n", '### Facts\n- Ada owns a boat (said: "my boat")\n'))
    report = reflect(settings, now=datetime.now().astimezone(), similarity=lexical_similarity)
    memory = (agent.workspace / "MEMORY.md").read_text()
    assert "boat" not in memory and "Ada" not in memory.split("## Learned from sessions")[-1]
    assert report.ungrounded == ["Ada owns a boat (quote not in transcript)"]


def test_a_quoted_span_is_kept_as_the_whole_sentence_and_a_version_number_stays_whole(home):
    """The grammar copies a sentence's first words; the observation keeps the sentence, so what was
    said in passing (a name after "because") is not cut off; "2.0" is not list numbering."""
    said = "We chose the vegetable paella because Marta is vegetarian. Plan the 2.0 release too."
    span = quote_spans([said])[0]
    assert span != "We chose the vegetable paella because Marta is vegetarian."  # the grammar's span is cut
    draft = GroundedDraft(decisions=[Said(text="vegetable paella", quote=span)],
                          focus=Said(text="2.0 release plan", quote="Plan the 2.0 release too."))
    settings = load_settings(chat={"max_tokens": 64, "temperature": 0}, observer={"reflect_on_start": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["Sounds good.", draft.model_dump_json()]))
    attach_observer(agent)
    agent.start_session()
    list(agent.turn(said))
    agent.end_session("quit")
    (part,) = load_observation(observation_path(agent.workspace, agent.transcript.id)).parts
    assert part.generator == "model" and part.decisions == ["vegetable paella"] and part.focus == "2.0 release plan"
    assert part.evidence["vegetable paella"] == "We chose the vegetable paella because Marta is vegetarian."
