"""CONTEXT.md and observations say what happened, and no text in them is cut inside a word or quote.

Measured on Qwen2.5-Coder-1.5B: a 3-turn session ("what does utils.py do?", "add a function called
reverse_words to utils.py ...", "run the tests") left ``Task: add a function called reverse_w (said:
"add a function called reverse_words to")``, a Focus cut at "utils." and a Recent holding the first
message: nothing said that an edit had replaced a function and the tests had failed. These tests walk
that session with real tool runs (a real git repo, the real edit_file, the real pytest) and check
what the runtime guarantees: every word written is a whole word of the session, every quote closes,
and the tool events' outcomes are in the observation and in CONTEXT.md's Recent and Now.
"""

from __future__ import annotations

import json
import random
import re

from nanobot.backends.scripted import ScriptedModel
from nanobot.base.shorten import open_quote, sentences, shorten, whole_words
from nanobot.bench.sessions import load, prepare, replay
from nanobot.config import load_settings
from nanobot.core.transcript import read_transcript
from nanobot.loop.agent import Agent
from nanobot.observer.contextmd import ContextDoc, load_context
from nanobot.observer.observation import item_chars, parse_draft, quote_spans
from nanobot.observer.observer import load_observation, observation_path, observe_live
from nanobot.observer.toolevents import read_events
from nanobot.workspace import init_workspace

WORD = re.compile(r"[\w'’.-]*\w")


# -- the shared helper -----------------------------------------------------------------------
def _texts(seed: int, n: int = 400) -> list[str]:
    rng = random.Random(seed)
    words = ["add", "a", "function", "called", "reverse_words", "to", "utils.py,", "run", "tests;",
             '"use serde"', '"left', 'open"', "—", "ok.", "Grüße", "x" * 30, "then:", "(see", "it)"]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 25))) for _ in range(n)]


def test_shorten_never_cuts_a_word_or_a_quote_and_keeps_the_limit():
    for text in _texts(1):
        norm = " ".join(text.split())
        for limit in (8, 20, 41, 80):
            out = shorten(text, limit)
            assert len(out) <= limit
            assert open_quote(out) < 0, (text, out)  # every quote it keeps closes
            body = out.removesuffix("…")
            assert norm.startswith(body)  # a prefix of the text ...
            rest = norm[len(body):]
            assert not (body[-1:].isalnum() and rest[:1].isalnum()), (text, out)  # ... at a word's end


def test_shorten_prefers_a_clause_boundary_and_drops_a_quote_it_cannot_keep_whole():
    assert shorten("fixed the parser and the lexer, then ran the whole suite twice", 45) == "fixed the parser and the lexer…"
    assert shorten('we chose "a very long quoted name that goes on" today', 30) == "we chose…"
    assert shorten("short", 40) == "short"
    assert shorten('an "unclosed quote here', 80) == "an"


def test_whole_words_drops_a_word_a_grammar_bound_may_have_cut():
    assert whole_words("add a function called reverse_w", 32) == "add a function called"
    assert whole_words("add a function", 32) == "add a function"
    draft = parse_draft(json.dumps({"task": {"text": "add a function called reverse_w", "quote": ""}}), 32)
    assert draft.task.text == "add a function called…"  # the bound stopped it: said so


def test_a_model_text_the_bound_stopped_mid_clause_goes_back_to_its_clause():
    known = frozenset({"we", "as", "14th", "now"})
    stopped = "CTO Elena Ruiz can only do the 14th now, so we"
    assert whole_words(stopped, 48, known, ellipsis="…") == "CTO Elena Ruiz can only do the 14th now…"
    assert whole_words(stopped, 48, known) == stopped  # a quote: kept as the model copied it
    assert whole_words("The code does not handle rounding as", 44, known, ellipsis="…") == \
        "The code does not handle rounding as…"  # no clause to go back to: marked, not cut further
    assert whole_words("Tests pass now.", 20, known, ellipsis="…") == "Tests pass now."  # a sentence end
    assert whole_words("run the tests", 48, known, ellipsis="…") == "run the tests"  # far from the bound


def test_sentences_and_quotes_keep_file_names_whole():
    assert sentences("what does utils.py do?") == ["what does utils.py do?"]
    assert quote_spans(["what does utils.py do? run the tests"]) == ("what does utils.py do?", "run the tests")
    long = "add a function called reverse_words to utils.py that reverses the order of the words"
    (span,) = quote_spans([long])
    assert long.startswith(span) and long[len(span)] == " "


def test_context_md_values_are_cut_at_words():
    doc = ContextDoc()
    doc.set_now(focus="word " * 30 + "reverse_words " * 20)
    assert doc.now.focus.endswith("…") and "reverse_words" in doc.now.focus
    assert all(w in ("word", "reverse_words") for w in doc.now.focus.rstrip("…").split())


# -- the issue's session, with real tool events ---------------------------------------------
def _session_home(home):
    settings = load_settings(memory={"enabled": False}, observer={"reflect_on_start": False, "background": False},
                             tools={"enabled": [], "exec_allow": ["python -m pytest"]}, kv_cache={"enabled": False})
    init_workspace(settings.workspace)
    (session,) = [s for s in load("dev") if s.id == "dev-utils-reverse"]
    prepare(session, settings.workspace)
    return settings, session


def cut_draft(session) -> str:
    """What the 1.5B wrote: a task cut by the grammar's bound; its quotes are spans the copy-span
    grammar admits (the first one was "what does utils." when a dot ended a sentence)."""
    spans = quote_spans([t.user for t in session.turns])
    task = next(s for s in spans if s.startswith("add a function"))
    return json.dumps({"focus": {"text": "What does utils.py do?", "quote": spans[0]},
                       "task": {"text": "add a function called reverse_w", "quote": task},
                       "blocked": {"text": "", "quote": ""}, "decisions": [], "open_items": [], "facts": []})


def _sources(agent) -> set[str]:
    records, _ = read_transcript(agent.transcript.path)
    text = "\n".join(r.content for r in records) + " ran make pass exit defines removes failed User said"
    return {w.lower() for w in WORD.findall(text)}


def _written(settings, agent) -> list[str]:
    obs = load_observation(observation_path(settings.workspace, agent.transcript.id))
    doc = load_context(settings.workspace / "CONTEXT.md")
    values = [doc.now.focus, doc.now.task, doc.now.blocked, doc.now.next, *(r[6:] for r in doc.recent)]
    for p in obs.parts:
        values += [p.summary, p.focus, p.task, p.blocked, *p.decisions, *p.open_items, *p.facts,
                   *p.outcomes, *p.evidence.values()]
    return [v for v in values if v]


def test_the_issue_session_leaves_no_cut_word_or_quote_and_says_what_happened(home):
    settings, session = _session_home(home)
    agent = Agent(settings, ScriptedModel([cut_draft(session)]))
    replay(agent, session)
    (run,) = [e for e in read_events(agent.transcript.path) if e.name == "exec"]
    assert run.result.startswith("exit ") and not run.result.startswith("exit 0")  # pytest really failed
    observe_live(agent, "quit", max_tokens=224)  # a bound the cut task came near: the grammar stopped it
    assert item_chars(224) - 10 <= len("add a function called reverse_w") < item_chars(224)
    words = _sources(agent)
    for value in _written(settings, agent):
        cut = [w for w in WORD.findall(value.rstrip("…")) if w.lower() not in words]
        assert not cut, f"{value!r}: {cut} is not a whole word of the session"
        assert open_quote(value) < 0, value
    text = (settings.workspace / "CONTEXT.md").read_text()
    assert text.count('"') % 2 == 0
    doc = load_context(settings.workspace / "CONTEXT.md")
    recent = doc.recent[0]
    assert "utils.py" in recent and "pytest" in recent  # Recent: the edit and the failing run
    assert "python -m pytest -q" in doc.now.next  # the open step: the failing tests
    obs = load_observation(observation_path(settings.workspace, agent.transcript.id))
    (part,) = obs.parts
    # the cut word dropped, and the copy that stopped mid-sentence widened to the sentence as said
    assert part.generator == "model" and part.task == session.turns[1].user
    assert any(o.startswith("edited utils.py") and "reverse_words" in o and "removes count_words" in o
               for o in part.outcomes)  # the function added, and the one the edit replaced
    assert any("python -m pytest -q" in o and "exit 0" not in o for o in part.outcomes)


def test_the_fallback_also_reports_the_outcomes(home):
    settings, session = _session_home(home)
    agent = Agent(settings, ScriptedModel(["not a draft"]))
    replay(agent, session)
    out = observe_live(agent, "quit")
    assert out.part.generator == "fallback"
    assert any("pytest" in o for o in out.part.outcomes)
    doc = load_context(settings.workspace / "CONTEXT.md")
    assert "pytest" in doc.recent[0] and doc.now.focus != session.turns[0].user


def test_a_greeting_session_leaves_now_and_recent_as_they_were(home):
    """A second session that only says "hi" has nothing to report: the first session's Now and Recent
    stand (its observation part is kept, with no gist to be retrieved as a "Related Context")."""
    from nanobot.bench.sessions import Session, Turn

    settings, session = _session_home(home)
    first = Agent(settings, ScriptedModel(["not a draft"]))
    replay(first, session)
    observe_live(first, "quit")
    before = load_context(settings.workspace / "CONTEXT.md")
    assert before.recent and before.now.focus
    second = Agent(settings, ScriptedModel(["not a draft"]))
    replay(second, Session(id="hi", kind="personal", turns=[Turn(user="hi", reply="Hello!")], items=[], last=[]))
    out = observe_live(second, "quit")
    after = load_context(settings.workspace / "CONTEXT.md")
    assert after.now == before.now and after.recent == before.recent
    assert after.time.last_session != before.time.last_session  # the session itself is still counted
    assert not (out.part.summary or out.part.focus or out.part.task)


def test_a_model_draft_keeps_the_users_last_request_open():
    """The model's Now replaces the floor's, but the user's last request (in the user's words) stays
    as an open item: a draft never holds less than the floor."""
    from nanobot.observer.observation import ObservationDraft
    from nanobot.observer.observer import fallback_draft, with_floor

    exchanges = [("user", "Our parser breaks on spaces; run the tests."), ("assistant", "One fails."),
                 ("user", "Tomorrow we handle values that contain '=' themselves.")]
    last = exchanges[-1][1]
    model = ObservationDraft(focus="parser fixes", task="strip the parts", evidence={"strip the parts": "spaces"})
    merged = with_floor(model, fallback_draft(exchanges), last)
    assert merged.task == "strip the parts" and last in merged.open_items
    assert merged.evidence[last] == last  # grounded in the user's own words
    same = with_floor(ObservationDraft(task=last), fallback_draft(exchanges), last)
    assert last not in same.open_items  # no duplicate when the model kept it as the task


def test_a_copy_stopped_mid_sentence_or_inside_a_bracket_is_written_whole(home):
    """The 1.5B's drafts on the dev sessions: a Focus copied from the user's sentence and stopped by
    the item's bound ("... because port() returns a"), and a decision that repeats an outcome cut inside
    its bracket ("edited utils.py at line 8 (defines reverse_words"). CONTEXT.md holds the sentence as
    said, no unclosed bracket, and no decision that only repeats an outcome."""
    settings, session = _session_home(home)
    spans = quote_spans([t.user for t in session.turns])
    task = next(s for s in spans if s.startswith("add a function"))
    draft = json.dumps({"focus": {"text": "add a function called reverse_words to utils.py that", "quote": task},
                        "task": {"text": "", "quote": ""}, "blocked": {"text": "", "quote": ""},
                        "decisions": [{"text": "edited utils.py at line 8 (defines reverse_words", "quote": task}],
                        "open_items": [], "facts": []})
    agent = Agent(settings, ScriptedModel([draft]))
    replay(agent, session)
    observe_live(agent, "quit", max_tokens=224)
    doc = load_context(settings.workspace / "CONTEXT.md")
    assert doc.now.focus == session.turns[1].user
    for value in _written(settings, agent):
        assert value.count("(") == value.count(")"), value
    assert not any(r[6:] == "edited utils.py at line 8" for r in doc.recent), doc.recent


def test_the_task_is_what_the_last_message_leaves_open_after_its_tools_ran(home):
    """The last message starts with what a tool then did ("Show me git status;") and a one-word
    "Nice."; what is left open comes after them and is kept whole, not cut at 100 characters
    ("... Jonas reviews it tomorrow morning and then I open the…"). Real git, a real exec."""
    from nanobot.bench.sessions import Call, Session, Turn

    settings, _ = _session_home(home)
    settings.tools.exec_allow.append("git status")
    last = ("Nice. Show me git status; I won't commit yet, Jonas from the billing team reviews it "
            "tomorrow morning and then I open the pull request for the release.")
    session = Session(id="t", kind="coding", git=True, files={"a.txt": "x\n"}, items=[], last=[], turns=[
        Turn(user="Look at a.txt please.", reply="It holds x.", calls=[Call(tool="read_file", args={"path": "a.txt"})]),
        Turn(user=last, reply="Clean.", calls=[Call(tool="exec", args={"command": "git status --short"})])])
    prepare(session, settings.workspace)
    agent = Agent(settings, ScriptedModel(["not a draft"]))
    replay(agent, session)
    (run,) = [e for e in read_events(agent.transcript.path) if e.name == "exec"]
    assert run.ok and run.back == 0  # it ran in the last message's turn
    out = observe_live(agent, "quit")
    assert out.part.task == last[len("Nice. Show me git status; "):]  # whole: no "…", no done part
    assert load_context(settings.workspace / "CONTEXT.md").now.task == out.part.task
    assert out.part.evidence[out.part.task] in last  # grounded: the user's words as said


def test_a_session_whose_edit_failed_and_tests_ran_leaves_what_happened_and_no_done_step(home):
    """A new user's session on the 1.5B (issue 42's): the edit failed twice, then "run the tests with
    python -m pytest -q" ran and passed. CONTEXT.md's Recent held two failures cut at 180 characters
    ("...……") without the run, and Next was the request the run had done. Real files, real tools."""
    from nanobot.bench.sessions import Call, Session, Turn

    settings, _ = _session_home(home)
    files = {"utils.py": 'def slugify(s):\n    return s.lower().replace(" ", "-")\n',
             "test_utils.py": 'from utils import slugify\n\n\ndef test_slugify():\n    assert slugify("A B") == "a-b"\n'}
    lost = {"path": "utils.py", "old": "def slugify(text):", "new": "def reverse_words(text):"}  # both fail
    broken = {"path": "utils.py", "old": "slugify(s):", "new": "def reverse_words(s):\n    return ' '.join(reversed(s.split()))"}
    session = Session(id="t", kind="coding", git=True, files=files, items=[], last=[], turns=[
        Turn(user="what does utils.py do?", reply="It slugifies.", calls=[Call(tool="read_file", args={"path": "utils.py"})]),
        Turn(user="add a function called reverse_words to utils.py that reverses the order of the words in a string",
             reply="Added.", calls=[Call(tool="edit_file", args=lost), Call(tool="edit_file", args=broken)]),
        Turn(user="run the tests with python -m pytest -q", reply="They pass.",
             calls=[Call(tool="exec", args={"command": "python -m pytest -q"})])])
    prepare(session, settings.workspace)
    agent = Agent(settings, ScriptedModel(["not a draft"]))
    replay(agent, session)
    assert [e.ok for e in read_events(agent.transcript.path)] == [True, False, False, True]
    observe_live(agent, "quit")
    doc = load_context(settings.workspace / "CONTEXT.md")
    recent = doc.recent[0]
    assert "SyntaxError" in recent and "`python -m pytest -q`: exit 0" in recent  # the run that ended it
    assert "……" not in recent
    assert "reverse_words" in doc.now.focus + doc.now.task and "run the tests" not in doc.now.task  # still open


def test_a_refusal_that_names_its_tool_is_not_named_twice():
    from nanobot.observer.toolevents import ToolEvent, outcome

    refused = ToolEvent(name="edit_file", ok=False, result="edit_file refused: it would remove 'def slugify(s):'")
    assert outcome(refused) == "edit_file refused: it would remove 'def slugify(s):'"
    missing = ToolEvent(name="edit_file", ok=False, result="text to replace not found in 'utils.py'; the file's text is:\nx")
    assert outcome(missing) == "edit_file failed: text to replace not found in 'utils.py'"


def test_a_call_that_only_told_or_looked_leaves_no_outcome_by_its_declared_effects(home, tmp_path):
    """The runner records each result with the call's declared effects (``tools.effects``); the observer
    keeps what changed or ran and drops "message delivered" or a task list shown, with no tool name listed.
    An older transcript without effects is read by the tool's name, as before."""
    from datetime import datetime
    from types import SimpleNamespace

    from nanobot.core.transcript import Transcript
    from nanobot.observer.toolevents import ToolEvent, outcome, outcomes
    from nanobot.tools.registry import enabled_tools
    from nanobot.tools.runner import ToolRunner

    settings = load_settings(home, tools={"enabled": ["message", "write_file", "cron"]})
    runner = ToolRunner(settings, {n: t for n, t in enabled_tools(settings).items()})
    agent = SimpleNamespace(transcript=Transcript.create(tmp_path, datetime.now()))
    agent.transcript.append("user", "tell me, then save it")
    for name, args, result in [("message", {"text": "hello"}, "message delivered"),
                               ("cron", {"action": "list"}, "no jobs"),
                               ("write_file", {"path": "a.txt", "content": "x"}, "created a.txt (1 chars)")]:
        runner._record(agent, "call", name, json.dumps(args))
        runner._record(agent, "result", name, result, ok=True)
    events = read_events(agent.transcript.path)
    assert [e.effects for e in events] == [[], ["searches"], ["changes"]]
    assert outcomes(events) == ["created a.txt (1 chars)"]
    assert outcome(ToolEvent(name="message", result="message delivered")) == "message delivered"  # no effects: by name
