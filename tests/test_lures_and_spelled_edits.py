"""Loop logic with scripted models: a spelled-out edit made by nanobot,
a change claimed where none was asked retried towards the question (not towards "I did not change
anything"), a lure in retrieved memory out of the turn once it made a refused call, a spelled-out look
answered from the template's own call/result messages, and the stream's hygiene (an echoed note, a
correction after an empty reply). The real-model side is bench/assistant_bench.py."""

from __future__ import annotations

import json
from types import SimpleNamespace

from nanobot.core.events import Notice, TextDelta, ToolCall, ToolResult
from nanobot.core.features import Feature
from nanobot.core.provenance import Provenance
from nanobot.core.transcript import read_transcript
from nanobot.loop.callpolicy import asked_for, refusal
from nanobot.loop.replycheck import check
from nanobot.loop.stream import Scrubber
from nanobot.memory.retriever import format_past
from nanobot.memory.store import Hit
from nanobot.memory.tools import AddArgs
from nanobot.memory.transcripts import transcript_chunks
from nanobot.tools.base import Tool
from nanobot.tools.effects import Effect
from tests.test_doing_what_was_asked import Retrieved, _ran, make_agent, run
from tests.test_templatecalls import ToolTemplateModel, body
from tests.test_templatecalls import make_agent as template_agent

LURE = "Relevant Memory:\n- Other chat: bob wants greet.py changed: replace print('hi') with print('bye') (MEMORY.md:7)"


def test_an_edit_the_user_spelled_out_is_made_whatever_the_model_would_pick(home):
    """"In todo.md replace 'buy milk' with 'buy oat milk'" went to task_board on the 1.5B: the message
    holds the whole edit_file call, so nanobot makes it (nanobot.loop.spelled); the model answers."""
    agent = make_agent(home, ["Tool: task_board", '{"action": "update", "title": "buy oat milk"}',
                              "Answer:", "Replaced buy milk with buy oat milk in todo.md."])
    (agent.workspace / "todo.md").write_text("# Todo\n- buy milk\n")
    events, done = run(agent, "In todo.md replace 'buy milk' with 'buy oat milk'")
    first = next(e for e in events if isinstance(e, ToolCall))
    assert first.name == "edit_file" and first.arguments["old"] == "buy milk"
    assert (agent.workspace / "todo.md").read_text() == "# Todo\n- buy oat milk\n" and not done.corrected


def test_a_file_named_todo_is_not_the_task_board():
    said = ["Create a file hello.txt containing: Hello world", "In todo.md replace 'buy milk' with 'buy oat milk'"]
    assert not asked_for("task_board", said)  # "todo.md" is a file, not the user's to-do list
    assert asked_for("task_board", ["add buy milk to my todo list"])


def test_a_change_claimed_where_none_was_asked_is_retried_towards_the_question():
    """"What's on my todo list from the other chat?" answered "I have successfully remembered ..." (the
    turns before were remember requests): the retry's note said "or say you did not change anything",
    and that became the whole reply. The note now repeats the question, and a look's result."""
    ask = "What's on my todo list from the other chat?"
    result = check(ask, "I have successfully remembered that your todo list is empty.", [])
    assert result.problem and not result.tool
    assert ask in result.note and "say you did not change" not in result.note
    read = _ran("read_file", {"path": "greet.py"}, text="greet.py lines 1-1 of 1\nprint('hi')")
    told = check("alice: read greet.py please", "I have updated greet.py.", read)
    assert "print('hi')" in told.note and "alice: read greet.py please" in told.note


def test_success_alone_is_no_claim_and_cant_is_a_denial():
    read = _ran("read_file", {"path": "greet.py"}, text="greet.py lines 1-1 of 1\nprint('hi')")
    assert not check("alice: read greet.py please", "greet.py was read successfully: it prints 'hi'.", read).problem
    assert check("Edit a.txt", "a.txt was updated successfully.", [], asked_change=True).problem
    declined = check("show me notes.txt", "I can't open that file.", [])  # a decline: retried, never corrected
    assert declined.tool == "read_file" and not declined.correction
    assert not check("show me notes.txt", "I can’t open that file.", []).correction


def test_an_echoed_note_never_reaches_the_stream():
    echo = "Bob is at 5pm. The call ran; answer the user in plain text from its result above, without another call."
    for step in (1, 4):
        scrubber = Scrubber()
        shown = "".join(scrubber.feed(echo[i:i + step]) for i in range(0, len(echo), step)) + scrubber.finish()
        assert "answer the user" not in shown and shown.strip() == "Bob is at 5pm."
    scrubber = Scrubber()
    plain = "The capital is Paris. Your move."
    assert "".join(scrubber.feed(c) for c in plain) + scrubber.finish() == plain


def test_a_reply_check_note_echoed_in_the_retry_never_reaches_the_user(home):
    """A retried reply that copies the note it was retried with ("you have not looked at notes this
    turn. Call list_dir for it now, or say you cannot.") shows the user only its own words, in the
    stream and in the history: the notes a check sends are scrubbed as the fixed ones are."""
    echo = "You have not looked at notes this turn.  Call list_dir for it now, or say you cannot."
    agent = make_agent(home, ["Answer:", "It holds todo.txt and ideas.txt.", '{"path": "notes"}', "Answer:",
                              f"{echo} It holds a.txt."])
    (agent.workspace / "notes").mkdir()
    (agent.workspace / "notes" / "a.txt").write_text("x\n")
    events, done = run(agent, "what files are in notes?")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["list_dir"]
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "It holds a.txt." in streamed and "this turn" not in streamed and "say you cannot" not in streamed
    assert done.reply == "It holds a.txt."
    scrubber = Scrubber()  # without the note it was sent, the same words are the model's own
    assert "this turn" in "".join(scrubber.feed(c) for c in echo) + scrubber.finish()


def test_a_correction_after_an_empty_reply_starts_on_the_first_line(home):
    agent = make_agent(home, ["Answer:", "", "Answer:", ""])
    events, done = run(agent, "hello")
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert done.corrected and done.reply.startswith("(nanobot:") and streamed.startswith("(nanobot:")
    checks = [r for r in read_transcript(agent.transcript.path)[0] if r.content == "reply check"]
    assert checks and "reply" in checks[0].meta  # the reply that failed is kept for diagnosis


def test_a_lure_in_memory_leaves_the_turn_once_it_made_a_refused_call(home):
    """The 1.5B copied the memory note's "replace print('hi') with print('bye')" into edit_file on "Hi,
    I'm Alice" and on "In calc.py, fix sub" (refused, then the same call again on the retry): once a
    call is refused as nobody's ask, the steps after it no longer see the retrieved block."""
    lured = body("edit_file", {"path": "greet.py", "old": "print('hi')", "new": "print('bye')"})
    model = ToolTemplateModel([lured, "Which line of calc.py?"], [0.9, 0.9, 0.1])  # with and without it, then
    agent = template_agent(home, model, enabled=["read_file", "edit_file"])
    agent.add_feature(Retrieved(LURE))
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events = list(agent.turn("In calc.py, fix sub: it should return a - b"))
    assert any(isinstance(e, ToolResult) and "refused" in e.text for e in events)
    assert "bob wants" in model.calls[0]["messages"][-1].content  # the call step saw it
    assert not any("bob wants" in m.content for m in model.calls[-1]["messages"])  # the reply does not
    assert (agent.workspace / "greet.py").read_text() == "print('hi')\n"


class Remembers(Feature):
    """Stands in for the memory feature's memory_add (the real one loads the embedder)."""

    name = "remembers"

    def __init__(self, noted: list):
        self.noted = noted

    def tools(self, settings):
        noted = self.noted

        class MemoryAdd(Tool):
            name, description, Args = "memory_add", "Remember a fact for later sessions.", AddArgs
            effects = frozenset({Effect.REMEMBERS})  # as the real memory_add declares

            def run(self, args, ctx):
                noted.append(args.text)
                return "remembered (MEMORY.md:9)"

        return [MemoryAdd()]


def test_a_change_to_a_named_file_does_not_go_to_memory(home):
    """"Add a function mul(a, b) returning a * b to calc.py" went to memory_add on the 1.5B: memory is not
    the file the user named. The refusal stays in the context and names the file's tools; the edit runs."""
    agent = make_agent(home, ["Tool: memory_add", '{"text": "def mul(a, b): return a * b"}',
                              "Tool: edit_file", '{"path": "calc.py", "old": "def add(a, b):", '
                              '"new": "def mul(a, b):\\n    return a * b\\n\\n\\ndef add(a, b):"}',
                              "Answer:", "Added mul to calc.py."])
    noted = []
    agent.add_feature(Remembers(noted))
    (agent.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    events, done = run(agent, "Add a function mul(a, b) returning a * b to calc.py")
    results = [(e.name, e.ok) for e in events if isinstance(e, ToolResult)]
    assert results == [("memory_add", False), ("edit_file", True)]
    assert "change calc.py with edit_file" in next(e for e in events if isinstance(e, ToolResult)).text
    assert noted == [] and "def mul" in (agent.workspace / "calc.py").read_text()
    p = Provenance(said=["Please remember that my favourite colour is green."])
    assert not refusal("memory_add", SimpleNamespace(text="favourite colour: green"), p)


def test_a_corrected_reply_is_not_indexed_as_a_past_conversation(tmp_path):
    """The 1.5B's memory block showed "Assistant: ```plaintext { (nanobot: the model gave no answer.)" from
    an earlier session: a reply the checks corrected is kept out of the index as out of the history."""
    path = tmp_path / "s.jsonl"
    records = [{"ts": "2026-11-25T03:00:00", "role": "user", "content": "read calc.py"},
               {"ts": "2026-11-25T03:00:01", "role": "assistant",
                "content": "```plaintext\n{\n\n(nanobot: the model gave no answer.)"},
               {"ts": "2026-11-25T03:00:02", "role": "assistant", "content": "It defines add and sub."}]
    path.write_text("\n".join(json.dumps(r) for r in records))
    assert [c.line for c in transcript_chunks(path)] == [1, 3]


class LuredModel(ToolTemplateModel):
    """P(call) high only while the lure is in the user's message, as on the 1.5B."""

    def prefix_probability(self, messages, starts, *, tools=None):
        user = next(m for m in reversed(messages) if m.role == "user")
        return 0.9 if "bob wants" in user.content else 0.1


def test_a_call_only_the_retrieved_block_leads_to_is_not_made(home):
    """On "Hi, I'm Alice and I work on the frontend." the 1.5B called edit_file on greet.py from a memory
    note (refused, but a call all the same): the turn's first decision is taken without a retrieved
    block that names a file nobody brought, and declines when the user's message alone would."""
    fix = body("edit_file", {"path": "greet.py", "old": "print('hi')", "new": "print('hello')"})
    model = LuredModel(["Hi Alice!", fix, "Fixed."], [])
    agent = template_agent(home, model, enabled=["read_file", "edit_file"])
    agent.add_feature(Retrieved(LURE))
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events = list(agent.turn("alice: Hi, I'm Alice and I work on the frontend."))
    assert not [e for e in events if isinstance(e, (ToolCall, ToolResult))] and events[-1].reply == "Hi Alice!"
    assert "bob wants" in model.calls[-1]["messages"][-1].content  # the answer still sees memory
    events = list(agent.turn("alice: please fix greet.py"))  # the user named the file: no lure
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]


def test_a_retry_forced_to_call_does_not_see_a_lure(home):
    """Retried with edit_file on "In calc.py, fix sub" (nothing tried), the 1.5B copied the memory note's
    greet.py edit into the forced call: a call made without a decision does not see a retrieved block
    that names a file nobody brought."""
    fix = body("edit_file", {"path": "calc.py", "old": "return a + b", "new": "return a - b"})
    model = ToolTemplateModel(["It returns -42.", fix, "Fixed."], [0.01, 0.01])  # under even the look's floor
    agent = template_agent(home, model, enabled=["read_file", "edit_file"])
    agent.add_feature(Retrieved(LURE))
    (agent.workspace / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    events = list(agent.turn("In calc.py, fix sub: it should return a - b"))
    forced = model.calls[1]
    assert forced["grammar"] and not any("bob wants" in m.content for m in forced["messages"])
    assert (agent.workspace / "calc.py").read_text() == "def sub(a, b):\n    return a - b\n"
    assert events[-1].reply == "Fixed."


def test_a_retrys_forced_call_that_fails_is_tried_once_more(home):
    """The 1.5B's forced edit_file for "Add a function mul ... to calc.py" replaced "return a + b", which
    occurs twice: the error (with the file) goes back and the same tool is called once more, as after
    any tool's error, instead of the reply explaining the error to the user."""
    twice = body("edit_file", {"path": "calc.py", "old": "return a + b", "new": "return a * b"})
    once = body("edit_file", {"path": "calc.py", "old": "print(add(40, 2))",
                              "new": "def mul(a, b):\n    return a * b\n\n\nprint(add(40, 2))"})
    model = ToolTemplateModel(["Sure, here it is.", twice, once, "Added mul."], [0.01, 0.01])
    agent = template_agent(home, model, enabled=["read_file", "edit_file"])
    (agent.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n\n\n"
                                            "print(add(40, 2))\n")
    events = list(agent.turn("Add a function mul(a, b) returning a * b to calc.py"))
    assert [(e.name, e.ok) for e in events if isinstance(e, ToolResult)] == [("edit_file", False), ("edit_file", True)]
    assert "def mul" in (agent.workspace / "calc.py").read_text() and events[-1].reply == "Added mul."


def test_a_past_conversation_line_carries_no_path_a_model_could_read():
    """The 1.5B read and edited 'sessions/20261125-...jsonl' (a past conversation's source reference) on
    "What does the add function in calc.py do?" and "In calc.py, fix sub": the line keeps day and speaker."""
    hit = Hit(id=1, text="User: run python3 calc.py", source="sessions/20261125-032155-e357.jsonl", line=13,
              heading="25 November 2026", score=0.9, cosine=0.9)
    assert format_past(hit) == "- 25 November 2026, User: run python3 calc.py"


def test_a_note_memory_add_filed_in_observations_is_no_false_file_claim():
    ran = _ran("memory_add", {"text": "dentist on Friday", "kind": "observation"},
               text="remembered (observations/notes-2026-11-25.md:1)")
    ask = "Save a note in memory: dentist appointment on Friday"
    said = "I have added the note to observations/notes-2026-11-25.md at line 1."
    assert not check(ask, said, ran, asked_change=True).problem
    assert check(ask, "I have added it to calc.py.", ran, asked_change=True).problem  # another file: false


def test_a_look_answered_with_a_retrieved_line_copied_is_not_from_the_look():
    """"run git log --oneline" answered with a past conversation's reply about docs/guide.md, which shares
    "first" with the log's "first notes": a reply copied from the retrieved block is not from the look."""
    copied = 'The file `docs/guide.md` has 2 lines. The first line is "# Guide".'
    block = f"Past Conversations:\n- 25 November 2026, Assistant: {copied} and the second line is"
    ran = _ran("exec", {"command": "git log --oneline"}, text="exit 0\nc078848 first notes")
    result = check("run git log --oneline", copied, ran, earlier=block)
    assert "says nothing of what exec showed" in result.problem and "first notes" in result.note
    assert not check("run git log --oneline", copied, ran).problem  # without it: "first" is shared
    assert not check("run git log --oneline", "The log has one commit: first notes.", ran, earlier=block).problem
    same = "Call Bob at 5pm about the invoice."  # the file's own words, said before too: from the look
    read = _ran("read_file", {"path": "notes.txt"}, text=f"notes.txt lines 1-1 of 1\n{same}")
    assert not check("read notes.txt", same, read, earlier=f"Past Conversations:\n- 25 November 2026, Assistant: {same}").problem



def test_text_a_failed_edit_showed_is_seen_not_only_retrieved(home):
    """dev2, the 1.5B: "add 'lampe frontale' at the end of packing.txt": the first edit's old text was
    invented, its error showed the file, and the second edit (old: a line of the file) was refused as
    coming only from memory, which also held it. The file's text an error showed was seen by a tool."""
    block = "Relevant Memory:\n- packing list: passport, rain jacket (MEMORY.md:3)"
    agent = make_agent(home, ["Tool: edit_file", '{"path": "packing.txt", "old": "lampe", "new": "lampe frontale"}',
                              "Tool: edit_file",
                              '{"path": "packing.txt", "old": "rain jacket", "new": "rain jacket\\nlampe frontale"}',
                              "Answer:", "Added."], block=block)
    (agent.workspace / "packing.txt").write_text("passport\nrain jacket\n")
    events, done = run(agent, "add 'lampe frontale' at the end of packing.txt")
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.ok for r in results] == [False, True], [r.text[:80] for r in results]
    assert (agent.workspace / "packing.txt").read_text() == "passport\nrain jacket\nlampe frontale\n"


def test_a_rename_the_user_asked_for_renames_every_occurrence(home):
    """dev2, the 1.5B: "In units.js the function celsius should be called toCelsius, please rename it"
    became edit_file old "celsius", new "toCelsius", which failed twice ("occurs 2 times"): both names
    are the user's words, so it is that rename, made everywhere in the file; a name the user did not
    give is no rename."""
    agent = make_agent(home, ["Tool: edit_file", '{"path": "units.js", "old": "celsius", "new": "toCelsius"}',
                              "Answer:", "Renamed."])
    js = "function celsius(f) {\n  return (f - 32) * 5 / 9;\n}\n\nmodule.exports = { celsius };\n"
    (agent.workspace / "units.js").write_text(js)
    events, done = run(agent, "In units.js the function celsius should be called toCelsius, please rename it")
    assert (agent.workspace / "units.js").read_text() == js.replace("celsius", "toCelsius")
    assert [r.ok for r in events if isinstance(r, ToolResult)] == [True] and not done.corrected
    agent = make_agent(home, ["Tool: edit_file", '{"path": "units.js", "old": "celsius", "new": "fahrenheit"}',
                              "Answer:", "Done."])
    (agent.workspace / "units.js").write_text(js)
    events, _ = run(agent, "In units.js, please change the conversion")
    assert "occurs 2 times" in next(r for r in events if isinstance(r, ToolResult)).text
    assert (agent.workspace / "units.js").read_text() == js


def test_an_append_adds_at_the_end_and_nothing_else_and_is_guarded(home):
    """"Ajoute 'lampe frontale' à la fin de ma liste trips/packing.txt" (dev2): with edit_file the 1.5B
    invented the last line or replaced one; append_file has nothing to copy and removes nothing. It
    declares a change on a path, so the call policy guards it like edit_file: no change asked, no call."""
    agent = make_agent(home, ["Tool: append_file", '{"path": "packing.txt", "text": "lampe frontale"}',
                              "Answer:", "Added."])
    (agent.workspace / "packing.txt").write_text("passport\nrain jacket")  # no newline at the end
    events, done = run(agent, "add 'lampe frontale' at the end of packing.txt")
    assert (agent.workspace / "packing.txt").read_text() == "passport\nrain jacket\nlampe frontale\n"
    assert [r.text for r in events if isinstance(r, ToolResult)] == ["appended 1 line to packing.txt"]
    agent = make_agent(home, ["Tool: append_file", '{"path": "packing.txt", "text": "socks"}', "Answer:", "Packed."])
    events, _ = run(agent, "what should I pack for Oslo?")
    assert next(r for r in events if isinstance(r, ToolResult)).refused == "not asked"
    assert "socks" not in (agent.workspace / "packing.txt").read_text()


def test_a_command_the_message_names_in_another_language_is_a_look_at_its_output(home):
    """dev2, the 1.5B: "Lancia git log --oneline per favore" ran the command and answered "Yes, your last
    commit went through." (an earlier turn's kind of answer): no English "run", yet the message names
    the command that ran, so its output is what was asked for. Real git, the real exec tool."""
    import subprocess

    agent = make_agent(home, ["Tool: exec", '{"command": "git log --oneline"}', "Answer:",
                              "Yes, your last commit went through.", "Answer:", "Yes, it went through."],
                       exec_allow=["git log"])
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@x"]
    subprocess.run([*git, "init", "-q"], cwd=agent.workspace, check=True)
    (agent.workspace / "prices.py").write_text("TAX = 0.2\n")
    subprocess.run([*git, "add", "prices.py"], cwd=agent.workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "quokka tariff table"], cwd=agent.workspace, check=True)
    events, done = run(agent, "Lancia git log --oneline per favore")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["exec"]
    assert "quokka tariff table" in agent.model.calls[-1]["messages"][-1].content  # the retry's note: the output
    assert done.corrected and "quokka tariff table" in done.reply  # still not from it: the output is shown


def test_a_folder_answered_with_an_invented_count_is_not_from_the_listing(home):
    """dev2, the 1.5B: "whats insdie the trips folder?" listed 3 files and answered "There are 21 entries
    in the trips folder.": list_dir's own header ("trips: 3 entries") is no word the reply may share."""
    agent = make_agent(home, ["Tool: list_dir", '{"path": "trips"}', "Answer:", "There are 21 entries in the trips folder.",
                              "Answer:", "The trips folder has 21 entries."])
    (agent.workspace / "trips").mkdir()
    for name in ("oslo.md", "lisbon.md", "packing.txt"):
        (agent.workspace / "trips" / name).write_text("x\n")
    events, done = run(agent, "whats insdie the trips folder?")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["list_dir"]
    assert "packing.txt" in agent.model.calls[-1]["messages"][-1].content  # the retry's note: the listing
    assert done.corrected and "oslo.md" in done.reply  # still not from it: the listing is shown


def test_a_listing_answered_with_a_count_alone_is_shown_under_it_without_a_retry(home):
    """The 1.5B answers "which files are here?" (it lists ".") with the header's count: "There are 14
    files and 9 folders in the current directory." With the look judged asked and no entry named, the
    listing goes under the reply as it stands: no second generation, nothing called wrong (a count may
    be the answer)."""
    agent = make_agent(home, ["Tool: list_dir", '{"path": "."}', "Answer:", "There are files and folders in the current directory."])
    (agent.workspace / "budget.csv").write_text("a,b\n")
    (agent.workspace / "photos").mkdir()
    agent.judge.text, agent.judge.cache = "which files are here?", {"look": 0.95}
    events, done = run(agent, "which files are here?")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["list_dir"]
    assert done.reply.startswith("There are files and folders in the current directory.\n\n(nanobot: list_dir . showed:")
    assert "budget.csv" in done.reply and "photos/" in done.reply and done.corrected
    assert not any("asking again" in e.text for e in events if isinstance(e, Notice))  # no retry
    assert "[nanobot:" not in agent.model.calls[-1]["messages"][-1].content  # the last generation was the answer


def test_a_file_named_as_spoken_is_the_look_target(home):
    """dev2, the 1.5B: "what did the garden log say about the basil?" answered from nothing: the file
    is garden.log, named with a space for its dot. The roots say it exists, so the invented answer is
    caught and the retry reads it."""
    agent = make_agent(home, ["Answer:", "The garden log said compost turned.",
                              "Tool: read_file", '{"path": "garden.log"}', "Answer:", "It says the basil bolted."])
    (agent.workspace / "garden.log").write_text("2024-06-01 basil bolted\n")
    events, done = run(agent, "what did the garden log say about the basil?")
    assert any("nothing was read or run" in e.text for e in events if isinstance(e, Notice))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    assert done.reply == "It says the basil bolted."


def test_a_file_named_without_its_extension_in_a_folder_named_too_is_the_look_target(home):
    """"The recipe is in the kitchen folder" names kitchen/recipe.md: a listing of kitchen/ that only
    names the files is no look at the recipe, so the retry reads it and the answer is from the file."""
    agent = make_agent(home, ["Tool: list_dir", '{"path": "kitchen"}', "Answer:",
                              "The kitchen folder has recipe.md and shopping.md.",
                              "Tool: read_file", '{"path": "kitchen/recipe.md"}', "Answer:", "It bakes for 40 minutes."])
    (agent.workspace / "kitchen").mkdir()
    (agent.workspace / "kitchen" / "recipe.md").write_text("Bread: bake 40 minutes at 220C\n")
    (agent.workspace / "kitchen" / "shopping.md").write_text("flour\n")
    events, done = run(agent, "I forgot how long the bread bakes. The recipe is in the kitchen folder.")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["list_dir", "read_file"]
    assert done.reply == "It bakes for 40 minutes."


def test_a_fence_that_only_opens_a_call_is_neither_shown_nor_kept(home):
    """A new user's session on the 1.5B: after a refused edit the retried reply ended in "```json\\n{",
    streamed to the terminal as it came. The stream holds a fence back while it holds only a call's
    opening; at the end it is dropped, and the reply kept in the history is what was shown."""
    ending = "Fix the indentation and try again.\n\n```json\n{"
    agent = make_agent(home, ["Answer:", ending])
    events, done = run(agent, "hello")
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "```" not in shown and "{" not in shown
    assert done.reply == shown.strip() == "Fix the indentation and try again."
    assert agent.history[-1].content == done.reply
    stream = Scrubber()  # piece by piece, as a model streams: a code block with content is shown whole
    block = "Use:\n```python\nprint(1)\n```\nDone."
    out = "".join(stream.feed(c) for c in block) + stream.finish()
    assert out == block
    stream = Scrubber()
    out = "".join(stream.feed(c) for c in ending) + stream.finish()
    assert out.rstrip() == "Fix the indentation and try again."  # the blank line before it was shown


def test_a_listing_of_another_folder_is_no_look_at_the_named_one(home):
    """dev2, the 1.5B: "whats insdie the trips folder?" listed "." (the workspace) and the correction
    showed that listing as the trips folder's. A folder the message names is looked at only by a call
    whose arguments name it."""
    agent = make_agent(home, ["Tool: list_dir", '{"path": "."}', "Answer:", "There are 21 entries in the trips folder.",
                              '{"path": "."}', "Answer:", "The trips folder has 21 entries."])  # the retry's list_dir
    (agent.workspace / "trips").mkdir()
    (agent.workspace / "trips" / "oslo.md").write_text("x\n")
    events, done = run(agent, "whats insdie the trips folder?")
    assert done.corrected and "trips was not read or run this turn" in done.reply
    assert "SOUL.md" not in done.reply  # the workspace's listing is not shown as the folder's


def test_a_repeated_reply_about_a_file_not_looked_at_is_retried_with_the_look(home):
    """The first dev set, the 1.5B: "What is in docs/guide.md?" answered with the turn before's reply
    twice, nothing read. The file exists and nothing looked at it: the retry reads it."""
    earlier = "The files in this folder are README.md and todo.md, and nothing else is here."
    agent = make_agent(home, ["Answer:", "Hello Ada!", "Answer:", earlier, "Answer:", earlier,
                              '{"path": "docs/guide.md"}', "Answer:", "The guide says: step one, unpack the box."])
    (agent.workspace / "docs").mkdir()
    (agent.workspace / "docs" / "guide.md").write_text("# Guide\nStep one: unpack the box.\n")
    run(agent, "Hi, I'm Ada")
    run(agent, "Which files do you know about?")
    events, done = run(agent, "What is in docs/guide.md?")
    assert any("repeats an earlier reply" in e.text for e in events if isinstance(e, Notice))
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    assert done.reply == "The guide says: step one, unpack the box." and not done.corrected
    last = agent.model.calls[-1]["messages"]  # the retry is asked without the answer it copied and its question
    assert not any(m.role == "assistant" and earlier in m.content for m in last)
    assert not any(m.role == "user" and m.content == "Which files do you know about?" for m in last)
    assert [(m.role, m.content) for m in last[1:3]] == [("user", "Hi, I'm Ada"), ("assistant", "Hello Ada!")]
    assert [m.role for m in last][-2:] == ["assistant", "user"]  # the turns left alternate
    assert any(m.role == "assistant" and earlier in m.content for m in agent.model.calls[4]["messages"])


def test_an_earlier_reply_given_again_after_a_look_is_retried_on_this_message_alone(home):
    """dev2 on the 1.5B: after "did my last commit go through?", "run the pricing script" ran and was
    answered "Yes, your last commit went through." again, and so was the retry that kept the user's
    earlier messages (it answered the first of them). The retry sees this message, its note and the
    result, and nothing of the session before."""
    said = "The plants are watered."
    agent = make_agent(home, ["Tool: read_file", '{"path": "a.txt"}', "Answer:", said,
                              "Tool: read_file", '{"path": "b.txt"}', "Answer:", said,
                              "Answer:", "b.txt says the cat is fed."])
    (agent.workspace / "a.txt").write_text("the plants are watered\n")
    (agent.workspace / "b.txt").write_text("the cat is fed\n")
    run(agent, "What does a.txt say?")
    events, done = run(agent, "What does b.txt say?")
    assert any("says nothing of what read_file showed; asking again" in e.text for e in events if isinstance(e, Notice))
    assert done.reply == "b.txt says the cat is fed." and not done.corrected
    last = agent.model.calls[-1]["messages"]
    assert [m.role for m in last] == ["system", "user"] and "the cat is fed" in last[-1].content
    assert last[-1].content.startswith("What does b.txt say?")


def test_an_earlier_reads_result_copied_as_the_reply_is_imitated_output(home):
    """The first dev set, the 1.5B: "bob: What is 7 times 6?" answered "notes.txt lines 1-1 of 1 Call Bob
    at 5pm about the invoice.", an earlier turn's read_file result copied from the history, no tool run."""
    copied = "notes.txt lines 1-1 of 1 Call Bob at 5pm about the invoice."
    assert "imitates" in check("bob: What is 7 times 6?", copied, []).problem
    read = _ran("read_file", {"path": "notes.txt"}, text="notes.txt lines 1-1 of 1\nCall Bob at 5pm about the invoice.")
    assert not check("show me notes.txt", copied, read).problem  # this turn's own read: from the look
