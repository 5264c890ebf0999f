"""Issue 39: tools declare their effects and the call policy reads them (a new tool is guarded
without touching the policy); refusals are typed; edits cannot destroy lines nobody asked to remove;
one path detector; the model's own yes/no judgement (real SmolLM2)."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
from pydantic import Field

from nanobot.backends.base import Message
from nanobot.backends.scripted import ScriptedModel
from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.core.events import ToolResult
from nanobot.core.provenance import PolicyError, Provenance, Refusal
from nanobot.loop.agent import Agent
from nanobot.loop.callpolicy import Guarded, guard, refusal
from nanobot.loop.judge import Judge
from nanobot.tools.append import AppendFile
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.editloss import lost
from nanobot.tools.effects import Effect
from nanobot.tools.files import EditFile, WriteFile
from nanobot.tools.named import named
from nanobot.tools.runner import ToolRunner
from nanobot.workspace import init_workspace


class StampArgs(ToolArgs):
    label: str = Field(description="the label")


class Stamp(Tool):
    """A tool nobody listed anywhere: it declares nothing."""

    name, description, Args = "stamp", "Put a label on the parcel.", StampArgs
    ran: list[str] = []

    def run(self, args, ctx):
        Stamp.ran.append(args.label)
        return "stamped"


class Peek(Stamp):
    name, description = "peek", "Look at the parcel."
    effects = frozenset({Effect.LOOKS})


def test_a_new_tool_that_declares_nothing_is_guarded_without_touching_the_policy(home):
    assert isinstance(guard(Stamp()), Guarded) and not isinstance(guard(Peek()), Guarded)
    why = refusal(Stamp(), {"label": "fragile"}, Provenance(said=["What is 2+2?"]))
    assert why.kind is Refusal.NOT_ASKED
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(["Tool: stamp", '{"label": "fragile"}', "Answer:", "4"]))
    agent.tool_runner = ToolRunner(settings, {"stamp": Stamp()})
    Stamp.ran = []
    events = list(agent.turn("What is 2+2?"))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and result.refused == Refusal.NOT_ASKED and Stamp.ran == []


def _ctx(home, said: list[str] | None):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = SimpleNamespace(provenance=Provenance(said=said), judge=Judge()) if said is not None else None
    return ToolContext(settings=settings, agent=agent), settings.workspace


def test_adding_a_function_pointed_at_an_existing_one_keeps_it_and_the_tests_pass(home):
    """The issue's first coding request: reverse_words pointed at ``def slugify(s):`` replaced slugify."""
    ctx, ws = _ctx(home, ["add a function called reverse_words to utils.py that reverses the order of words"])
    (ws / "utils.py").write_text('def slugify(s):\n    return s.lower().replace(" ", "-")\n')
    out = EditFile().run(EditFile.Args(path="utils.py", old="def slugify(s):",
                                       new="def reverse_words(s):\n    return ' '.join(s.split()[::-1])"), ctx)
    assert "kept" in out
    check = "import utils; assert utils.slugify('A B') == 'a-b'; assert utils.reverse_words('a b') == 'b a'"
    subprocess.run([sys.executable, "-c", check], cwd=ws, check=True)


def test_a_new_function_pointed_at_a_fragment_of_a_def_line_is_added_not_refused(home):
    """dev2, the 1.5B: "Add a function tip(total, pct) to pricing.py ..." written as ``old:
    "split_bill(total, people)"``, ``new: "def tip(total, pct): ..."``. Replaced as given it puts a def
    inside split_bill's def line (a syntax error: refused, and the retry rewrote split_bill). New whole
    definitions pointed at existing code are an addition after it; split_bill stays as it was."""
    pricing = "def split_bill(total, people):\n    return round(total / people, 2)\n\n\nprint(split_bill(90, 4))\n"
    ctx, ws = _ctx(home, ["Add a function tip(total, pct) to pricing.py that returns the tip rounded to 2 decimals"])
    (ws / "pricing.py").write_text(pricing)
    out = EditFile().run(EditFile.Args(path="pricing.py", old="split_bill(total, people)",
                                       new="def tip(total, pct):\n    return round(total * pct / 100, 2)"), ctx)
    assert "tip added" in out and "kept" in out
    check = "import pricing; assert pricing.split_bill(90, 4) == 22.5; assert pricing.tip(200, 10) == 20"
    subprocess.run([sys.executable, "-c", check], cwd=ws, check=True, capture_output=True)
    with pytest.raises(ToolError):  # not new definitions: the broken replacement is refused as before
        EditFile().run(EditFile.Args(path="pricing.py", old="split_bill(total, people)", new="def (x"), ctx)
    ctx, ws = _ctx(home, ["split_bill in pricing.py should round up"])  # a definition nobody asked for
    (ws / "pricing.py").write_text(pricing)
    with pytest.raises(ToolError):
        EditFile().run(EditFile.Args(path="pricing.py", old="split_bill(total, people)",
                                     new="def ceil_split(total, people):\n    return -(-total // people)"), ctx)
    assert (ws / "pricing.py").read_text() == pricing


def test_a_line_added_at_the_end_never_replaces_the_last_line(home):
    """The model points at the last line to say where the dictated line goes: the line is added after
    it, and it stays. A line nobody dictated in its place is refused, the file unchanged."""
    ctx, ws = _ctx(home, ["Add a line 'Eat dessert first.' at the end of poem.txt"])
    (ws / "poem.txt").write_text("The heron waits.\nAnd dreams of the moon.\n")
    out = EditFile().run(EditFile.Args(path="poem.txt", old="And dreams of the moon.", new="Eat dessert first."), ctx)
    assert "kept" in out and (ws / "poem.txt").read_text() == "The heron waits.\nAnd dreams of the moon.\nEat dessert first.\n"
    with pytest.raises(PolicyError) as err:
        EditFile().run(EditFile.Args(path="poem.txt", old="And dreams of the moon.", new="Eat cake."), ctx)
    assert err.value.kind is Refusal.LOSES_LINES and "And dreams of the moon." in str(err.value)
    assert (ws / "poem.txt").read_text().endswith("moon.\nEat dessert first.\n")


def test_an_entry_logged_at_the_bottom_never_replaces_the_entry_before_it(home):
    """The file's name and the dictated line's own words mention no old line: "garden" and "picked" are
    in both the request and the old last entry, which is still lost by a replacement, and kept."""
    ask = "Log today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries"
    old = "2024-05-20 sowed beans\n2024-06-01 garden: picked radishes\n"
    assert lost(old, "2024-05-20 sowed beans\n2024-06-08 picked the first strawberries\n", [ask], "garden.log") == [
        "2024-06-01 garden: picked radishes"]
    ctx, ws = _ctx(home, [ask])
    (ws / "garden.log").write_text(old)
    EditFile().run(EditFile.Args(path="garden.log", old="2024-06-01 garden: picked radishes",
                                 new="2024-06-08 picked the first strawberries"), ctx)
    assert (ws / "garden.log").read_text() == old + "2024-06-08 picked the first strawberries\n"
    # a line the request dictates is an addition, not a changed form of the line it replaced
    assert lost("- buy bread\n- buy milk\n", "- buy bread\n- buy eggs\n", ["add eggs to shopping.txt"]) == ["- buy milk"]


def test_a_definition_the_request_names_outside_the_files_name_may_be_replaced(home):
    """A def line is mentioned by its whole name, the file's own name left out: "greet" in greet.py
    names nothing, "greet" as a word of the request names ``def greet``."""
    ctx, ws = _ctx(home, ["In greet.py, change greet so it is called welcome"])
    (ws / "greet.py").write_text("def greet(n):\n    return 'hi ' + n\n")
    EditFile().run(EditFile.Args(path="greet.py", old="def greet(n):", new="def welcome(n):"), ctx)
    assert (ws / "greet.py").read_text().startswith("def welcome(n):")
    ctx, ws = _ctx(home, ["add a welcome function to greet.py"])
    (ws / "greet.py").write_text("def greet(n):\n    return 'hi ' + n\n")
    with pytest.raises(PolicyError) as err:
        EditFile().run(EditFile.Args(path="greet.py", old="def greet(n):", new="def welcome(n):"), ctx)
    assert err.value.kind is Refusal.LOSES_LINES and (ws / "greet.py").read_text().startswith("def greet(n):")


def test_a_removal_or_change_the_request_names_runs_in_any_language(home):
    ctx, ws = _ctx(home, ["Supprime la ligne du budget de meeting.txt"])
    (ws / "meeting.txt").write_text("Meeting on Tuesday.\nBudget: 3200 EUR.\n")
    EditFile().run(EditFile.Args(path="meeting.txt", old="Budget: 3200 EUR.\n", new=""), ctx)
    ctx, _ = _ctx(home, ["set the log level to debug in server.cfg"])
    (ws / "server.cfg").write_text("port = 80\nlog_level = warn\n")
    EditFile().run(EditFile.Args(path="server.cfg", old="log_level = warn", new="log_level = debug"), ctx)
    assert (ws / "server.cfg").read_text() == "port = 80\nlog_level = debug\n"


def test_an_overwrite_that_drops_lines_is_refused_but_outside_a_chat_it_is_the_callers(home):
    ctx, ws = _ctx(home, ["add bread to shopping.txt"])
    (ws / "shopping.txt").write_text("apples\nmilk\n")
    with pytest.raises(PolicyError):
        WriteFile().run(WriteFile.Args(path="shopping.txt", content="bread\n"), ctx)
    ctx, _ = _ctx(home, None)  # ``nanobot tools run``: the user typed the call
    WriteFile().run(WriteFile.Args(path="shopping.txt", content="bread\n"), ctx)
    assert (ws / "shopping.txt").read_text() == "bread\n"


def test_one_path_detector_reads_the_roots_not_words(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "meeting.txt").write_text("x")
    (tmp_path / "inventory.csv").write_text("x")
    found = [(n.path, n.kind) for n in named("¿cuántos hay en inventroy.csv y en notes?", [tmp_path])]
    assert found == [("inventory.csv", "file"), ("notes", "folder")]
    assert named("What is 2+2? e.g. four", [tmp_path]) == []


def test_the_judgement_is_the_models_own_probability_and_cached(model):
    """A real SmolLM2 judgement: a probability, one per question and message (its value is the
    model's; no wording is asserted)."""
    appended = SimpleNamespace(model=SimpleNamespace(yes_no=model.yes_no), tool_runner=None)  # no classifier of its own
    judge = Judge()
    judge.context("please delete notes.txt", [Message(role="user", content="please delete notes.txt")])
    p = judge.probability(appended, "keep")  # a question appended to the conversation
    assert p is not None and 0.0 <= p <= 1.0 and judge.cache == {"keep": p}
    assert judge.probability(appended, "keep") == p
    agent = SimpleNamespace(model=model, tool_runner=None)
    judge = Judge()
    judge.context("please delete notes.txt", [Message(role="user", content="please delete notes.txt")])
    c = judge.probability(agent, "change")  # a classifier: used only where the model passes its calibration
    assert "change" in model._judge_trusted and (c is None) is (not model._judge_trusted["change"])
    assert judge.probability(SimpleNamespace(model=ScriptedModel([]), tool_runner=None), "look") is None


def test_a_judgement_apart_leaves_the_conversations_kv_cache_as_it_was(model):
    """The change judgement is a few-shot prompt of its own (real SmolLM2): the conversation's KV state
    is put back after it, so the reply that follows evaluates only its own new tokens."""
    from nanobot.loop.judge import allow_prompt

    convo = [Message(role="system", content="You are helpful."), Message(role="user", content="What is in notes.txt?")]
    tokens = model.tokenize_prompt(model.render(convo))
    model.prefix_probability(convo, ("Yes",))  # the conversation evaluated, as a decision leaves it
    held = model.cached_prefix(tokens)
    assert held >= len(tokens) - 1
    yes, no = model.yes_no_apart(allow_prompt("read notes.txt but do not change it"))
    assert 0.0 <= yes <= 1.0 and 0.0 <= no <= 1.0 and yes + no > 0
    assert model.cached_prefix(tokens) == held  # put back: the reply reuses all of it
    again = model.yes_no_apart(allow_prompt("read notes.txt but do not change it"))  # from its kept state
    assert again == pytest.approx((yes, no), abs=0.05)  # the last token alone, not in a batch: close, not equal
    assert model.cached_prefix(tokens) == held


def test_each_classifier_keeps_its_own_prompt_state_apart(model, monkeypatch):
    """Two classifiers asked in turn (real SmolLM2): each judgement after the first of its kind evaluates
    only what differs from its own last prompt (the message), not its whole few-shot prompt again."""
    from nanobot.loop.judge import allow_prompt, classifier_prompt

    monkeypatch.setattr(model, "_apart", {})  # no state an earlier test on this worker left
    monkeypatch.setattr(model, "apart_store", None)  # nor a disk store an earlier agent's KV cache handed over
    evaluated: list[int] = []
    real = model.llm.eval
    monkeypatch.setattr(model.llm, "eval", lambda tokens: (evaluated.append(len(tokens)), real(tokens))[1])
    model.yes_no_apart(allow_prompt("read notes.txt but do not change it"))
    model.yes_no_apart(classifier_prompt("look", "what is in notes.txt?"))
    whole = sum(evaluated)
    assert whole > 100  # both few-shot prompts evaluated whole the first time
    evaluated.clear()
    model.yes_no_apart(allow_prompt("show me todo.md but leave it as it is"))
    model.yes_no_apart(classifier_prompt("look", "how many lines does todo.md have?"))
    assert 0 < sum(evaluated) < whole / 4


def test_the_fit_check_of_another_tool_starts_from_the_examples_evaluated(model, monkeypatch):
    """The fit check asks one prompt per tool (real SmolLM2): its examples, then the tool's line and the
    message. After one tool's judgement, the next tool's evaluates from its line on, not the examples again."""
    from nanobot.tools.fitcheck import fit_lead, fit_prompt

    monkeypatch.setattr(model, "_apart", {})
    monkeypatch.setattr(model, "apart_store", None)
    evaluated: list[int] = []
    real = model.llm.eval
    monkeypatch.setattr(model.llm, "eval", lambda tokens: (evaluated.append(len(tokens)), real(tokens))[1])
    convo = [Message(role="system", content="You are helpful."), Message(role="user", content="which branch am I on?")]
    model.prefix_probability(convo, ("Yes",))  # the conversation in the context, put back after each judgement
    tools = [{"name": n, "description": d, "parameters": {"type": "object", "properties": {}}}
             for n, d in (("exec", "Run an allowed shell command"), ("read_file", "Read a text file"),
                          ("list_dir", "List the entries of a directory"))]
    evaluated.clear()
    model.yes_no_apart(fit_prompt(tools[0], "which branch am I on?"), lead=fit_lead(tools[0]))
    whole = sum(evaluated)
    assert whole > 100  # the examples, evaluated once
    for tool in tools[1:]:
        evaluated.clear()
        model.yes_no_apart(fit_prompt(tool, "which branch am I on?"), lead=fit_lead(tool))
        assert 0 < sum(evaluated) < whole / 4, tool["name"]


def test_every_builtin_tool_declares_its_effects():
    from nanobot.memory.tools import MemoryAdd, MemorySearch
    from nanobot.tools.registry import all_tools

    for cls in [*all_tools().values(), MemoryAdd, MemorySearch]:
        own = cls.__mro__[:cls.__mro__.index(Tool)]  # the tool's classes, not Tool's default
        assert any("effects" in vars(c) or "effects_for" in vars(c) for c in own), cls.name


class Judging:
    """A model whose yes/no judgement is fixed per question (``judge.QUESTIONS``' kinds): the loop logic
    around the judgement, without a model's own answer."""

    def __init__(self, **yes: bool):
        self.yes = yes

    def yes_no(self, messages, tools=None):
        from nanobot.loop.judge import QUESTIONS

        asked = messages[-1].content
        kind = next(k for k, q in QUESTIONS.items() if q in asked)
        p = self.yes.get(kind)
        if isinstance(p, float):  # a probability of its own: (yes, no)
            return p, 1 - p
        return (0.9, 0.1) if p else (0.1, 0.9)


def _judged_agent(home, **yes):
    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    return SimpleNamespace(model=Judging(**yes), settings=settings, tool_runner=None, judge=Judge(),
                           provenance=Provenance()), settings.workspace


def test_a_look_asked_in_any_language_at_a_file_that_exists_must_be_looked_at(home):
    from nanobot.loop.replycheck import check

    agent, ws = _judged_agent(home, look=True)
    (ws / "recipe.md").write_text("# Flan\n- 4 eggs\n")
    result = check("¿Qué dice el archivo recipe.md?", "Es una receta de pastel de chocolate.", [], agent=agent)
    assert result.tool == "read_file" and "recipe.md" in result.problem
    agent, _ = _judged_agent(home, look=False)  # a statement the model judges no look: no objection
    assert not check("Guardé el archivo recipe.md ayer.", "Es una receta.", [], agent=agent).problem
    # a question about a file that exists asks for the file, whatever the judgement
    assert check("¿Qué dice el archivo recipe.md?", "Es una receta.", [], agent=agent).tool == "read_file"
    agent, _ = _judged_agent(home, look=True)  # a file that is not there is no fact to look at
    assert not check("¿Qué dice el archivo receta.md?", "Es una receta.", [], agent=agent).problem
    agent, _ = _judged_agent(home, look=False)  # the model judges no look, but its reply tells of the file
    told = check("¿Qué dice el archivo recipe.md?", "El archivo recipe.md contiene: 200 g de harina.", [], agent=agent)
    assert told.tool == "read_file" and "recipe.md" in told.problem
    asked_back = check("¿Qué dice el archivo recipe.md?", "El archivo recipe.md dice: harina. ¿Algo más?", [], agent=agent)
    assert asked_back.tool == "read_file"  # it told, then asked: a statement all the same
    (ws / "poem.txt").write_text("The heron waits\n")
    declined = check("Zeig mir bitte poem.txt", "Sorry, but I can't assist with that.", [], agent=agent)
    assert declined.tool == "read_file" and not declined.correction  # retried with the look; stands after


def test_dont_change_it_in_any_phrasing_the_model_reads_refuses_a_change(home):
    """The wording's "change" in "don't change it" lets an edit through; the model's sure "no, this
    does not allow changing a file" vetoes it (``Refusal.KEEP``)."""
    agent, ws = _judged_agent(home, change=False)
    agent.provenance.said.append("Look at server.cfg and tell me the port, but don't change it.")
    why = refusal(EditFile(), {"path": "server.cfg", "old": "port = 1", "new": "port = 2"}, agent.provenance, agent=agent)
    assert why.kind is Refusal.KEEP
    agent, _ = _judged_agent(home, change=True, keep=False)
    agent.provenance.said.append("Ändere bitte in server.cfg den Port auf 2")
    assert refusal(EditFile(), {"path": "server.cfg", "old": "port = 1", "new": "port = 2"}, agent.provenance,
                   agent=agent) == ""
    agent, _ = _judged_agent(home, change=True, keep=False, look=False)  # a change that keeps the rest
    agent.provenance.said.append("Setz in server.cfg den Port auf 2, sonst nichts ändern")
    assert refusal(EditFile(), {"path": "server.cfg", "old": "port = 1", "new": "port = 2"}, agent.provenance,
                   agent=agent) == ""


def test_a_sure_leave_it_as_it_is_vetoes_a_change_the_change_judgement_let_through(home):
    """The held-out set, the 1.5B: "Can you take a look at server.cfg and tell me which port it uses?
    Don't change anything." scored 0.75 on the change classifier; the reply check forced an edit and the
    port was changed. The keep classifier (``judge.CLASSIFIERS["keep"]``), sure the message says to leave
    the file as it is, vetoes the change (``Refusal.KEEP``) and the checks take no change as asked."""
    from nanobot.loop.callpolicy import change_asked
    from nanobot.tools.files import WriteFile

    said = "Could you look at app.yaml and tell me the timeout? Leave it unchanged."
    agent, ws = _judged_agent(home, change=0.75, keep=True)
    (ws / "app.yaml").write_text("timeout: 5\n")
    agent.provenance.said.append(said)
    why = refusal(EditFile(), {"path": "app.yaml", "old": "timeout: 5", "new": "timeout: 6"}, agent.provenance, agent=agent)
    assert why.kind is Refusal.KEEP
    assert not change_asked(said, agent)
    from nanobot.loop.replycheck import kept_in_file

    agent, _ = _judged_agent(home, change=0.75, keep=True, remember=True)  # the remember classifier: 0.79 there
    assert not kept_in_file(said, agent)  # no note for the file either, so no edit is forced
    agent, _ = _judged_agent(home, change=0.75, keep=False, remember=True)
    assert kept_in_file("Log in app.yaml: timeout raised on Monday", agent)
    agent, _ = _judged_agent(home, change=0.75, keep=False)  # not sure it says so: the change judgement stands
    agent.provenance.said.append("Set the timeout in app.yaml to 6")
    assert refusal(EditFile(), {"path": "app.yaml", "old": "timeout: 5", "new": "timeout: 6"}, agent.provenance,
                   agent=agent) == ""
    # the keep classifier also leans yes to making a new file (0.54-0.68 on the 1.5B): a file that is not
    # there has nothing to leave as it is, so its yes counts only where the message names one that exists
    new = "Create a new file hello.txt that says hi"
    agent, _ = _judged_agent(home, change=True, keep=True)
    agent.provenance.said.append(new)
    assert refusal(WriteFile(), {"path": "hello.txt", "content": "hi"}, agent.provenance, agent=agent) == ""
    assert change_asked(new, agent)


def test_a_removal_the_keep_classifier_also_says_yes_to_is_not_vetoed_when_the_change_judgement_is_surer(home):
    """The 1.5B's keep classifier says yes to removals ("Lösch bitte die Zeile mit duct tape aus
    inventory.csv": keep 0.65, change 0.83), so the KEEP veto refused the edit the user asked for. Of two
    sure judgements that disagree the surer stands; a "leave it as it is" scores keep above change."""
    from nanobot.loop.callpolicy import change_asked

    removal = "Lösch bitte die Zeile mit duct tape aus inventory.csv"
    edit = {"path": "inventory.csv", "old": "hammer,3\nduct tape,4", "new": "hammer,3"}
    agent, ws = _judged_agent(home, change=0.83, keep=0.65)
    (ws / "inventory.csv").write_text("hammer,3\nduct tape,4\n")
    agent.provenance.said.append(removal)
    assert refusal(EditFile(), edit, agent.provenance, agent=agent) == ""
    assert change_asked(removal, agent)
    leave = "Could you look at inventory.csv and tell me the count? Leave it unchanged."
    agent, _ = _judged_agent(home, change=0.61, keep=0.82)  # keep_dev.tsv's closest "leave it"
    agent.provenance.said.append(leave)
    assert refusal(EditFile(), edit, agent.provenance, agent=agent).kind is Refusal.KEEP
    assert not change_asked(leave, agent)


def test_an_edit_that_puts_a_value_of_its_own_in_place_of_the_files_needs_a_clear_change_ask(home):
    """"Fasse handover.md kurz zusammen." (summarise it): the 1.5B's change judgement is 0.63, over its
    bound, and the model "summarised" by editing "Halle 2" into "Halle 3". An edit that swaps a number
    for one the user never gave is refused where the change judgement is short of ``VALUE_SURE``; a value
    the user gives, a surer ask, a sure repair, or an edit that swaps no number passes."""
    summary = "Fasse handover.md kurz zusammen."
    swap = {"path": "handover.md", "old": "Die Pumpe in Halle 2 läuft wieder.", "new": "Die Pumpe in Halle 3 läuft wieder."}
    agent, ws = _judged_agent(home, change=0.63, keep=0.44, repair=False)
    (ws / "handover.md").write_text("# Übergabe\nDie Pumpe in Halle 2 läuft wieder.\n")
    agent.provenance.said.append(summary)
    why = refusal(EditFile(), swap, agent.provenance, agent=agent)
    assert why.kind is Refusal.UNGIVEN and "2 to 3" in why
    from nanobot.core.provenance import unasked
    assert unasked(why)  # the template step answers as if it was never made: the model does not retell it
    assert refusal(EditFile(), {**swap, "new": "Die Pumpe in Halle 2 läuft wieder gut."}, agent.provenance, agent=agent) == ""
    agent.provenance.said.append("In handover.md, make it Halle 3.")
    assert refusal(EditFile(), swap, agent.provenance, agent=agent) == ""
    agent, _ = _judged_agent(home, change=0.9, keep=0.1, repair=False)
    agent.provenance.said.append("Correct the hall number in handover.md.")
    assert refusal(EditFile(), swap, agent.provenance, agent=agent) == ""


def test_a_bug_report_asks_for_the_fix_the_change_judgement_would_veto(home):
    """"test_books.py still fails after your change": the change classifier reads no change asked (0.19
    on the 1.5B), so the KEEP veto refused the fix. The repair classifier's sure yes
    (``judge.CLASSIFIERS["repair"]``) lifts that veto, in a coding session and in any other chat; a sure
    leave-it still vetoes, and so does the change judgement's no where nothing is reported broken."""
    report = "test_books.py still fails after your change"
    fix = {"path": "books.py", "old": "return a", "new": "return b"}
    agent, ws = _judged_agent(home, change=False, repair=True)
    (ws / "test_books.py").write_text("def test_b(): pass\n")
    agent.provenance.said.append(report)
    assert refusal(EditFile(), fix, agent.provenance, coding=True, agent=agent) == ""
    agent, _ = _judged_agent(home, change=False, repair=False)  # no report of something broken: vetoed
    agent.provenance.said.append("What does test_books.py check?")
    assert refusal(EditFile(), fix, agent.provenance, coding=True, agent=agent).kind is Refusal.KEEP
    agent, ws = _judged_agent(home, change=False, repair=True)  # outside a coding session too, of the file
    (ws / "books.py").write_text("def total(a, b):\n    return a\n")  # it names (a test file it names is
    agent.provenance.said.append("books.py gives the wrong total after your change")  # no leave to edit another)
    assert refusal(EditFile(), fix, agent.provenance, agent=agent) == ""
    agent, _ = _judged_agent(home, change=False, repair=False)  # nothing reported broken: vetoed
    agent.provenance.said.append("What did your change to books.py do?")
    assert refusal(EditFile(), fix, agent.provenance, agent=agent).kind is Refusal.KEEP
    agent, _ = _judged_agent(home, change=False, repair=True, keep=True)  # "... but don't touch it"
    agent.provenance.said.append("test_books.py fails, but leave it as it is; I'll fix it myself")
    assert refusal(EditFile(), fix, agent.provenance, coding=True, agent=agent).kind is Refusal.KEEP


def test_a_bug_report_with_no_word_of_a_change_asks_for_the_fix_of_the_file_it_names(home):
    """"reverse_words in utils.py gives the words back in the same order": no word of the change list,
    and the change judgement reads no change asked, so the model's fix was refused as nobody's ask. The
    repair classifier's sure yes asks for it, in any chat; the reply checks take it for a change asked."""
    from nanobot.loop.callpolicy import change_asked

    report = "total() in books.py gives back the first number only"
    fix = {"path": "books.py", "old": "return a", "new": "return a + b"}
    agent, ws = _judged_agent(home, change=0.37, repair=True)
    (ws / "books.py").write_text("def total(a, b):\n    return a\n")
    agent.provenance.said.append(report)
    assert refusal(EditFile(), fix, agent.provenance, agent=agent) == ""
    assert change_asked(report, agent)
    agent, _ = _judged_agent(home, change=0.37, repair=False)  # no report of something broken: nobody asked
    agent.provenance.said.append("total() in books.py adds two numbers")
    assert refusal(EditFile(), fix, agent.provenance, agent=agent).kind is Refusal.NOT_ASKED
    assert not change_asked("total() in books.py adds two numbers", agent)


def test_a_line_the_user_dictates_into_the_file_they_name_is_vetoed_only_by_a_sure_no(home):
    """The change judgement just under its bound (0.59 on the 1.5B for this message) does not veto the
    text the user typed for the file they named; a sure "no" (a "don't write ...") still does."""
    line = {"path": "garden.log", "text": "2024-06-08 picked the first strawberries"}
    agent, _ = _judged_agent(home, change=0.59)
    agent.provenance.said.append("Log today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries")
    assert refusal(AppendFile(), line, agent.provenance, agent=agent) == ""
    kept = "2024-06-01 picked radishes"  # an edit that writes the line after the last line it keeps
    after = {"path": "garden.log", "old": kept, "new": f"{kept}\n{line['text']}"}
    assert refusal(EditFile(), after, agent.provenance, agent=agent) == ""
    assert refusal(EditFile(), after | {"new": f"{kept}\n{line['text']}\nand more"}, agent.provenance, agent=agent)
    agent, _ = _judged_agent(home, change=0.59)  # the text not typed: refused as before
    agent.provenance.said.append("Log today's harvest at the bottom of garden.log")
    assert refusal(AppendFile(), line, agent.provenance, agent=agent)
    agent, _ = _judged_agent(home, change=False)
    agent.provenance.said.append("Don't write '2024-06-08 picked the first strawberries' into garden.log")
    assert refusal(AppendFile(), line, agent.provenance, agent=agent).kind is Refusal.KEEP


def test_a_change_is_asked_when_the_models_sure_judgement_or_the_wording_says_so(home):
    from nanobot.loop.judge import asks

    agent, _ = _judged_agent(home)
    agent.model = SimpleNamespace()  # a backend that cannot judge (a server): the wording decides
    assert asks(agent, "change", "In calc.py, fix sub") is None
    agent.provenance.said.append("In calc.py, fix sub")  # the wording: a change word and a file
    assert refusal(EditFile(), {"path": "calc.py", "old": "a + b", "new": "a - b"}, agent.provenance, agent=agent) == ""
    agent, _ = _judged_agent(home, change=False)  # the wording's "fix" asks, the model's sure no vetoes
    agent.provenance.said.append("In calc.py, fix sub")
    assert refusal(EditFile(), {"path": "calc.py", "old": "a + b", "new": "a - b"}, agent.provenance,
                   agent=agent).kind is Refusal.KEEP
    agent, _ = _judged_agent(home, change=False)  # neither asks: refused
    agent.provenance.said.append("Was steht in calc.py?")
    assert refusal(EditFile(), {"path": "calc.py", "old": "a + b", "new": "a - b"}, agent.provenance,
                   agent=agent).kind is Refusal.NOT_ASKED
    agent, _ = _judged_agent(home, change=True)  # the model's sure yes: a request the wording cannot read
    agent.provenance.said.append("Ändere in calc.py sub, damit es a - b liefert")
    assert refusal(EditFile(), {"path": "calc.py", "old": "a + b", "new": "a - b"}, agent.provenance, agent=agent) == ""


def test_a_judgement_is_asked_only_when_a_check_reads_it(home):
    """The reply checks ask the model's yes/no judgement lazily: a greeting's turn asks none (on the
    1.5B each costs a prefill of the question), a reply that claims a change to a named file asks."""

    class Counting(ScriptedModel):
        asked: list[str] = []

        def yes_no(self, messages, tools=None):
            self.asked.append(messages[-1].content)
            return 0.1, 0.9

    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "notes.txt").write_text("Call Bob\n")
    model = Counting(["Hello! How can I help?"])
    agent = Agent(settings, model)
    list(agent.turn("hi"))
    assert model.asked == []
    model.replies = ["I have added the line to notes.txt.", "I have added the line to notes.txt."]
    list(agent.turn("notes.txt needs 'buy milk' too"))
    assert model.asked  # the claim is checked against what the user asked


def test_a_remember_request_in_any_language_must_be_remembered_not_claimed(home):
    """"Merk dir: ..." answered "Remembered" with nothing saved: the model's classifier (``judge.CLASSIFIERS``,
    asked apart from the conversation) says it asks to remember, so the claim is checked and the retry
    calls memory_add."""
    from nanobot.loop.judge import CLASSIFIERS
    from nanobot.loop.replycheck import check, remember

    class Classifying(Judging):
        def yes_no(self, messages, tools=None):  # the question appended to the conversation: unsure
            return 0.5, 0.5

        def yes_no_apart(self, messages, **_):
            kind = next(k for k, (system, _) in CLASSIFIERS.items() if messages[0].content == system)
            return (0.95, 0.05) if self.yes.get(kind) else (0.05, 0.95)

    agent, _ = _judged_agent(home)
    agent.model = Classifying(remember=True)
    agent.model._judge_trusted = {"remember": True}  # its calibration passed (``judge.trusted``)
    said = "Merk dir: mein Zug fährt um 7:42."
    result = check(said, "Remembered", [], asked_change=lambda: remember(said, agent), agent=agent)
    assert result.tool == "memory_add" and "no tool ran" in result.problem
    agent, _ = _judged_agent(home)
    agent.model = Classifying(remember=False)
    agent.model._judge_trusted = {"remember": True}
    assert not check("Wann fährt mein Zug?", "Um 7:42.", [], asked_change=lambda: remember("Wann fährt mein Zug?", agent),
                     agent=agent).problem


def test_a_remember_judgement_that_leans_yes_and_a_reply_that_claims_it_kept_the_fact_call_memory_add(home):
    """The fresh set, the 1.5B: an indirect ask to keep a fact scored 0.60 on the remember classifier
    (unsure: the bound is 0.7), the reply said it had kept it, and the retry was told that nothing was
    asked. Where the judgement leans yes (``judge.LEAN``) and the model's own reply claims the keeping,
    the retry calls memory_add; leaning no, or a file named, it does not."""
    from nanobot.loop.judge import CLASSIFIERS
    from nanobot.loop.replycheck import check, remember

    class Leaning(Judging):
        def __init__(self, p):
            super().__init__()
            self.p = p

        def yes_no(self, messages, tools=None):
            return 0.5, 0.5

        def yes_no_apart(self, messages, **_):
            kind = next(k for k, (system, _) in CLASSIFIERS.items() if messages[0].content == system)
            return (self.p, 1 - self.p) if kind == "remember" else (0.05, 0.95)

    def checked(p, said, reply="I've stored that for you."):
        agent, _ = _judged_agent(home)
        agent.model = Leaning(p)
        agent.model._judge_trusted = {"remember": True, "change": True}
        return check(said, reply, [], asked_change=lambda: remember(said, agent), agent=agent)

    said = "My sister's birthday falls on the 3rd of June, so you know for next year."
    leaning = checked(0.6, said)
    assert leaning.tool == "memory_add" and "no tool ran" in leaning.problem
    assert checked(0.4, said).tool == ""  # leaning no: answered, nothing kept
    assert checked(0.6, said, "Her birthday is on June 3rd.").problem == ""  # no claim
    assert checked(0.6, "My sister's birthday is in dates.txt, I've said so").tool != "memory_add"


def test_a_classifier_the_model_fails_its_calibration_on_is_not_used(home):
    """A model that says yes to everything (as a 135M nearly does) fails ``judge.CALIBRATION``: its
    change judgement is None, so no veto rests on it and the wording decides."""
    from nanobot.loop.judge import asks

    class YesToAll(Judging):
        def yes_no_apart(self, messages, **_):
            return 0.9, 0.1

    agent, _ = _judged_agent(home)
    agent.model = YesToAll()
    assert asks(agent, "change", "Look at a.txt but do not change it") is None
    assert agent.model._judge_trusted == {"change": False}


def test_a_fact_kept_must_come_from_what_was_said_or_shown(home):
    """The bundled SmolLM2, retried with memory_add after "remember that my train leaves at 7", saved
    "12345": what a call that only remembers keeps must share a word with what the user said or a
    tool showed (any script), else it is refused and nothing is written."""
    from nanobot.memory.tools import AddArgs, MemoryAdd

    said = Provenance(said=["remember that my train leaves at 7"])
    why = refusal(MemoryAdd(), AddArgs(text="12345"), said)
    assert why.kind is Refusal.UNSAID and "12345" in why
    assert refusal(MemoryAdd(), AddArgs(text="The user's train leaves at 7."), said) == ""
    assert refusal(MemoryAdd(), AddArgs(text="Train at 7"), said) == ""
    assert refusal(MemoryAdd(), AddArgs(text="用户的火车七点出发"), Provenance(said=["记住：我的火车七点出发"])) == ""
    shown = Provenance(said=["remember what notes.txt says"], looked=["Dentist on Friday at 9"])
    assert refusal(MemoryAdd(), AddArgs(text="Dentist appointment Friday 9am"), shown) == ""
    assert refusal(MemoryAdd(), AddArgs(text="17"), said).kind is Refusal.UNSAID  # "7" is no "17"


def test_a_fact_kept_comes_from_the_message_that_gives_it(home):
    """A new user's SmolLM2 chat: "hi, I am Sam", "what is 12 times 7?", "remember that my cat is called
    Miso" saved "12 * 7", grounded by the earlier question. A message that carries a fact of its own (a
    name, a number, a quote) grounds what is kept; one that points back ("please remember what I just
    told you") lets the earlier messages ground it."""
    from nanobot.memory.tools import AddArgs, MemoryAdd

    prov = Provenance(said=["hi, I am Sam", "what is 12 times 7?", "remember that my cat is called Miso"],
                      looked=["12 * 7 = 84"])  # a new user's chat: spawn had answered the question
    why = refusal(MemoryAdd(), AddArgs(text="12 * 7"), prov)
    assert why.kind is Refusal.UNSAID and "12 * 7" in why
    assert refusal(MemoryAdd(), AddArgs(text="12"), prov).kind is Refusal.UNSAID
    assert refusal(MemoryAdd(), AddArgs(text="The user's cat is called Miso."), prov) == ""
    back = Provenance(said=["my cat is called Miso", "please remember what I just told you"])
    assert refusal(MemoryAdd(), AddArgs(text="The user's cat is Miso"), back) == ""
    german = Provenance(said=["Wie spät ist es?", "Merk dir: mein Zug fährt um 7"])
    assert refusal(MemoryAdd(), AddArgs(text="Wie spät"), german).kind is Refusal.UNSAID
    assert refusal(MemoryAdd(), AddArgs(text="Zug um 7"), german) == ""


def test_a_fact_kept_shares_a_content_word_not_a_stop_word_or_a_piece_of_one(home):
    """A new user's SmolLM2 chat kept "This is a fact, and it's not just any fact" after "remember that
    my cat is called Miso": words every sentence has ("this", "that", "and") and a word found inside
    another ("cat" in "bobcat") ground nothing; a word the user gave, in another form, does."""
    from nanobot.memory.tools import AddArgs, MemoryAdd

    said = Provenance(said=["what files are in this folder?", "remember that my cat is called Miso"])
    why = refusal(MemoryAdd(), AddArgs(text="This is a fact, and it's not just any fact that is here."), said)
    assert why.kind is Refusal.UNSAID
    bobcat = Provenance(said=["remember the bobcat is blue"])
    assert refusal(MemoryAdd(), AddArgs(text="a cat"), bobcat).kind is Refusal.UNSAID
    assert refusal(MemoryAdd(), AddArgs(text="The user's cat: Miso"), said) == ""
    assert refusal(MemoryAdd(), AddArgs(text="my train leave time"), Provenance(said=["remember my train leaves early"])) == ""


def test_a_fact_kept_keeps_what_the_message_gives(home):
    """A new user's SmolLM2 chat kept "The fact that you have a cat is a very special thing..." after
    "remember that my cat is called Miso": it shares "cat" but keeps nothing the message gives. Where a
    message gives numbers, names (a capital inside a sentence) or a quote, what is kept holds one of
    them, in any language; a message that gives none ("I'm allergic to nuts") is grounded as before."""
    from nanobot.memory.tools import AddArgs, MemoryAdd

    miso = Provenance(said=["remember that my cat is called Miso"])
    why = refusal(MemoryAdd(), AddArgs(text="The fact that you have a cat is a very special thing"), miso)
    assert why.kind is Refusal.UNSAID and "Miso" in why
    assert refusal(MemoryAdd(), AddArgs(text="Cat's name: miso"), miso) == ""
    train = Provenance(said=["remember my train leaves at 7"])
    assert refusal(MemoryAdd(), AddArgs(text="my train leave time"), train).kind is Refusal.UNSAID
    assert refusal(MemoryAdd(), AddArgs(text="Train leaves at 7:00"), train) == ""
    assert refusal(MemoryAdd(), AddArgs(text="The cat is called Mia"), Provenance(said=["Merk dir bitte: die Katze heißt Mia."])) == ""
    assert refusal(MemoryAdd(), AddArgs(text="Grandma's birthday: May 5"), Provenance(said=["Notiere dir: Oma hat am 5. Mai Geburtstag"])) == ""
    quote = Provenance(said=["remember: 'call the plumber before noon'"])
    assert refusal(MemoryAdd(), AddArgs(text="Call plumber before noon"), quote) == ""
    assert refusal(MemoryAdd(), AddArgs(text="User is allergic to nuts"), Provenance(said=["remember that I'm allergic to nuts"])) == ""
    assert Provenance(said=["remember that my cat Miso's vet is Dr Vale, door 12"]).facts() == ["12", "Miso", "Dr", "Vale"]


def test_a_message_naming_a_file_allows_changes_to_that_file_only_and_its_typed_text_is_asked(home):
    """dev2, the 1.5B: on "In units.js the function celsius should be called toCelsius", the forced edit went
    to garden.log, named the turn before (an unasked change, a destroyed line): a message that names files
    names the ones it is about. And "Log today's harvest at the bottom of garden.log: 2024-06-08 picked
    the first strawberries" gives the line to write, as a typed command gives the command: append_file
    with that text in that file is asked for, whatever the change judgement says."""
    from nanobot.tools.append import AppendArgs, AppendFile

    prov = Provenance(said=["Log today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries",
                            "In units.js the function celsius should be called toCelsius, please rename it"])
    why = refusal(EditFile(), {"path": "garden.log", "old": "tray 2", "new": "tray 3"}, prov)
    assert why.kind is Refusal.OTHER_FILE
    assert refusal(EditFile(), {"path": "units.js", "old": "celsius", "new": "toCelsius"}, prov) == ""
    logged = Provenance(said=prov.said[:1])
    assert refusal(AppendFile(), AppendArgs(path="garden.log", text="2024-06-08 picked the first strawberries"), logged) == ""
    assert refusal(AppendFile(), AppendArgs(path="garden.log", text="2024-06-09 watered"), logged).kind is Refusal.NOT_ASKED
    assert refusal(EditFile(), {"path": "garden.log", "old": "x", "new": "y"},
                   Provenance(said=["read garden.log", "fix the typo, e.g. the first line"])) == ""  # "e.g." names no file


def test_a_file_name_with_inner_dots_is_the_file_the_message_names(home):
    """The coding bench, the 1.5B: "Now add a test for multiply to calc.test.js." had every edit of
    calc.test.js refused: "the user named calc.test, not 'calc.test.js'". A name with inner dots (a test
    or spec file, a local config) is one name; another file is still another."""
    prov = Provenance(said=["Now add a test for multiply to calc.test.js."])
    edit = {"path": "calc.test.js", "old": "test(", "new": "test("}
    assert refusal(EditFile(), edit, prov, coding=False) == ""
    assert refusal(EditFile(), edit | {"path": "calc.js"}, prov).kind is Refusal.OTHER_FILE
    local = Provenance(said=["set the port in config.local.toml to 8081"])
    assert refusal(EditFile(), {"path": "config.local.toml", "old": "8080", "new": "8081"}, local) == ""


def test_a_path_with_a_folder_is_that_file_in_a_root_not_one_of_the_same_name_elsewhere(home, tmp_path):
    """The coding bench, the 1.5B, a root named inventory: "Add a method count(name) to the Stock class in
    inventory/stock.py" edited inventory/stock.py, then wrote <root>/stock.py, a new file, which passed
    as the file named ("/.../inventory/stock.py" ends with "/inventory/stock.py"). With the roots known, a
    name with a folder in it is that file in a root; a bare file name still names it wherever it is."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.tools.files import WriteArgs, WriteFile

    root = tmp_path / "inventory"
    (root / "inventory").mkdir(parents=True)
    (root / "inventory" / "stock.py").write_text("class Stock:\n    pass\n")
    agent = SimpleNamespace(settings=load_settings(home, tools={"roots": [str(root)]}))
    prov = Provenance(said=["Add a method count(name) to the Stock class in inventory/stock.py"])
    stray = WriteArgs(path=str(root / "stock.py"), content="class Stock:\n    pass\n")
    assert refusal(WriteFile(), stray, prov, agent=agent).kind is Refusal.OTHER_FILE
    assert refusal(WriteFile(), stray, prov) == ""  # without the roots: by the name as written, as before
    right = WriteArgs(path=str(root / "inventory" / "stock.py"), content="class Stock:\n    n = 1\n")
    for args in (right, right.model_copy(update={"path": "inventory/stock.py"})):
        assert getattr(refusal(WriteFile(), args, prov, agent=agent), "kind", None) is not Refusal.OTHER_FILE


def test_a_read_of_memory_md_is_memory_already_kept_not_a_fact_to_keep(home):
    """mem_dev, the 1.5B: "What's my locker number at the pool?" read MEMORY.md; "Remember the code for
    my bike lock? Tell me." (no fact of its own, so what a tool showed counted as said) then kept "The code
    for my bike lock is 6083." from that read: a fact memory held, written again as the user's. A read of
    MEMORY.md or an observation is retrieved text, as a memory_search's result is; a read of another
    file is still what the user was shown."""
    from nanobot.core.events import ToolCall
    from nanobot.loop.checkedturn import kept_shown
    from nanobot.memory.tools import AddArgs, MemoryAdd

    agent = Agent(load_settings(home), ScriptedModel([]))
    init_workspace(agent.settings.workspace)
    memory = "- Mein Fahrradschloss hat den Code 6083.\n- My locker at the pool is number 218.\n"
    reads = [("read_file", {"path": p}) for p in ("MEMORY.md", str(agent.settings.workspace / "MEMORY.md"),
                                                  "observations/2026-12-01.md")]
    for name, args in [*reads, ("exec", {"command": "cat MEMORY.md", "cwd": "."})]:  # the 1.5B's "cat" too
        agent.provenance = Provenance(said=["What's my locker number at the pool?"])
        kept_shown(agent, ToolResult(name=name, ok=True, text=memory), [ToolCall(name=name, arguments=args)])
        assert agent.provenance.looked == [] and agent.provenance.retrieved == [memory]
        agent.provenance.said.append("Remember the code for my bike lock? Tell me.")
        why = refusal(MemoryAdd(), AddArgs(text="The code for my bike lock is 6083."), agent.provenance)
        assert why.kind is Refusal.UNSAID and "6083" in why
    agent.provenance = Provenance(said=["what does notes.txt say?"])
    kept_shown(agent, ToolResult(name="read_file", ok=True, text="Dentist on Friday at 9"),
               [ToolCall(name="read_file", arguments={"path": "notes.txt"})])
    assert agent.provenance.looked == ["Dentist on Friday at 9"]
    agent.provenance.said.append("remember what it says")
    assert refusal(MemoryAdd(), AddArgs(text="Dentist appointment Friday 9am"), agent.provenance) == ""
