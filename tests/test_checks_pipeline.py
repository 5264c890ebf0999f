"""The reply checks as one ordered pipeline of named checks (issue 39): each check on its own, on a
turn's ``Facts``, and what each call did read from the tools' declared effects."""

from __future__ import annotations

from nanobot.core.events import ToolCall, ToolResult
from nanobot.loop import claims as cc
from nanobot.loop import looks as lc
from nanobot.loop.replycheck import CHECKS, check
from nanobot.loop.verdict import ANY_LOOK, Facts, Outcome, outcomes
from nanobot.tools.base import Tool
from nanobot.tools.effects import Effect

READ = frozenset({Effect.LOOKS})
EDIT = frozenset({Effect.CHANGES})
MEM = frozenset({Effect.REMEMBERS})


def facts(user, reply, done=(), **kw):
    from nanobot.core.asks import looks_at

    return Facts(user_text=user, reply=reply, done=list(done), target=kw.pop("target", looks_at(user)), **kw)


def test_the_pipeline_is_the_named_checks_in_order():
    assert [c.__name__ for c in CHECKS] == [
        "no_answer", "repeated_reply", "message_parroted", "imitated_output", "failed_change_claimed", "failure_echoed", "failure_untold", "change_claimed_without_one", "asked_file_not_changed",
        "change_not_tried", "remember_not_tried", "name_not_written", "call_as_text", "look_failed", "told_of_tool", "output_unrun", "not_from_look", "listing_unnamed", "value_unshown", "declined_without_look", "not_looked", "absent_listed", "named_unlooked"]


def test_a_repeated_reply_to_a_change_not_tried_is_retried_with_the_change():
    """dev2, the 1.5B: "Add a function tip(total, pct) to pricing.py ..." read the file and replied as it had to
    "What does split_bill do?"; the repeat's retry read again and nothing changed. A repeat where a change
    was asked and none tried is retried with the change tool."""
    ask = "Add a function tip(total, pct) to pricing.py that returns the tip amount rounded to 2 decimals"
    said = "The `split_bill` function in pricing.py calculates the bill per person by dividing the total."
    reply = "The `tip` function in pricing.py calculates the bill per person by dividing the total."
    read = Outcome("read_file", {"path": "pricing.py"}, True, "pricing.py lines 1-2 of 2\ndef split_bill(t, p):",
                   effects=READ, on_path=True)
    before = [("What does split_bill in pricing.py do?", said)]
    verdict = lc.repeated_reply(facts(ask, reply, [read], asked_change=True, change_sure=True, judged=True,
                                      extra={"before": before}))
    assert verdict is not None and verdict.tool == "edit_file" and "no tool ran" in verdict.problem
    unsure = lc.repeated_reply(facts(ask, reply, [read], asked_change=True, change_sure=False, judged=True,
                                     extra={"before": before}))
    assert unsure is not None and "repeat" in unsure.problem  # after a look, only a sure change judgement asks


def test_no_answer():
    assert lc.no_answer(facts("hi", "```json\n```")) and lc.no_answer(facts("hi", "Hello!")) is None


def test_a_fact_refused_for_what_it_left_out_and_a_reply_that_repeats_are_retried_with_memory_add():
    """The fresh set, the 1.5B: a fact to keep was written without the number the message gave, refused
    (``Refusal.UNSAID``), and the reply claimed it was kept; the retry was told only to say it failed, and
    the next remember requests were answered with that reply again, nothing kept. Such a refusal's retry
    calls memory_add again, and a repeated reply to a request to keep something is retried with it."""
    from nanobot.core.provenance import Refusal

    lost = Outcome("memory_add", {"text": "bike lock code"}, False, "memory_add refused: 'bike lock code' leaves out "
                   "what the user said (3390); write the fact in the user's own words", Refusal.UNSAID, effects=MEM)
    verdict = cc.failed_change_claimed(facts("keep in mind my bike lock code is 3390", "I've saved that.", [lost]))
    assert verdict.tool == "memory_add" and "user's own words" in verdict.note
    broken = Outcome("edit_file", {"path": "a.py"}, False, "text to replace not found", effects=EDIT, on_path=True)
    assert cc.failed_change_claimed(facts("fix a.py", "I've updated a.py.", [broken])).tool == ""  # told, as before
    before = [("keep in mind my bike lock code is 3390", "Sorry, I could not save that to memory just now.")]
    again = lc.repeated_reply(facts("and my locker is number 12, for later", "Sorry, I could not save that to memory just now.",
                                    keeps=True, extra={"before": before}))
    assert again.tool == "memory_add" and "nothing was saved" in again.problem
    assert lc.repeated_reply(facts("and my locker is number 12, for later", "Sorry, I could not save that to memory just now.",
                                   keeps=False, extra={"before": before})).tool == ""


def test_a_reply_that_repeats_an_earlier_message_of_the_user_is_retried_with_the_keeping_asked():
    """A reply that copies an earlier message of the user, to a message that asks to keep something
    (in German here), is retried with memory_add, as a reply that repeats an earlier reply already is:
    a retry with only "answer this message" left the fact unsaved."""
    before = [("Merk dir: mein Zug fährt um 7:42.", "Okay.")]
    ask = "Und merk dir auch: die Fähre fährt um 9:15."
    kept = lc.repeated_reply(facts(ask, "Merk dir: mein Zug fährt um 7:42.", keeps=True, extra={"before": before}))
    assert kept.tool == "memory_add" and "nothing was saved" in kept.problem
    plain = lc.repeated_reply(facts(ask, "Merk dir: mein Zug fährt um 7:42.", keeps=False, extra={"before": before}))
    assert plain.tool == "" and "earlier message of the user" in plain.problem


def test_a_fact_asked_back_in_the_same_session_is_an_answer_not_a_copy():
    """"What is my bike lock code?" after "Remember my bike lock code is 4821." is answered from that
    message: a reply close to it told the fact back, and was retried and then marked as no answer."""
    before = [("Remember my bike lock code is 4821.", "I remembered the bike lock code is 4821.")]
    assert lc.repeated_reply(facts("What is my bike lock code?", "My bike lock code is 4821.",
                                   extra={"before": before})) is None
    assert lc.repeated_reply(facts("What time does the bike shop open?", "Remember my bike lock code is 4821.",
                                   extra={"before": before})) is not None  # something else asked: copied


def test_repeated_reply_to_another_message():
    budget = "The budget for January includes rent of $875 and groceries of $312, and February the same."
    before = [("can you show me budget.tsv", budget)]
    result = lc.repeated_reply(facts("Enséñame trips/oslo.md", budget + " ", extra={"before": before}))
    assert result is not None and "repeat" in result.problem and "Enséñame trips/oslo.md" in result.note
    oslo = Outcome("read_file", {"path": "trips/oslo.md"}, True, "trips/oslo.md lines 1-2 of 2\n# Oslo\nHotel: Fjordlys",
                   effects=READ, on_path=True)
    shown = lc.repeated_reply(facts("Enséñame trips/oslo.md", budget, [oslo], extra={"before": before}))
    assert "Hotel: Fjordlys" in shown.correction  # the user still gets the file asked for
    assert lc.repeated_reply(facts("can you show me budget.tsv", budget, extra={"before": before})) is None  # asked again
    assert lc.repeated_reply(facts("Could you show me budget.tsv?", budget, extra={"before": before})) is None  # nearly
    assert lc.repeated_reply(facts("and oslo.md?", "Oslo: three days in May, the Munch museum first.",
                                    extra={"before": before})) is None
    assert lc.repeated_reply(facts("thanks", "Done.", extra={"before": [("fix a.py", "Done.")]})) is None  # short
    look = Outcome("read_file", {}, True, "budget.tsv lines 1-2 of 2\n" + budget, effects=READ, on_path=True)
    assert lc.repeated_reply(facts("show budget.tsv again", budget, [look], extra={"before": before})) is None
    outside = "The file /home/me/proj/utils.py is outside the workspace; the allowed roots are /home/me/.nanobot/workspace."
    refused = Outcome("edit_file", {"path": "/home/me/proj/utils.py"}, False, "path '/home/me/proj/utils.py' is outside "
                      "the workspace; allowed roots: /home/me/.nanobot/workspace", effects=EDIT, on_path=True)
    ask = "add a function called reverse_words to utils.py"
    told = facts(ask, outside, [refused], extra={"before": [("what does utils.py do?", outside)]})
    assert lc.repeated_reply(told) is None  # this turn's own failure, told again: the same refusal reads the same
    assert lc.repeated_reply(facts(ask, outside, extra={"before": [("what does utils.py do?", outside)]})) is not None


def test_a_reply_that_differs_from_an_earlier_one_where_this_turns_result_does_reports_this_turn():
    """"Now add a test for reverse_words to test_textutil.py.": the edit ran and the reply named the file it
    edited, in the words of the turn before's reply about textutil.py; it was marked as a copy. A reply whose
    words beyond the earlier reply's come from this turn's successful results reports this turn."""
    before = [("Add a function reverse_words(text) to textutil.py that returns the words of text in reverse order, "
               "joined by single spaces.", "The function `reverse_words` has been added to the file `/tmp/p/textutil.py`.")]
    reply = "The function `reverse_words` has been added to the file `/tmp/p/test_textutil.py`."
    edited = Outcome("edit_file", {"path": "test_textutil.py"}, True, "edited /tmp/p/test_textutil.py at line 1",
                     effects=EDIT, on_path=True)
    ask = "Now add a test for reverse_words to test_textutil.py."
    assert lc.repeated_reply(facts(ask, reply, [edited], extra={"before": before})) is None
    failed = edited._replace(ok=False, text="text to replace not found in 'test_textutil.py'")
    assert lc.repeated_reply(facts(ask, reply, [failed], extra={"before": before})) is not None  # no result of it
    other = edited._replace(args={"path": "notes.txt"}, text="edited /tmp/p/notes.txt at line 1")
    assert lc.repeated_reply(facts(ask, reply, [other], extra={"before": before})) is not None  # not what it names
    said = before[0][1]  # the earlier reply word for word, after this turn's edit ran: retried without a look
    again = lc.repeated_reply(facts(ask, said, [edited], offered=frozenset({"read_file", "edit_file"}),
                                    extra={"before": before}))
    assert again.tool == "" and again.answer and "edit_file returned" in again.note and "not looked" not in again.note


def test_a_repeated_reply_to_a_look_naming_nothing_is_retried_with_a_look_when_the_model_judges_one_asked():
    earlier = "The garage folder holds two files, tyres.txt and oil.txt, both short."
    before = [("what's in the garage folder?", earlier)]
    ask = "und was gibt es sonst noch hier?"  # names nothing a detector reads as a target
    judged = lc.repeated_reply(facts(ask, earlier, look_sure=True, extra={"before": before}))
    assert judged is not None and judged.tool == ANY_LOOK and "have not looked" in judged.note
    assert lc.repeated_reply(facts(ask, earlier, look_sure=False, extra={"before": before})).tool == ""
    assert lc.repeated_reply(facts(ask, earlier, look_sure=True, offered=frozenset(),
                                    extra={"before": before})).tool == ""  # no tool to look with
    tried = Outcome("list_dir", {"path": "."}, True, "garage/\nnotes.md", effects=READ, on_path=True)
    assert lc.repeated_reply(facts(ask, earlier, [tried], look_sure=True, extra={"before": before})).tool == ""


def test_an_earlier_keepings_claim_copied_to_a_message_leaning_to_a_keeping_is_retried_with_memory_add():
    claim = "I have added the note that your gym locker is number 88 to your memory."
    before = [("Merk dir: mein Spind im Gym hat die Nummer 88.", claim)]
    ask = "Pour plus tard : mon vélo est un Peugeot vert."
    leaning = lc.repeated_reply(facts(ask, claim, remember_leans=True, offered=frozenset({"memory_add"}),
                                      extra={"before": before}))
    assert leaning.tool == "memory_add" and leaning.copied == claim  # the retry does not see the copy
    plain = lc.repeated_reply(facts(ask, claim, remember_leans=False, extra={"before": before}))
    assert plain.tool == "" and "repeat" in plain.problem


def test_a_reply_that_is_an_earlier_message_of_the_user_is_no_answer():
    """dev2, the 1.5B: "Toma nota: o aniversário da minha mãe é a 9 de agosto." was answered with the
    user's earlier "Mi fai vedere cosa c'è in LEIAME.md?"."""
    before = [("Mi fai vedere cosa c'è in LEIAME.md?", "Il progetto Quokka gestisce i conti di casa.")]
    ask = "Toma nota: o aniversário da minha mãe é a 9 de agosto."
    result = lc.repeated_reply(facts(ask, "Mi fai vedere cosa c'è in LEIAME.md?", extra={"before": before}))
    assert result is not None and "earlier message of the user" in result.problem and ask in result.note
    assert lc.repeated_reply(facts(ask, "Anotado: 9 de agosto.", extra={"before": before})) is None
    # the same message asked again may be echoed in an answer; a short reply is no copy
    assert lc.repeated_reply(facts("Mi fai vedere cosa c'è in LEIAME.md?", "Mi fai vedere cosa c'è in LEIAME.md?",
                                   extra={"before": before})) is None
    assert lc.repeated_reply(facts("and now?", "LEIAME.md?", extra={"before": before})) is None
    notes = [("Note 1: the parser reads quoted fields and headers.", "ok")]  # an echo of a message like this one
    assert lc.repeated_reply(facts("Note 2: the parser reads quoted fields and headers.",
                                   "Note 2: the parser reads quoted fields and headers.", extra={"before": notes})) is None


def test_imitated_output():
    assert lc.imitated_output(facts("hi", "notes.txt (lines 1-1 of 1):\nCall Bob")) is not None
    assert lc.imitated_output(facts("hi", "Bob is to be called.")) is None


def test_failed_change_claimed():
    failed = Outcome("edit_file", {}, False, "text to replace not found", effects=EDIT, on_path=True)
    assert "failed" in cc.failed_change_claimed(facts("fix a.py", "I've updated a.py.", [failed])).problem
    assert cc.failed_change_claimed(facts("fix a.py", "Editing a.py failed.", [failed])) is None


def test_change_claimed_without_one():
    look = Outcome("read_file", {}, True, "a.py lines 1-1 of 1\nx = 1", effects=READ, on_path=True)
    assert cc.change_claimed_without_one(facts("what is in a.py", "I have updated a.py.", [look])).problem
    assert cc.change_claimed_without_one(facts("what is in a.py", "It sets x to 1.", [look])) is None


def test_a_kept_fact_given_back_to_a_question_is_no_keeping_owed():
    """mem_dev, the 1.5B: "Remember the code for my bike lock? Tell me." leans to a keeping by its first
    word, and the claimed classifier read "The code for my bike lock is 6083." as a claim to have kept it:
    memory_add was forced, the model wrote the kept code, and the grounding refused it under the reply. A
    question with no fact of its own recalls; a message that gives its fact is still retried."""
    recall = facts("Remember the code for my bike lock? Tell me.", "The code for my bike lock is 6083.",
                   claimed=True, remember_leans=True)
    assert cc.change_claimed_without_one(recall) is None
    given = facts("Remember my bike lock code is 4821, ok?", "The code for my bike lock is 4821.",
                  claimed=True, remember_leans=True)
    assert cc.change_claimed_without_one(given).tool == "memory_add"
    # nor is a keeping owed where the reply gives the kept fact back and claims nothing
    recall = facts("Remember the code for my bike lock? Tell me.", "6083", keeps=True)
    assert cc.remember_not_tried(recall) is None
    assert cc.remember_not_tried(facts("Remember my bike lock code is 4821. Tell me when you have it.", "OK",
                                       keeps=True)).tool == "memory_add"


def test_a_claimed_change_after_a_look_is_retried_with_the_change_tool_only_on_a_sure_change_judgement():
    """"Zeig mir, was sich mit dem letzten Commit in glazes.md geändert hat." holds a change word
    ("commit"), so the wording takes it for a change asked; the model's judgement is a sure no. After a
    read, the reply retells the file ("the last commit changed glazes.md"): the retry asks for an answer
    and offers no change tool (forced, edit_file wrote an invented change that the call policy refused).
    Without a look, or on a sure change judgement, the change tool is still the retry's."""
    said = "Zeig mir, was sich mit dem letzten Commit in glazes.md geändert hat."
    look = Outcome("read_file", {"path": "glazes.md"}, True, "glazes.md lines 1-2 of 2\n# Glazes\n5. oribe",
                   effects=READ, on_path=True)
    claim = "The last commit in glazes.md has changed: oribe was added."
    for rule in (cc.change_claimed_without_one, cc.asked_file_not_changed):
        unsure = rule(facts(said, claim, [look], asked_change=True, judged=True, change_sure=False))
        assert unsure.problem and unsure.tool == "" and "edit_file" not in unsure.note, rule
        sure = rule(facts(said, claim, [look], asked_change=True, judged=True, change_sure=True))
        assert sure.tool == "edit_file", rule
        assert rule(facts(said, claim, [], asked_change=True, judged=True, change_sure=False)).tool == "edit_file"


def test_asked_file_not_changed_when_only_memory_changed():
    noted = Outcome("memory_add", {}, True, "remembered (MEMORY.md:9)", effects=MEM)
    result = cc.asked_file_not_changed(facts("add mul to calc.py", "I've added mul to calc.py.", [noted],
                                             asked_change=True))
    assert "calc.py was asked to change" in result.problem and result.tool == "edit_file"
    edited = Outcome("edit_file", {}, True, "edited calc.py", effects=EDIT, on_path=True)
    assert cc.asked_file_not_changed(facts("add mul to calc.py", "I've added mul.", [edited], asked_change=True)) is None


def test_change_not_tried_and_a_call_refused_as_nobodys_ask_is_no_try():
    told = facts("In calc.py, fix sub", "def sub(a, b): return a - b", asked_change=True)
    assert cc.change_not_tried(told).tool == "edit_file"
    refused = Outcome("edit_file", {}, False, "edit_file refused: ...", refused="not asked", effects=EDIT, on_path=True)
    assert cc.change_not_tried(facts("In calc.py, fix sub", "Fixed.", [refused], asked_change=True)) is not None
    other = Outcome("edit_file", {}, False, "edit_file refused: ...", refused="other file", effects=EDIT, on_path=True)
    assert cc.change_not_tried(facts("In calc.py, fix sub", "Fixed.", [other], asked_change=True)) is None
    # "Fasse handover.md kurz zusammen.": the edit that made "Halle 2" "Halle 3" was refused for its
    # value; asked again, the model writes one again: the refused edit was the try
    ungiven = Outcome("edit_file", {}, False, "edit_file refused: ...", refused="ungiven value", effects=EDIT,
                      on_path=True)
    assert cc.change_not_tried(facts("Fasse handover.md kurz zusammen.", "Die Pumpe läuft.", [ungiven],
                                     asked_change=True)) is None


def test_a_failed_calls_error_repeated_as_the_reply_is_no_answer():
    """dev2, the 1.5B: after edit_file failed, the reply was its error ("The file's text is: ... Call
    edit_file again with old copied exactly from it"): the edit is retried, as the error asks."""
    from nanobot.tools.files import not_found

    error = not_found("trips/packing.txt", "passport\nadapter\nrain jacket\n")
    failed = Outcome("edit_file", {"path": "trips/packing.txt"}, False, error, effects=EDIT, on_path=True)
    echoed = "The file's text is: passport adapter rain jacket Call edit_file again with old copied exactly from it."
    result = cc.failure_echoed(facts("add 'lamp' at the end of trips/packing.txt", echoed, [failed], asked_change=True))
    assert result is not None and result.tool == "edit_file" and "nothing was changed" in result.correction
    told = "I could not add it: the text to replace was not found in trips/packing.txt."
    assert cc.failure_echoed(facts("add 'lamp' at the end of trips/packing.txt", told, [failed])) is None
    missing = Outcome("read_file", {"path": "x.md"}, False, "not found: x.md; the folder holds a.md, b.md, c.md and d.md", effects=READ)
    assert cc.failure_echoed(facts("show x.md", "not found: x.md; the folder holds a.md, b.md, c.md and d.md", [missing])) is None


def test_a_failed_change_the_reply_says_nothing_of_is_retried_then_told():
    """dev2, the 1.5B: "Log today's harvest at the bottom of garden.log: ..." read the log, append_file
    failed, and the reply told what the log said: the user would not learn that nothing was added."""
    read = Outcome("read_file", {"path": "garden.log"}, True, "garden.log lines 1-2 of 2\n04-03 sowed tomatoes",
                   effects=READ, on_path=True)
    failed = Outcome("append_file", {"path": "garden.log"}, False, "append_file: text is empty", effects=EDIT, on_path=True)
    ask = "Log today's harvest at the bottom of garden.log: 06-08 first strawberries"
    result = cc.failure_untold(facts(ask, "The log shows that tomatoes were sowed on April 3rd.", [read, failed]))
    assert result is not None and result.tool == "append_file"
    assert result.correction == "(nanobot: append_file failed: append_file: text is empty; nothing was changed.)"
    events = [ev for o in (read, failed) for ev in (ToolCall(name=o.name, arguments=o.args),
                                                   ToolResult(name=o.name, ok=o.ok, text=o.text))]
    result = check(ask, "The log shows that tomatoes were sowed on April 3rd.", events)
    assert result.tool == "append_file" and "does not say so" in result.problem
    # told, claimed (another check's), retried into success, or refused as nobody's ask: not this one
    assert cc.failure_untold(facts(ask, "I could not add the line: the text was empty.", [read, failed])) is None
    assert cc.failure_untold(facts(ask, "I have added the line to garden.log.", [read, failed])) is None
    added = Outcome("append_file", {"path": "garden.log"}, True, "appended 1 line to garden.log", effects=EDIT, on_path=True)
    assert cc.failure_untold(facts(ask, "Added.", [read, failed, added])) is None
    server = Outcome("demo.crash", {}, False, "could not run crash: the server exited", effects=EDIT)
    assert cc.failure_untold(facts("Crash it.", "Okay.", [server])) is None  # no file tool: not retried
    unasked = failed._replace(refused="not asked")
    assert cc.failure_untold(facts("what does garden.log say?", "It lists sowing dates.", [read, unasked])) is None


def test_a_look_is_no_try_of_an_asked_change():
    """"I misspelled a weekday in letter.txt, could you fix that?" answered with letter.txt's text after a
    read (dev2, the 1.5B): the read changed nothing, so the edit is asked for on the retry."""
    text = "Dear Mr Okafor, the parcel arrived on Wendesday."
    read = Outcome("read_file", {"path": "letter.txt"}, True, text, effects=READ, on_path=True)
    result = cc.change_not_tried(facts("I misspelled a weekday in letter.txt, could you fix that?", text, [read],
                                       asked_change=True, change_sure=True))
    assert result is not None and result.tool == "edit_file"
    # after a look, the wording alone ("the add function") asks for no change: the model's sure judgement does
    code = Outcome("read_file", {"path": "calc.py"}, True, "def add(a, b): ...", effects=READ, on_path=True)
    assert cc.change_not_tried(facts("What does the add function in calc.py do?", "It adds two numbers.", [code],
                                     asked_change=True, change_sure=False)) is None
    edited = Outcome("edit_file", {"path": "letter.txt"}, True, "edited letter.txt at line 1", effects=EDIT, on_path=True)
    assert cc.change_not_tried(facts("fix the typo in letter.txt", "Fixed.", [read, edited], asked_change=True)) is None


def test_a_command_that_failed_to_run_is_no_try_of_an_asked_change():
    """dev3, the 1.5B: "square_area in shapes.py returns 12 for a side of 3, it should be 9. Please fix it."
    ran a test file it guessed (not there), read shapes.py and replied: the change is asked on the retry.
    A command that ran (whatever its exit status) may have made it: no retry then."""
    ask = "square_area in shapes.py returns 12 for a side of 3, it should be 9. Please fix it."
    runs = frozenset({Effect.RUNS})
    guessed = Outcome("exec", {"command": "python3 tests/shape_tests.py"}, False,
                      "'tests/shape_tests.py' does not exist in the folder the command ran in", effects=runs)
    read = Outcome("read_file", {"path": "shapes.py"}, True, "def square_area(side):\n    return side * 4",
                   effects=READ, on_path=True)
    result = cc.change_not_tried(facts(ask, "It should be side * side.", [guessed, read], asked_change=True,
                                       change_sure=True))
    assert result is not None and result.tool == "edit_file"
    ran = Outcome("exec", {"command": "sed -i s/4/side/ shapes.py"}, True, "exit 0", effects=runs)
    assert cc.change_not_tried(facts(ask, "Fixed.", [ran], asked_change=True, change_sure=True)) is None


def test_remember_not_tried_in_any_language_of_the_reply():
    """Nothing saved on a remember request: retried with memory_add, whatever words the reply claims it in."""
    result = cc.remember_not_tried(facts("Merk dir: mein Zug fährt um 7.", "Alles klar, merk ich mir!", keeps=True))
    assert result.tool == "memory_add" and "nothing was saved" in result.correction
    noted = Outcome("memory_add", {"text": "Zug um 7"}, True, "remembered (MEMORY.md:3)", effects=MEM)
    assert cc.remember_not_tried(facts("Merk dir: mein Zug fährt um 7.", "Gemerkt.", [noted], keeps=True)) is None
    assert cc.remember_not_tried(facts("Merk dir das.", "Was genau soll ich mir merken?", keeps=True)) is None
    copied = Outcome("memory_add", {"text": "Liesel: 9 August"}, False, "memory_add refused: 9 August ...",
                     refused="unsaid", effects=MEM)  # an older fact from memory: nothing of this message
    assert cc.remember_not_tried(facts("Merk dir: mein Zug fährt um 7.", "Gemerkt.", [copied], keeps=True)).tool == "memory_add"
    assert cc.remember_not_tried(facts("What is 2+2?", "4", keeps=False)) is None
    assert cc.remember_not_tried(facts("Quando é o aniversário da minha mãe?", "A 9 de agosto.", keeps=True)) is None
    assert cc.remember_not_tried(facts("Merk dir das: 7 Uhr.", "OK.", keeps=True, offered=frozenset({"read_file"}))) is None
    written = Outcome("write_file", {"path": "todo.md"}, True, "wrote todo.md", effects=EDIT, on_path=True)
    assert cc.remember_not_tried(facts("save the list to todo.md", "Saved.", [written], keeps=True)) is None
    assert cc.remember_not_tried(facts("I can't remember what I wrote in a.md", "No idea.", keeps=True,
                                       target="")) is None


def test_call_as_text():
    assert lc.call_as_text(facts("hi", '{"name": "read_file", "arguments": {"path": "a"}}')) is not None
    assert lc.call_as_text(facts("hi", "Hello.")) is None


def test_a_look_at_another_file_is_no_look_at_the_one_named():
    """dev2, the 1.5B: "What does split_bill in pricing.py do?" read LEIAME.md, and the reply (about
    split_bill) was then corrected with LEIAME.md's text: the look that counts is the named file's."""
    other = Outcome("read_file", {"path": "LEIAME.md"}, True, "LEIAME.md lines 4-4 of 4\nResponsável: Joana", effects=READ,
                    on_path=True)
    said = facts("What does split_bill in pricing.py do?", "split_bill divides the total by the people.", [other])
    assert lc.not_from_look(said) is None
    result = lc.not_looked(said)
    assert result is not None and result.tool == "read_file" and "pricing.py" in result.note
    named = Outcome("read_file", {"path": "pricing.py"}, True, "def split_bill(total, people): ...", effects=READ, on_path=True)
    assert lc.not_looked(facts("What does split_bill in pricing.py do?", "It splits the bill.", [other, named])) is None


def test_look_failed():
    failed = Outcome("read_file", {}, False, "file 'a.txt' does not exist", effects=READ, on_path=True)
    assert lc.look_failed(facts("read a.txt", "It says hello.", [failed])) is not None
    assert lc.look_failed(facts("read a.txt", "That file does not exist.", [failed])) is None
    refused = Outcome("exec", {"command": "python3 -m pytest -q"}, False, "exec refused: 'python3 -m pytest -q' is "
                      "not in tools.exec_allow; add it to exec_allow in config.toml", effects=frozenset({Effect.RUNS}))
    user = "run the tests with python3 -m pytest -q"
    passed_on = "The command is not allowed yet: put it in exec_allow in your config.toml."  # no denial word
    assert lc.look_failed(facts(user, passed_on, [refused])) is None  # the reply passes the failure on
    assert lc.look_failed(facts(user, "All 3 tests passed with python3 -m pytest -q.", [refused])) is not None


def test_told_of_tool_in_any_language():
    offered = frozenset({"read_file", "list_dir", "exec", "memory_add"})
    told = lc.told_of_tool(facts("¿Qué dice el archivo recipe.md?",
                                 "Para leer el archivo `recipe.md`, puedes usar la función `read_file`.", offered=offered))
    assert told.tool == "read_file" and "read_file" in told.correction
    assert lc.told_of_tool(facts("was ist hier?", "Nutze `exec` mit ls.", offered=offered)).tool == "exec"
    assert lc.told_of_tool(facts("hi", "Let me execute that plan.", offered=offered)) is None  # a word, not the tool
    listing = "I can use read_file, list_dir, exec and memory_add."  # what nanobot can do: a listing
    assert lc.told_of_tool(facts("what can you do?", listing, offered=offered)) is None
    ran = Outcome("read_file", {}, True, "recipe.md lines 1-1 of 1\nflan", effects=READ, on_path=True)
    assert lc.told_of_tool(facts("show recipe.md", "I used read_file: it is a flan.", [ran], offered=offered)) is None
    assert lc.told_of_tool(facts("what does read_file do?", "read_file shows a file.", offered=offered)) is None
    assert lc.told_of_tool(facts("show recipe.md", "Use `read_file`.", offered=frozenset())) is None


def test_not_from_look():
    shown = Outcome("read_file", {}, True, "todo.md lines 1-2 of 2\n# Todo\n- buy milk", effects=READ, on_path=True)
    assert lc.not_from_look(facts("show me todo.md", "Done.", [shown])) is not None
    assert lc.not_from_look(facts("show me todo.md", "You need to buy milk.", [shown])) is None


def test_an_earlier_answer_copied_from_the_retrieved_block_with_a_word_in_front_is_not_from_the_look():
    """dev2 on the 1.5B: "Lancia git log --oneline per favore" ran git log, and the reply was a past
    session's listing from the retrieved block with "Yes, " in front; copied word for word it was caught
    already, with a word in front it was not."""
    listing = "The top 4 files in the project are: - budget.tsv - deploy.yaml - garden.log - letter.txt"
    earlier = f"Related Context:\n- [assistant] {listing} (sessions/20261128.jsonl:4)\n\n"
    log = Outcome("exec", {"command": "git log --oneline"}, True, "exit 0\n1a2b3c quokka api\n4d5e6f trip notes\n7a8b9c garden log",
                  effects=frozenset({Effect.RUNS}))
    ask = "Lancia git log --oneline per favore"
    for reply in (listing, f"Yes, {listing[0].lower()}{listing[1:]}"):
        assert lc.not_from_look(facts(ask, reply, [log], target="git log --oneline", earlier=earlier)) is not None
    told = "The last commits are quokka api and trip notes."
    assert lc.not_from_look(facts(ask, told, [log], target="git log --oneline", earlier=earlier)) is None


def test_a_reply_not_from_the_look_that_an_earlier_turn_gave_is_retried_without_the_earlier_turns():
    """dev2 on the 1.5B: every command of a session after "did my last commit go through?" was answered
    "Yes, your last commit went through.", the retry too; that reply is retried without the turns
    before, so the answer it copies is not there to copy again, nor the question it answered
    (``CheckResult.bare``)."""
    log = Outcome("exec", {"command": "git log --oneline"}, True, "exit 0\na8b83ef quokka: budget and trip notes",
                  effects=frozenset({Effect.RUNS}))
    before = [("did my last commit go through?", "Yes, your last commit went through.")]
    ask = "Lancia git log --oneline per favore"
    again = lc.not_from_look(facts(ask, "Yes, your last commit went through.", [log], target="git log --oneline",
                                   extra={"before": before}))
    assert again.bare
    other = lc.not_from_look(facts(ask, "Done.", [log], target="git log --oneline", extra={"before": before}))
    assert other is not None and not other.bare


def test_a_reply_after_the_change_of_the_file_read_first_is_held_to_the_change_not_the_read():
    """A new user's first coding request on the 1.5B: "add a function called reverse_words to utils.py"
    read utils.py, then edited it; "reverse_words has been updated to reverse the order of words" was
    corrected with "the reply above is not from utils.py" and the file as it was before the edit. After
    a change that succeeded the reply is held to what the change added: dev2's "I misspelled a weekday
    in letter.txt" answered "The word count of letter.txt is 10." after the fix, which is not about it."""
    ask = "add a function called reverse_words to utils.py that reverses the order of words in a string"
    read = Outcome("read_file", {"path": "utils.py"}, True, "utils.py lines 1-2 of 2\ndef slugify(s):\n    return s",
                   effects=READ, on_path=True)
    old = '    return s.lower().replace(" ", "-")'
    new = f"{old}\n\ndef reverse_words(s):\n    reversed_words = s.split()[::-1]\n    return ' '.join(reversed_words)"
    edit = Outcome("edit_file", {"path": "utils.py", "old": old, "new": new}, True, "edited utils.py at line 2",
                   effects=EDIT, on_path=True)
    reply = "The reverse_words function in utils.py has been updated to reverse the order of words in a string."
    assert lc.not_from_look(facts(ask, reply, [read], target="utils.py")) is not None  # a read alone: held to it
    assert lc.not_from_look(facts(ask, reply, [read, edit], target="utils.py")) is None
    failed = edit._replace(ok=False, text="old text not found")
    assert lc.not_from_look(facts(ask, reply, [read, failed], target="utils.py")) is not None
    fix = "I misspelled a weekday in letter.txt, could you fix that?"
    letter = Outcome("read_file", {"path": "letter.txt"}, True, "letter.txt lines 1-2 of 2\nDear Mr Okafor,\n"
                     "The parcel arrived on Wendesday.", effects=READ, on_path=True)
    fixed = Outcome("edit_file", {"path": "letter.txt", "old": "arrived on Wendesday.", "new": "arrived on Wednesday."},
                    True, "edited letter.txt at line 2", effects=EDIT, on_path=True)
    wrong = lc.not_from_look(facts(fix, "The word count of letter.txt is 10.", [letter, fixed], target="letter.txt"))
    assert "change" in wrong.problem and "Wednesday" in wrong.correction and "Okafor" not in wrong.correction
    told = "Fixed: letter.txt now says the parcel arrived on Wednesday."
    assert lc.not_from_look(facts(fix, told, [letter, fixed], target="letter.txt")) is None
    tip = Outcome("edit_file", {"path": "pricing.py", "old": "    return round(total / people, 2)\n", "new": "    return "
                  "round(total / people, 2)\n\n\ndef tip(total, pct):\n    return round(total * pct / 100, 2)\n"}, True,
                  "edited pricing.py at line 10", effects=EDIT, on_path=True)  # told in the user's own words:
    add = "Add a function tip(total, pct) to pricing.py that returns the tip amount rounded to 2 decimals"
    assert lc.not_from_look(facts(add, "The tip function takes total and pct and returns the tip.",
                                  [read._replace(args={"path": "pricing.py"}), tip], target="pricing.py")) is None
    dictated = fixed._replace(args={"path": "letter.txt", "old": "Dear Mr Okafor,", "new": "Dear Mr Okafor,\nP.S. thanks"})
    said = "add 'P.S. thanks' after the greeting in letter.txt"
    assert lc.not_from_look(facts(said, "Done.", [letter, dictated], target="letter.txt")) is None  # it adds only what was said


def test_declined_without_look():
    assert lc.declined_without_look(facts("read notes.txt", "Sorry, I can't help with that.")).tool == "read_file"
    assert lc.declined_without_look(facts("read notes.txt", "It says call Bob.")) is None


def test_a_reply_that_leaves_a_slot_for_the_value_declines_the_look():
    """dev3, the 1.5B: "what's the most recent commit?" answered "The most recent commit is: [commit-hash]"
    with nothing run: where the model judges a look asked, it is retried with one, as a decline is."""
    ask = "what's the most recent commit?"
    slot = lc.declined_without_look(facts(ask, "The most recent commit is: [commit-hash]", look_sure=True))
    assert slot is not None and slot.tool == ANY_LOOK
    assert lc.declined_without_look(facts(ask, "Il tuo ultimo commit è [hash del commit].", look_sure=True)).tool == ANY_LOOK
    assert lc.declined_without_look(facts(ask, "The most recent commit is: [commit-hash]", look_sure=False)) is None
    for reply in ("Run `git log -1`; see [the docs](https://git-scm.com).", "Use d[key] or a list [1, 2, 3].",
                  "- [x] tests pass"):
        assert lc.declined_without_look(facts(ask, reply, look_sure=True)) is None


def test_a_count_from_a_read_is_from_the_read():
    """"How many functions are in utils.py? do not change it" answered "There are 2 functions in
    utils.py." after the read (the 1.5B, a new user's chat): right, yet it shares no word with the
    file, so nanobot told the user the reply was not from it. A read's lines that open with one word
    count; a wrong count, and a listing's count to "which files", are still not from the look."""
    body = "utils.py lines 1-7 of 7\ndef slugify(s):\n    return s.lower()\n\ndef reverse_words(s):\n    w = s.split()\n    return w"
    read = Outcome("read_file", {"path": "utils.py"}, True, body, effects=READ, on_path=True)
    ask = "how many functions are in utils.py? do not change it"
    assert lc.not_from_look(facts(ask, "There are 2 functions in utils.py.", [read], target="utils.py")) is None
    assert lc.not_from_look(facts(ask, "There are 5 functions in utils.py.", [read], target="utils.py")) is not None
    listing = Outcome("list_dir", {"path": "trips"}, True, "trips: 2 files\noslo.md\nrome.md", effects=READ, on_path=True)
    assert lc.not_from_look(facts("which files are in trips?", "There are 2 files.", [listing], target="trips")) is not None


def test_a_value_no_look_showed_is_asked_again_from_the_look():
    """"what exactly did I change in kiln.ini?" ran ``git diff`` and the reply gave the old value as 1000,
    which the diff never showed (it shows 1222): the reply is asked again from the output, once, with no
    correction under the retried reply. A value from the diff, the message or the prompt, a small count
    and a turn that changed something pass."""
    diff = ("diff --git a/kiln.ini b/kiln.ini\n--- a/kiln.ini\n+++ b/kiln.ini\n@@ -2 +2 @@\n-peak_c = 1222\n"
            "+peak_c = 1238\n")
    run = Outcome("exec", {"command": "git diff -- kiln.ini"}, True, diff, effects=frozenset({Effect.RUNS}))
    ask = "what exactly did I change in kiln.ini? I haven't committed it yet"
    got = lc.value_unshown(facts(ask, "You changed peak_c from 1000 to 1238.", [run]))
    assert got is not None and "1000" in got.problem and "1222" in got.note and got.answer and not got.correction
    assert lc.value_unshown(facts(ask, "You changed peak_c from 1222 to 1238.", [run])) is None
    assert lc.value_unshown(facts(ask, "You changed 2 lines: peak_c is 1238 now.", [run])) is None
    prompt = "Now: 2026-12-07 12:00 (Monday)"
    assert lc.value_unshown(facts(ask, "Today, 2026-12-07, peak_c is 1238.", [run], extra={"seen": prompt})) is None
    edit = Outcome("edit_file", {"path": "kiln.ini"}, True, "edited kiln.ini", effects=EDIT, on_path=True)
    assert lc.value_unshown(facts(ask, "I set peak_c to 1300.", [run, edit])) is None
    assert lc.value_unshown(facts("hi", "Hello! It is 1999.", [])) is None


def test_a_listing_for_a_message_naming_nothing_goes_under_a_reply_that_names_none_of_it():
    """The 1.5B answers "which files are here?" (no folder named; it lists ".") with the header's count:
    "There are 19 files in the current directory." The listing goes under the reply, without a retry
    and without calling it wrong: "how many files are here?" is answered by the count."""
    body = ".: 2 files, 1 folder\nold/\nbudget.csv (3 B)\ntasks.txt (9 B)"
    listing = Outcome("list_dir", {"path": "."}, True, body, effects=READ, on_path=True)
    result = lc.listing_unnamed(facts("which files are here?", "There are 3 files here.", [listing], look_sure=True))
    assert result is not None and not result.retry and not result.note
    assert "budget.csv" in result.correction and "old/" in result.correction and "2 files" not in result.correction
    assert lc.listing_unnamed(facts("which files are here?", "budget.csv, tasks.txt and old.", [listing], look_sure=True)) is None
    wrong = lc.listing_unnamed(facts("which files are here?", "There are 7 files here.", [listing], look_sure=True))
    assert wrong.retry and "budget.csv" in wrong.note and "not from ." in wrong.correction  # a count it did not show
    assert lc.listing_unnamed(facts("which files are here?", "Only the folders are here.", [listing], look_sure=True)) is not None  # "old" in "folders" is no name
    assert lc.listing_unnamed(facts("which files are here?", "There are 3 files here.", [listing], look_sure=False)) is None
    assert lc.listing_unnamed(facts("which files are in old?", "There are 3.", [listing], target="old", look_sure=True)) is None
    read = Outcome("read_file", {"path": "a.txt"}, True, "a.txt lines 1-1 of 1\nhi", effects=READ, on_path=True)
    assert lc.listing_unnamed(facts("what do I have?", "Nothing much.", [read], look_sure=True)) is None
    noted = Outcome("list_dir", {"path": "."}, True, "(this is nanobot's workspace, not /p, the folder nanobot was "
                    "started in)\n" + body, effects=READ, on_path=True)  # list_dir's note before its header
    shown = lc.listing_unnamed(facts("which files are here?", "There are 2 files and 1 folder.", [noted], look_sure=True))
    assert not shown.retry and shown.correction.endswith("showed:\n(this is nanobot's workspace, not /p, the folder "
                                                        "nanobot was started in)\nold/\nbudget.csv (3 B)\ntasks.txt (9 B))")
    assert check("which files are here?", "There are 3 files here.", [
        ToolCall(name="list_dir", arguments={"path": "."}), ToolResult(name="list_dir", ok=True, text=body)],
        agent=None).problem == ""  # no agent, no judgement: nothing said


def test_not_looked_and_a_search_is_no_look():
    searched = Outcome("memory_search", {}, True, "Bob at 5pm", effects=frozenset({Effect.SEARCHES}))
    assert lc.not_looked(facts("read notes.txt", "It says call Bob.", [searched])) is not None
    read = Outcome("read_file", {}, True, "notes.txt lines 1-1 of 1\nCall Bob", effects=READ, on_path=True)
    assert lc.not_looked(facts("read notes.txt", "It says call Bob.", [read])) is None


class Glance(Tool):
    """A tool nobody listed: it declares that it looks, so a reply from it is from a look."""

    name, description = "glance", "Glance at a file."
    effects = frozenset({Effect.LOOKS})
    target_args = {"path": "path"}


def test_a_new_tools_declared_effects_decide_the_checks_without_a_name_list():
    events = [ToolCall(name="glance", arguments={"path": "notes.txt"}),
              ToolResult(name="glance", ok=True, text="notes.txt: Call Bob at 5pm")]
    assert outcomes(events, {"glance": Glance()})[0].looks
    assert not check("read notes.txt", "It says to call Bob at 5pm.", events, tools={"glance": Glance()}).problem
    undeclared = [ToolCall(name="stamp2", arguments={}), ToolResult(name="stamp2", ok=True, text="ok")]
    assert outcomes(undeclared)[0].may_change  # declares nothing: taken to change


def test_a_session_whose_second_reply_repeats_the_first_is_asked_again_then_corrected(home):
    from nanobot.backends.scripted import ScriptedModel
    from nanobot.config import load_settings
    from nanobot.core.events import TurnDone
    from nanobot.loop.agent import Agent

    first = "The budget for January includes rent of $875 and groceries of $312."
    settings = load_settings(chat={"max_tokens": 64, "temperature": 0}, tools={"enabled": []})
    model = ScriptedModel([first, first, first])
    agent = Agent(settings, model)
    list(agent.turn("what is my budget for January?"))
    done = [e for e in agent.turn("Mi fai vedere cosa c'è in LEIAME.md?") if isinstance(e, TurnDone)][-1]
    assert done.corrected and "repeats an earlier answer" in done.reply
    assert "Mi fai vedere" in model.calls[-1]["messages"][-1].content  # the retry's note restates the message


class _Judged:
    """A model whose classifiers answer a table (the 1.5B's measured probabilities) and their calibration right."""

    def __init__(self, table):
        self.table = table

    def yes_no_apart(self, msgs, **_):
        from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

        system, text = msgs[0].content, msgs[-1].content
        kind = next(k for k, (s, _) in CLASSIFIERS.items() if s == system)
        want = dict(CALIBRATION[kind]).get(text)
        p = (0.9 if want else 0.1) if want is not None else self.table.get((kind, text), 0.5)
        return p, 1 - p


def test_a_change_of_a_named_file_is_not_a_remember_request_whatever_the_remember_classifier_says():
    """On the 1.5B the remember classifier says 0.93 to "fix that" in letter.txt: the change judgement decides."""
    from types import SimpleNamespace

    from nanobot.loop.judge import Judge
    from nanobot.loop.replycheck import asks_to_keep, remember

    fix, note = "I misspelled a weekday in letter.txt, could you fix that?", "For the record, my bike lock code is 4471."
    table = {("remember", fix): 0.93, ("change", fix): 0.87, ("remember", note): 0.8, ("change", note): 0.27}
    agent = SimpleNamespace(model=_Judged(table), judge=Judge())
    assert not remember(fix, agent) and not asks_to_keep(fix, agent)
    agent = SimpleNamespace(model=_Judged(table), judge=Judge())
    assert remember(note, agent) and asks_to_keep(note, agent)


def test_a_message_naming_a_file_that_exists_is_no_remember_request_when_the_change_judgement_is_unsure(home):
    """dev2, the 1.5B: "Log today's harvest at the bottom of garden.log: ..." (remember 0.9, change 0.59,
    unsure) was retried as memory_add, and the log never got the line. garden.log exists in the roots (a
    fact): the change is to it. Where the named file is not there, the remember judgement stands."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.loop.judge import Judge
    from nanobot.loop.replycheck import remember

    log = "Log today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries"
    table = {("remember", log): 0.9, ("change", log): 0.59}
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True, exist_ok=True)
    agent = SimpleNamespace(settings=settings, model=_Judged(table), judge=Judge())
    assert remember(log, agent)  # no garden.log here
    (settings.workspace / "garden.log").write_text("2024-05-02 moved the basil\n")
    agent = SimpleNamespace(settings=settings, model=_Judged(table), judge=Judge())
    assert not remember(log, agent)


def test_a_note_for_a_file_that_exists_claimed_without_a_call_is_made_in_that_file(home):
    """dev2, the 1.5B: "Log today's harvest at the bottom of garden.log: ..." answered "The garden log now
    includes the harvest" with nothing run (remember 0.9, change 0.59: unsure). A note the model judges
    the user asks to keep, for a file that exists, is a change to that file: the retry calls edit_file,
    and the dictated line is added after the last one (``editloss.added_after``), which stays."""
    from tests.test_templatecalls import ToolTemplateModel, body, make_agent

    ask = "Log today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries"

    class Noting(ToolTemplateModel):
        def yes_no_apart(self, msgs, **_):
            return _Judged({("remember", ask): 0.9, ("change", ask): 0.59}).yes_no_apart(msgs)

    edit = {"path": "garden.log", "old": "2024-05-19 slugs ate half the lettuce",
            "new": "2024-06-08 picked the first strawberries"}
    model = Noting(["The garden log now includes the harvest of strawberries.", body("edit_file", edit), "Added."],
                   [0.01] * 8)  # under every floor: the reply comes first
    agent = make_agent(home, model, enabled=["read_file", "edit_file"])
    log = "2024-05-02 moved the basil\n2024-05-19 slugs ate half the lettuce\n"
    (agent.workspace / "garden.log").write_text(log)
    events = list(agent.turn(ask))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]
    assert (agent.workspace / "garden.log").read_text() == log + "2024-06-08 picked the first strawberries\n"


def test_a_reply_to_an_allowed_command_the_message_names_with_nothing_run_is_not_its_output(home):
    """dev2, the 1.5B: "Lancia git log --oneline per favore" answered with invented commits and nothing run.
    A command ``tools.exec_allow`` admits that the message names (any language) is what the user asked
    to see: the reply check asks for exec. A one-word entry that is an ordinary word ("my cat is called
    Miso", with ``cat`` allowed) names no command."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.loop.judge import Judge

    settings = load_settings(home, tools={"exec_allow": ["git log", "cat", "wc"]})
    agent = SimpleNamespace(settings=settings, model=None, judge=Judge(), history=[])
    invented = "The output of `git log --oneline` is:\n5b3c4d2 Update pricing to 44.98"
    verdict = check("Lancia git log --oneline per favore", invented, [], agent=agent)
    assert verdict.tool == "exec" and "git log" in verdict.problem
    ran = [ToolCall(name="exec", arguments={"command": "git log --oneline"}),
           ToolResult(name="exec", ok=True, text="exit 0\nd0ffc60 quokka: budget")]
    assert not check("Lancia git log --oneline per favore", "d0ffc60 quokka: budget", ran, agent=agent).problem
    assert check("conta le parole con wc -w letter.txt", "Ci sono 20 parole.", [], agent=agent).tool == "exec"
    assert check("remember that my cat is called Miso", "Got it, Miso the cat.", [], agent=agent).tool != "exec"
    written = 'json\n```json\n{\n  "name": "git_log",\n  "arguments": {"oneline": true}\n}\n```'
    as_text = check("Lancia git log --oneline per favore", written, [], agent=agent, offered=frozenset({"exec", "read_file"}))
    assert "written as text" in as_text.problem and as_text.tool == "exec" and "Call exec for git log" in as_text.note
    offered = check("Lancia git log --oneline per favore", written.replace("git_log", "exec"), [], agent=agent,
                    offered=frozenset({"exec"}))
    assert offered.tool == ""  # a call of an offered tool written as text: the note asks for that call


def test_a_run_of_the_command_the_message_names_before_more_words_is_the_look_asked(home):
    """cmd_dev, the 1.5B: "run head -n 3 rota.csv and tell me who keeps week 46" ran that command and
    answered from it, and the check read the command as the rest of the sentence: "nothing was read or
    run this turn", the run made twice more, and that line put under a right reply. The run whose
    command the message's words begin with is the look asked for."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.loop.judge import Judge

    settings = load_settings(home, tools={"exec_allow": ["head"]})
    agent = SimpleNamespace(settings=settings, model=None, judge=Judge(), history=[])
    ask = "run head -n 3 rota.csv and tell me who keeps week 46"
    ran = [ToolCall(name="exec", arguments={"command": "head -n 3 rota.csv"}),
           ToolResult(name="exec", ok=True, text="exit 0\nweek,keeper\n45,Aldous\n46,Brennagh")]
    assert not check(ask, "Week 46 is kept by Brennagh.", ran, agent=agent).problem
    assert check(ask, "Week 46 is kept by Brennagh.", [], agent=agent).problem  # nothing run: still held to it


def test_a_listing_of_files_that_are_not_there_with_nothing_looked_at_is_retried_with_list_dir(home):
    """dev2, the 1.5B: "list every file at the top of this project" answered "README.md, LICENSE.md,
    knowledge/README.md, ..." with no tool: names of files the roots do not have. Where the model is sure
    the message asks to look, that is retried with list_dir, also after a look that failed; a reply naming
    files the user named, or one after a look that succeeded, or on a message the model does not judge a
    look, stands."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.loop.judge import Judge
    from nanobot.workspace import init_workspace

    settings = load_settings(home)
    init_workspace(settings.workspace)
    (settings.workspace / "budget.tsv").write_text("a\t1\n")
    ask, other = "list every file at the top of this project", "How should I lay out a Python package?"
    agent = SimpleNamespace(settings=settings, model=_Judged({("look", ask): 0.92, ("look", other): 0.3}),
                            judge=Judge(), history=[])
    invented = "The files in this project are: LICENSE.md, setup.py, knowledge/README.md and budget.tsv."
    verdict = check(ask, invented, [], agent=agent)
    assert verdict.tool == "list_dir" and "LICENSE.md, setup.py" in verdict.problem and "budget.tsv" not in verdict.problem
    given = check(ask, "The files are budget.tsv and notes.md.", [], agent=agent)  # one absent name: not absent_listed's
    assert given.tool == ANY_LOOK and "budget.tsv" in given.problem  # a file that is there, named unlooked
    assert "knowledge/README.md" not in verdict.problem  # the workspace has it
    agent.judge = Judge()
    assert not check(other, "Put the code in mypkg/__init__.py and the metadata in pyproject.toml.", [],
                     agent=agent).problem  # the model does not judge a look asked
    looked = [ToolCall(name="list_dir", arguments={"path": "."}), ToolResult(name="list_dir", ok=True, text="budget.tsv")]
    assert "not there" not in check(ask, invented, looked, agent=agent).problem
    failed = [ToolCall(name="read_file", arguments={"path": "files.txt"}),
              ToolResult(name="read_file", ok=False, text="error: no such file: files.txt")]
    after = check(ask, invented, failed, agent=agent)  # a failed look shows nothing: the listing is still invented
    assert after.tool == "list_dir" and "LICENSE.md, setup.py" in after.problem


def test_a_script_run_by_its_path_is_the_target_not_the_rest_of_the_sentence():
    user = "run hello.py with python3 and tell me what it prints"
    ran = Outcome("exec", {"command": "python3 hello.py"}, True, "hello, world", effects=frozenset({Effect.RUNS}))
    assert lc.not_looked(facts(user, "It prints hello, world.", [ran])) is None
    assert lc.looker(facts(user, "It prints hello, world.")) == "exec"
    assert lc.not_looked(facts(user, "It prints hello, world.")) is not None  # nothing ran: still caught


def test_a_message_about_a_folder_that_exists_is_no_remember_request(home):
    """The remember classifier's yes does not make a message about a folder in the roots (a fact) a
    request to remember: no memory_add is forced after the listing. Where no such folder is there, it stands."""
    from types import SimpleNamespace

    from nanobot.config import load_settings
    from nanobot.loop.judge import Judge
    from nanobot.loop.replycheck import asks_to_keep

    ask = "Tell me which files sit in the recipes folder, I keep forgetting"
    table = {("remember", ask): 0.9, ("change", ask): 0.2}
    settings = load_settings(home)
    settings.workspace.mkdir(parents=True, exist_ok=True)
    agent = SimpleNamespace(settings=settings, model=_Judged(table), judge=Judge())
    assert asks_to_keep(ask, agent)  # no recipes/ here
    (settings.workspace / "recipes").mkdir()
    (settings.workspace / "recipes" / "soup.md").write_text("leeks\n")
    agent = SimpleNamespace(settings=settings, model=_Judged(table), judge=Judge())
    assert not asks_to_keep(ask, agent)
    listed = Outcome("list_dir", {"path": "recipes"}, True, "soup.md", effects=READ, on_path=True)
    f = facts(ask, "recipes holds soup.md.", [listed], keeps=lambda: asks_to_keep(ask, agent))
    assert cc.remember_not_tried(f) is None


def test_a_change_claimed_of_a_file_that_is_not_there_is_retried_with_the_writer(home):
    """"Écris un test pour spread dans un nouveau fichier test_notes.py": the 1.5B claimed it without a
    call, and the retry's editor was refused on notes.py. The file the message names first is not in the
    roots (``tools.named``, any language) and the model's create classifier is sure a new file is asked,
    so the retry writes it; a file that is there is edited; a name that is not there, with no new file
    asked (a question, a typo), is never written by a retry (check6 had a file created so)."""
    from nanobot.backends.scripted import ScriptedModel
    from nanobot.config import load_settings
    from nanobot.loop.agent import Agent
    from nanobot.loop.replycheck import _new_files
    from nanobot.workspace import init_workspace

    class Creating(ScriptedModel):
        create = True

        def yes_no_apart(self, messages, **_):
            from nanobot.loop.judge import CALIBRATION, CLASSIFIERS

            kind = next((k for k, (system, _) in CLASSIFIERS.items() if system == messages[0].content), "")
            yes = dict(CALIBRATION.get(kind, ())).get(messages[-1].content, kind == "create" and self.create)
            return (0.95, 0.05) if yes else (0.05, 0.95)

    def agent_of(create: bool) -> Agent:
        agent = Agent(settings, Creating([]))
        agent.model.create, agent.model._judge_trusted = create, {"create": True}
        return agent

    settings = load_settings(home, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    (settings.workspace / "notes.py").write_text("def spread(g):\n    return max(g) - min(g)\n")
    agent = agent_of(True)
    ask = "Écris un test pour spread dans un nouveau fichier test_notes.py."
    claim = "Un test pour `spread` a été écrit dans un nouveau fichier `test_notes.py`."
    new = _new_files(ask, agent)
    assert new == ["test_notes.py"]
    assert _new_files(ask, agent_of(False)) == []  # no new file asked: a retry does not write the name
    verdict = cc.change_claimed_without_one(facts(ask, claim, asked_change=True, claimed=True,
                                                  extra={"new_files": lambda: new}))
    assert verdict.tool == "write_file" and "Call write_file now" in verdict.note
    there = "Ajoute un test pour spread dans notes.py."
    assert _new_files(there, agent) == []
    verdict = cc.change_claimed_without_one(facts(there, "J'ai ajouté un test dans `notes.py`.", asked_change=True, claimed=True,
                                                  extra={"new_files": lambda: _new_files(there, agent)}))
    assert verdict.tool == "edit_file"


def test_a_name_the_message_spells_as_code_that_no_written_file_holds_is_owed():
    """Facts only: the written files' texts before the turn and now. A name spelled as a call or in
    backticks that neither holds is the change not made; one the file held before (a fix, a rename's
    old name), one the write put in, a file tool that wrote nothing, and "file(s)" pass."""
    write = Outcome("write_file", {"path": "convert.py"}, True, "overwrote convert.py", effects=EDIT, on_path=True)
    old = "def km_to_miles(km):\n    return km / 1.609344\n"
    ask = "Voeg een functie inches_to_cm(inches) toe aan convert.py."
    got = cc.name_not_written(facts(ask, "Klaar.", [write], extra={"written": {"/w/convert.py": (old, old)}}))
    assert got is not None and got.tool == "edit_file" and "convert.py does not hold inches_to_cm" in got.note
    added = old + "\n\ndef inches_to_cm(inches):\n    return inches * 2.54\n"
    assert cc.name_not_written(facts(ask, "Klaar.", [write], extra={"written": {"/w/convert.py": (old, added)}})) is None
    assert cc.name_not_written(facts("Fix `km_to_miles` in convert.py", "Done.", [write],
                                     extra={"written": {"/w/convert.py": (old, old)}})) is None
    assert cc.name_not_written(facts(ask, "Klaar.", [], extra={"written": {}})) is None
    assert cc.name_not_written(facts("Fix the file(s) please", "Done.", [write],
                                     extra={"written": {"/w/convert.py": (old, old)}})) is None


def test_a_reply_that_is_a_users_line_of_an_earlier_session_in_the_memory_block_is_no_answer():
    """check6, the 1.5B: "n'oublie pas : le rucher ferme le 30 octobre" was answered with "Il y a un
    fichier qui s'appelle queens.txt ici ?", a user's line of an earlier session that the turn's memory
    block showed; its question mark read as asking back, so the keeping owed was never retried. The copy
    is no answer: the keeping asked is retried; with none asked, the reply is asked again."""
    block = ("Past Conversations:\n- 7 December 2026, User: Il y a un fichier qui s'appelle queens.txt ici ?\n"
             "- 7 December 2026, User: Écris une phrase sur les abeilles.\n\n")
    ask = "n'oublie pas : le rucher ferme le 30 octobre"
    copy = "Il y a un fichier qui s'appelle queens.txt ici ?"
    kept = lc.repeated_reply(facts(ask, copy, earlier=block, keeps=True, offered=frozenset({"memory_add"})))
    assert kept is not None and kept.tool == "memory_add"
    other = lc.repeated_reply(facts("Quelle heure est-il ?", copy, earlier=block, keeps=False))
    assert other is not None and "earlier message of the user" in other.problem
    assert lc.repeated_reply(facts(ask, copy, earlier="", keeps=True, offered=frozenset({"memory_add"}))) is None
    assert lc.repeated_reply(facts(ask, "C'est noté : le rucher ferme le 30 octobre.", earlier=block, keeps=True)) is None
