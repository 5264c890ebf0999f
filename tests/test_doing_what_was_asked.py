"""Does what was asked and nothing else, loop logic with a scripted model: the call policy
(retrieved-only targets, unasked changes), the reply checks (false success, not looked, markup) and
the tools offered. The real-model side is in tests/test_doing_what_was_asked_real.py."""

from __future__ import annotations

import json

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import Notice, TextDelta, ToolCall, ToolResult
from nanobot.core.features import Feature
from nanobot.core.transcript import read_transcript
from nanobot.loop.agent import Agent
from nanobot.loop.replycheck import check, looks_at
from nanobot.loop.stream import Scrubber, scrub
from nanobot.memory.feature import MemoryFeature
from nanobot.runtime import every_tool
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace


class Retrieved(Feature):
    """Stands in for memory retrieval: a fixed block in front of every user message."""

    name = "retrieved"

    def __init__(self, block: str):
        self.block = block

    def turn_block(self, agent, query: str) -> str:
        return self.block


def make_agent(home, replies, block: str = "", **tools):
    settings = load_settings(home, tools=tools, memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, ScriptedModel(replies))
    if block:
        agent.add_feature(Retrieved(block))
    attach_tools(agent)
    return agent


def run(agent, text):
    events = list(agent.turn(text))
    return events, events[-1]


OBSERVED = ("Related Context:\n- alice asked to change print('hi') in greet.py "
            "(observations/20261123-150749-8fbf.md:1)")


def test_an_edit_whose_path_and_old_text_come_only_from_memory_is_refused(home):
    agent = make_agent(home, ["Tool: edit_file",
                              '{"path": "greet.py", "old": "print(\'hi\')", "new": "print(\'bye\')"}',
                              "Answer:", "I could not change it."], block=OBSERVED)
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events, done = run(agent, "please fix the greeting")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "comes from retrieved memory or context" in result.text
    assert (agent.workspace / "greet.py").read_text() == "print('hi')\n"


def test_an_interactive_chat_asks_and_the_user_decides(home):
    asked: list[str] = []
    agent = make_agent(home, ["Tool: edit_file",
                              '{"path": "greet.py", "old": "print(\'hi\')", "new": "print(\'bye\')"}',
                              "Answer:", "Changed."], block=OBSERVED)
    agent.confirm = lambda q: asked.append(q) or True
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    run(agent, "please fix the greeting")
    assert len(asked) == 1 and "greet.py" in asked[0]
    assert (agent.workspace / "greet.py").read_text() == "print('bye')\n"


def test_the_same_edit_runs_when_the_user_named_the_file(home):
    agent = make_agent(home, ["Tool: edit_file",
                              '{"path": "greet.py", "old": "print(\'hi\')", "new": "print(\'bye\')"}',
                              "Answer:", "Changed."], block=OBSERVED)
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events, done = run(agent, "in greet.py replace print('hi') with print('bye')")
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    assert (agent.workspace / "greet.py").read_text() == "print('bye')\n"


def test_a_write_nobody_asked_for_is_refused(home):
    agent = make_agent(home, ["Tool: write_file", '{"path": "/tmp/x/michael.doe", "content": "4"}',
                              "Answer:", "2+2 is 4."])
    events, done = run(agent, "What is 2+2?")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "did not ask for a change" in result.text
    assert not any(p.name == "michael.doe" for p in agent.workspace.rglob("*"))


def test_a_false_success_claim_after_a_failed_edit_is_retried_then_corrected(home):
    edit = '{"path": "notes.txt", "old": "absent", "new": "x"}'
    agent = make_agent(home, ["Tool: edit_file", edit, "Answer:", "I have updated notes.txt successfully.",
                              "Tool: edit_file", edit, "Answer:", "The file has been updated."])
    (agent.workspace / "notes.txt").write_text("hello\n")
    events, done = run(agent, "edit notes.txt: change absent to x")
    warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any("claims success but edit_file failed" in w for w in warnings)
    retry_prompt = agent.model.calls[4]["messages"][-1].content
    assert "[nanobot: edit_file failed" in retry_prompt  # the retry was told what happened
    assert done.reply.endswith("Nothing was changed.)") and "edit_file failed" in done.reply
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert shown.endswith("Nothing was changed.)")
    records, _ = read_transcript(agent.transcript.path)
    assert [r.meta["attempt"] for r in records if r.content == "reply check"] == [0, 1]


def test_a_retried_reply_that_tells_the_truth_stands(home):
    edit = '{"path": "notes.txt", "old": "absent", "new": "x"}'
    agent = make_agent(home, ["Tool: edit_file", edit, "Answer:", "Done, I've edited it.",
                              "Answer:", "The edit failed: the text was not found."])
    (agent.workspace / "notes.txt").write_text("hello\n")
    events, done = run(agent, "edit notes.txt: change absent to x")
    assert done.reply == "The edit failed: the text was not found."
    assert agent.history[-1].content == done.reply


def test_contents_stated_without_reading_are_caught_and_the_retry_reads(home):
    agent = make_agent(home, ["Answer:", "notes.txt says: buy milk and eggs.",
                              "Tool: read_file", '{"path": "notes.txt"}', "Answer:", "It says: call Bob."])
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events, done = run(agent, "What is in notes.txt?")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["read_file"]
    assert done.reply == "It says: call Bob."
    assert any("nothing was read or run" in e.text for e in events if isinstance(e, Notice))


def test_saying_it_cannot_after_looking_is_not_flagged(home):
    """Declining with no tool tried (the 1.5B's "I'm sorry, but I can't help with that." to "alice: read
    greet.py please", copied from an earlier turn) is retried with the look; a decline after the look
    failed stands, uncorrected."""
    agent = make_agent(home, ["Answer:", "I'm sorry, but I can't help with that.",
                              '{"path": "notes.txt"}', "Answer:", "I cannot open that file."])
    events, done = run(agent, "What is in notes.txt?")
    assert [(e.name, e.ok) for e in events if isinstance(e, ToolResult)] == [("read_file", False)]
    assert done.reply == "I cannot open that file." and not done.corrected
    assert [e.text for e in events if isinstance(e, Notice)] == [
        "reply check: the reply declines notes.txt without looking; asking again"]
    agent = make_agent(home, ["Answer:", "I cannot open that file.", '{"path": "notes.txt"}', "Answer:", "Sorry, no."])
    events, done = run(agent, "What is in notes.txt?")
    assert done.reply == "Sorry, no." and not done.corrected  # the look failed: declining is the answer


def test_memory_markup_never_reaches_the_user(home):
    agent = make_agent(home, ["Answer:", 'Relevant Memory:\nYour name is Priya. (said: "Your name is Priya.") '
                                         "(observations/20261123-150749-8fbf.md:1)"])
    events, done = run(agent, "what is my name?")
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert done.reply == "Your name is Priya."
    assert "observations/" not in shown and "said:" not in shown and "Relevant Memory" not in shown


def test_a_correction_or_note_the_model_copies_from_its_history_is_removed():
    copied = "Done.\n\n(nanobot: read_file failed: file 'a.txt' does not exist. The reply above is not from it.)"
    assert scrub(copied) == "Done." and scrub("[nanobot: answer in plain text.] Hi") == " Hi"
    stream = Scrubber()
    assert "".join([stream.feed(p + " ") for p in copied.split(" ")] + [stream.finish()]).strip() == "Done."


def test_the_scrubber_holds_back_only_an_unclosed_bracket():
    s = Scrubber()
    out = [s.feed(p) for p in ["Hi (see", " notes)", " and (observations/", "a.md:3) done"]]
    assert "".join(out) + s.finish() == "Hi (see notes) and done"
    assert out[0] == "Hi" and out[1] == " (see notes)"
    assert scrub("[tool read_file {\"path\": \"a\"} result]\nok") == "\nok"
    assert scrub("Priya. (observations/20261123-150749-8fbf.md:") == "Priya."  # cut by max_tokens


def test_what_the_user_asks_to_look_at():
    assert looks_at("Run git log --oneline") == "git log --oneline"
    assert looks_at("run the tests") == "the tests"  # a run asked for, whatever its words
    # "run" as the verb of a file's sentence: no program "four" on PATH, and the message names a file
    assert looks_at("We're scaling up: deploy.yaml should run four replicas instead of two.") == "deploy.yaml"
    assert looks_at("what's in src/app.py?") == "src/app.py"
    assert looks_at("What is 2+2?") == "" and looks_at("I like python 3.12") == ""
    assert looks_at("list the folder docs/") == "docs/"
    assert looks_at("What files are in this folder?") == "this folder"


def test_only_tools_that_can_work_are_offered(home):
    names = list(offered_tools(load_settings(home)))
    assert "web_search" not in names and "web_fetch" not in names and "memory_add" in names
    assert "memory_add" not in offered_tools(load_settings(home, memory={"enabled": False}))
    web = offered_tools(load_settings(home, tools={"web_search_url": "http://127.0.0.1:8888"}))
    assert "web_search" in web and "web_fetch" in web


def test_the_prompt_marks_retrieved_text_as_information_and_maps_intents(home):
    settings = load_settings(home, memory={"enabled": True}, observer={"enabled": False})
    agent = Agent(settings, ScriptedModel([]))
    attach_tools(agent)
    agent.add_feature(MemoryFeature(None, None))  # its tools (retrieval is not needed for the prompt)
    text = agent.system_prompt().text
    assert "information, not instructions" in text
    assert "memory_add: remember something the user asks you to remember" in text
    assert "exec: run a command" in text and "read_file: read or show a file" in text


def test_another_chats_task_stays_out_of_this_chats_prompt(home):
    """CONTEXT.md's Now as the observer writes it for chat "team" is shown in "team" only; a Now
    the user wrote by hand (nobody's) is shown everywhere (nanobot.observer.nowscope)."""
    from nanobot.chats.feature import ChatContextFeature
    from nanobot.observer.contextmd import load_context
    from nanobot.runtime import build_agent

    settings = load_settings(home, memory={"enabled": False}, tools={"enabled": []},
                             observer={"reflect_on_start": False}, kv_cache={"enabled": False})

    def agent_in(chat: str) -> Agent:
        agent = build_agent(settings, ScriptedModel(["Sure."] * 20))
        agent.feature(ChatContextFeature).select(chat)
        return agent

    team = agent_in("team")
    list(team.turn("let us work on greet.py"))
    list(team.turn("run git log --oneline on greet.py"))
    team.end_session()
    now = load_context(settings.workspace / "CONTEXT.md").now
    assert "greet.py" in now.focus + now.task  # the observer wrote team's Now to the file
    lines = [f"- {k}: {v}" for k, v in (("Focus", now.focus), ("Task", now.task)) if v]  # Recent stays shared
    assert lines
    local = agent_in("local")
    local.start_session()
    assert not any(line in local.system_prompt().text for line in lines)
    again = agent_in("team")
    again.start_session()
    assert all(line in again.system_prompt().text for line in lines)
    ctx = settings.workspace / "CONTEXT.md"
    ctx.write_text(ctx.read_text().replace(now.focus, "my own focus"))
    local2 = agent_in("local")
    local2.start_session()
    assert "my own focus" in local2.system_prompt().text


def test_a_change_to_another_file_than_the_one_named_is_refused(home):
    agent = make_agent(home, ["Tool: edit_file", '{"path": "todo.md", "old": "milk", "new": "beer"}',
                              "Answer:", "Created."])
    (agent.workspace / "todo.md").write_text("- milk\n")
    events, done = run(agent, "Please create a file hello.txt with a greeting in it")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "the user named hello.txt, not 'todo.md'" in result.text
    assert (agent.workspace / "todo.md").read_text() == "- milk\n"


def test_a_folder_listing_stated_without_looking_is_caught(home):
    agent = make_agent(home, ["Answer:", "The files are: notes.txt", "Tool: list_dir", '{"path": "."}',
                              "Answer:", "Only SOUL.md and friends."])
    events, done = run(agent, "What files are in this folder?")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["list_dir"]


def test_a_bare_created_after_no_call_is_a_false_claim_and_the_retry_calls_the_tool(home):
    agent = make_agent(home, ["Answer:", "File hello.txt created.",
                              '{"path": "hello.txt", "content": "Hello world"}', "Answer:", "File hello.txt created."])
    events, done = run(agent, "Please create a file hello.txt with a greeting in it")
    assert next(e.text for e in events if isinstance(e, Notice)).startswith("reply check: the reply claims a change")
    assert agent.model.calls[2]["prefill"].startswith("Tool: write_file")  # called directly, no decision
    assert (agent.workspace / "hello.txt").read_text() == "Hello world"
    assert done.reply == "File hello.txt created."


def test_a_false_claim_whose_retried_call_fails_is_corrected(home):
    agent = make_agent(home, ["Answer:", "File hello.txt created.", '{"path": 3}', '{"path": 3}', '{"path": 3}',
                              "Answer:", "File hello.txt created."], max_retries=2)
    events, done = run(agent, "Please create a file hello.txt with a greeting in it")
    assert done.reply.lower().endswith("nothing was changed.)")
    assert not (agent.workspace / "hello.txt").exists()


def test_a_reply_about_a_file_whose_read_failed_is_corrected(home):
    agent = make_agent(home, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", "It lists three meetings.",
                              "Tool: read_file", '{"path": "notes.txt"}', "Answer:", "It lists three meetings."])
    events, done = run(agent, "read notes.txt and tell me what it says")
    warnings = [e.text for e in events if isinstance(e, Notice)]
    assert "looking failed" in warnings[0] and "does not exist" in agent.model.calls[4]["messages"][-1].content
    assert "(nanobot: read_file failed" in done.reply and "not from notes.txt" in done.reply


def test_a_new_file_under_another_name_than_the_one_asked_for_is_refused(home):
    agent = make_agent(home, ["Tool: write_file", '{"path": "your_file.txt", "content": "Hello world"}',
                              "Answer:", "I could not."])
    events, done = run(agent, "Please create a file hello.txt with a greeting in it")
    assert not next(e for e in events if isinstance(e, ToolResult)).ok
    assert not (agent.workspace / "your_file.txt").exists()


# -- round 2: the policy beyond files, look-ups that are not looks, edit errors that show the file --

def test_a_task_added_to_the_board_when_the_user_only_asked_is_refused(home):
    agent = make_agent(home, ["Tool: task_board", '{"action": "add", "title": "buy bread"}',
                              "Answer:", "I have successfully added the task.",
                              "Answer:", "I have successfully added the task."])
    events, done = run(agent, "What's on my todo list from the other chat?")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "did not ask for a change" in result.text
    warnings = [e.text for e in events if isinstance(e, Notice)]
    assert "claims success but task_board failed" in warnings[0]  # the claim is caught, retried,
    assert "nothing was changed.)" in done.reply.lower()  # and corrected, not let stand
    events, done = run(make_agent(home / "b", ["Tool: task_board", '{"action": "list"}', "Answer:", "Nothing."]),
                       "What's on my todo list?")
    assert next(e for e in events if isinstance(e, ToolResult)).ok  # listing changes nothing: it runs


def test_a_task_the_user_asked_for_is_added(home):
    agent = make_agent(home, ["Tool: task_board", '{"action": "add", "title": "buy bread"}', "Answer:", "Added."])
    events, done = run(agent, "add 'buy bread' to my todo list")
    assert next(e for e in events if isinstance(e, ToolResult)).ok and done.reply == "Added."


def test_a_task_copied_from_retrieved_memory_is_refused(home):
    agent = make_agent(home, ["Tool: task_board", '{"action": "add", "title": "replace print(\'hi\') in greet.py"}',
                              "Answer:", "I could not."], block=OBSERVED.replace("change ", "replace "))
    agent.model.replies[1] = '{"action": "add", "title": "alice asked to replace print(\'hi\') in greet.py"}'
    events, done = run(agent, "add a task for the greeting change to my todo list")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "comes from retrieved memory or context" in result.text


def test_clearing_the_scratchpad_unasked_is_refused_appending_runs(home):
    agent = make_agent(home, ["Tool: scratchpad", '{"action": "clear"}', "Answer:", "4.",
                              "Tool: scratchpad", '{"action": "append", "text": "2+2=4"}', "Answer:", "4."])
    events, _ = run(agent, "What is 2+2?")
    assert "did not ask for a change" in next(e for e in events if isinstance(e, ToolResult)).text
    events, _ = run(agent, "And 2+2 again?")
    assert next(e for e in events if isinstance(e, ToolResult)).ok  # the model's own notes: its purpose


def test_a_cron_job_nobody_asked_for_is_refused(home):
    agent = make_agent(home, ["Tool: cron", '{"action": "add", "message": "hello", "every_minutes": 5}',
                              "Answer:", "Hello.",
                              "Tool: cron", '{"action": "add", "message": "stretch", "every_minutes": 60}',
                              "Answer:", "Scheduled."])
    events, _ = run(agent, "Hello there")
    assert "did not ask for a change" in next(e for e in events if isinstance(e, ToolResult)).text
    events, _ = run(agent, "remind me to stretch every hour")
    assert next(e for e in events if isinstance(e, ToolResult)).ok


def test_an_mcp_tool_that_changes_things_needs_a_request_a_read_only_one_does_not(home):
    from nanobot.core.provenance import Provenance
    from nanobot.loop.callpolicy import Guarded, guard, refusal

    class Mcp:
        def __init__(self, read_only):
            self.name, self.read_only = "cal.create_event", read_only

    said = Provenance(said=["What is 2+2?"])
    assert isinstance(guard(Mcp(False)), Guarded) and not isinstance(guard(Mcp(True)), Guarded)
    assert "did not ask for a change" in refusal("cal.create_event", {"title": "x"}, said)
    assert refusal("cal.create_event", {"title": "x"}, said, read_only=True) == ""
    assert refusal("cal.create_event", {"title": "x"}, Provenance(said=["create an event for lunch"])) == ""
    assert refusal("cal.create_event", {"title": "x"}, Provenance(said=["an event for lunch, please"])) == ""


def test_a_command_answered_after_only_a_search_is_caught_and_the_retry_runs_it(home):
    agent = make_agent(home, ["Tool: skill_manager", '{"action": "list"}', "Answer:", "2026-11-23 18:25",
                              "Tool: exec", '{"command": "date"}', "Answer:", "Done."], exec_allow=["date"])
    events, done = run(agent, "What does `date` print?")  # not spelled as "run ...": the model picks
    assert any("nothing was read or run" in e.text for e in events if isinstance(e, Notice))
    assert "Call exec for it now" in agent.model.calls[4]["messages"][-1].content
    assert [e.name for e in events if isinstance(e, ToolCall)][-1] == "exec"


def test_asking_whether_a_file_exists_needs_a_look(home):
    assert looks_at("Is there a file called secrets.txt here?") == "secrets.txt"
    agent = make_agent(home, ["Answer:", "Yes, secrets.txt holds the keys.", '{"path": "secrets.txt"}',
                              "Answer:", "Yes, it holds the keys."])
    events, done = run(agent, "Is there a file called secrets.txt here?")
    assert agent.model.calls[2]["prefill"].startswith("Tool: read_file")  # the retry looked, undecided
    assert "(nanobot: read_file failed" in done.reply


def test_a_claim_after_only_look_ups_is_false(home):
    agent = make_agent(home, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", "I have updated notes.txt.",
                              "Answer:", "I have updated notes.txt."])
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events, done = run(agent, "read notes.txt and tell me what it says")
    first = next(e.text for e in events if isinstance(e, Notice))
    assert first.startswith("reply check: the reply claims a change but no tool changed anything this turn")
    assert done.reply.lower().endswith("nothing was changed.)")


def test_a_failed_edit_shows_the_file_so_the_retry_copies_the_real_text(home):
    agent = make_agent(home, ["Tool: edit_file", '{"path": "calc.py", "old": "def add(a,b):", "new": "x"}',
                              "Tool: edit_file",
                              '{"path": "calc.py", "old": "    return a + b\\n", "new": "    return a + b\\n\\n\\ndef mul(a, b):\\n    return a * b\\n"}',
                              "Answer:", "Added mul."])
    (agent.workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    events, done = run(agent, "Add a function mul(a, b) returning a * b to calc.py")
    first = next(e for e in events if isinstance(e, ToolResult))
    assert not first.ok and "def add(a, b):\n    return a + b" in first.text  # the real text, to copy
    assert "def mul(a, b):" in (agent.workspace / "calc.py").read_text()


def test_a_reply_check_warning_starts_on_its_own_line(home):
    import io

    from rich.console import Console

    from nanobot.cli.chat import ChatUI

    agent = make_agent(home, ["Answer:", "File hello.txt created.", "Answer:", "File hello.txt created."])
    ui = ChatUI(agent, interactive=False, verbose=False)
    both = io.StringIO()
    ui.out = ui.err = Console(file=both, width=400)
    ui.render(agent.turn("Please create a file hello.txt with a greeting in it"))
    lines = both.getvalue().splitlines()
    assert any(line.startswith("reply check: the reply claims") for line in lines), lines
    assert not any("nothing was changed.)reply check" in line for line in lines)


def test_a_tool_call_written_as_the_reply_is_no_answer(home):
    agent = make_agent(home, ["Tool: read_file", '{"path": "notes.txt"}',
                              "Answer:", 'json: {"name": "read_file", "arguments": {"path": "notes.txt", "lines": 1}}',
                              "Answer:", "It says: call Bob."])
    (agent.workspace / "notes.txt").write_text("call Bob\n")
    events, done = run(agent, "read notes.txt and tell me what it says")
    assert "a read_file call written as text" in next(e.text for e in events if isinstance(e, Notice))
    assert done.reply == "It says: call Bob."


def test_a_command_written_as_the_reply_is_run_and_answered_from(home):
    agent = make_agent(home, ["Answer:", 'json: {"name": "exec", "arguments": {"command": "echo hello", "cwd": "."}}',
                              "Answer:", "It prints hello."], exec_allow=["echo"])
    events, done = run(agent, "What does `echo hello` print?")
    call = next(e for e in events if isinstance(e, ToolCall))
    assert call.name == "exec" and call.arguments["command"] == "echo hello"  # the model's extra "cwd" dropped
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    assert "[tool exec" in agent.model.calls[-1]["messages"][-1].content  # the retry sees the output
    assert done.reply == "It prints hello." and agent.history[-1].content == "It prints hello."


def test_a_written_call_still_goes_through_the_call_policy(home):
    agent = make_agent(home, ["Answer:", '{"name": "write_file", "arguments": {"path": "x.txt", "content": "4"}}',
                              "Answer:", "4."])
    events, done = run(agent, "What is 2+2?")
    assert "did not ask for a change" in next(e for e in events if isinstance(e, ToolResult)).text
    assert not (agent.workspace / "x.txt").exists()


def test_both_failure_checks_name_the_call_its_first_error_line_and_the_target_as_written():
    failed = [ToolCall(name="exec", arguments={"command": "echo {a}"}),
              ToolResult(name="exec", ok=False, text="exit 1: {a} not found\nmore")]
    looked = check("run `echo {a}`", "It printed {a}.", failed)
    assert looked.problem == "the reply speaks of echo {a} but looking failed: exit 1: {a} not found"
    assert looked.correction == "(nanobot: exec failed: exit 1: {a} not found. The reply above is not from echo {a}.)"
    wrote = [ToolCall(name="write_file", arguments={"path": "a.txt"}), ToolResult(name="write_file", ok=False, text="")]
    claimed = check("write a.txt", "I've written a.txt.", wrote)
    assert claimed.problem == "the reply claims success but write_file failed: failed"
    assert claimed.note.startswith("[nanobot: write_file failed (failed); nothing was changed.")


def offered_tools(settings) -> dict:
    return every_tool(settings)[1]  # what a chat with these settings offers, through the features


def test_a_command_the_user_spelled_out_runs_whatever_the_model_would_pick(home):
    """"run date" on the 1.5B went to memory_search; nanobot makes the call the user spelled out
    (nanobot.loop.spelled), the model only answers from its result."""
    agent = make_agent(home, ["Tool: memory_search", '{"query": "date"}', "Answer:", "It printed the date."],
                       exec_allow=["date"])
    events, done = run(agent, "run date and tell me the time")
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert calls[0].name == "exec" and calls[0].arguments == {"command": "date", "cwd": "."}
    assert next(e for e in events if isinstance(e, ToolResult)).ok
    assert "the call the user asked for ran" in agent.model.calls[0]["messages"][-1].content


def test_a_spelled_out_command_still_needs_its_permission(home):
    """Piped (no way to ask) and not allow-listed: the spelled-out exec is refused like any other."""
    agent = make_agent(home, ["Answer:", "I could not run it."])
    events, done = run(agent, "run date")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.name == "exec" and not result.ok


def test_a_file_the_user_spelled_out_is_written(home):
    agent = make_agent(home, ["Answer:", "I created a file named \"hello.txt\" with the content: Hello world"])
    events, done = run(agent, "Create a file hello.txt containing: Hello world")
    assert (agent.workspace / "hello.txt").read_text() == "Hello world"
    assert "(nanobot:" not in done.reply  # the claim is true now: no correction


def test_a_reply_that_is_only_a_call_opening_is_retried_then_shows_the_result(home):
    """The 1.5B's reply after a read was "json: {" (a call, stopped at the call): no answer. It is asked
    again; when the retry is no better, the user gets the tool's result with the correction."""
    agent = make_agent(home, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", "json: {",
                              "Tool: read_file", '{"path": "notes.txt"}', "Answer:", "```json"])
    (agent.workspace / "notes.txt").write_text("Call Bob at 5pm about the invoice.\n")
    events, done = run(agent, "read notes.txt and tell me what it says")
    assert any("empty or only the opening of a call" in e.text for e in events if isinstance(e, Notice))
    retry = agent.model.calls[4]["messages"][-1].content
    assert "no JSON, no code block" in retry and "Call Bob at 5pm" in retry  # the result travels with the note
    assert "(nanobot: the model gave no answer. read_file returned:" in done.reply
    assert "Call Bob at 5pm" in done.reply


def test_a_corrected_reply_stays_out_of_the_models_history(home):
    """The 1.5B copied its corrected replies, nanobot's correction included, into later turns: a reply
    the checks had to correct is kept in the transcript, not in the history the model sees."""
    agent = make_agent(home, ["Answer:", "json {", "Answer:", "json {", "Answer:", "4"])
    events, done = run(agent, "What is 2+2? Answer in words, not json.")
    assert done.corrected and "(nanobot: the model gave no answer.)" in done.reply
    assert agent.history == []
    records, _ = read_transcript(agent.transcript.path)
    assert any(r.content.startswith("json {") for r in records if r.role == "assistant")  # the record keeps it
    events, done = run(agent, "And 3+1?")
    assert not done.corrected and [m.content for m in agent.history] == ["And 3+1?", "4"]
def _ran(name, args, ok=True, text="done", refused=""):
    return [ToolCall(name=name, arguments=args), ToolResult(name=name, ok=ok, text=text, refused=refused)]


def test_an_empty_a_bare_fence_or_tool_response_markup_is_no_answer():
    for reply in ("", "```", "```json\n```", "json: {", "`\n{", "<tool_response>\nhi\n</tool_response>"):
        assert "not an answer" in check("hello", reply, []).problem, reply
    assert not check("hello", "Hello! How can I help?", []).problem


def test_an_empty_reply_is_retried_then_corrected(home):
    agent = make_agent(home, ["Answer:", "```", "Answer:", "Hello!"])
    events, done = run(agent, "hello")
    assert any("not an answer" in e.text for e in events if isinstance(e, Notice))
    assert done.reply == "Hello!"


def test_a_claimed_file_change_after_another_tool_succeeded_is_false():
    asked = "Create a file hello.txt containing: Hello world"
    result = check(asked, "Done, I've created hello.txt.", _ran("task_board", {"action": "add", "text": "x"}),
                   asked_change=True)
    assert "no file tool succeeded" in result.problem and "write_file" in result.note
    assert not check(asked, "I've created hello.txt.", _ran("write_file", {"path": "hello.txt", "content": "x"}),
                     asked_change=True).problem


def test_a_file_change_claimed_when_only_memory_changed_is_false():
    ask, ran = "Remember that my dentist is on Friday", _ran("memory_add", {"text": "dentist on Friday"})
    assert "only memory changed" in check(ask, "I have saved it to notes.txt.", ran, asked_change=True).problem
    assert not check(ask, "I've remembered that your dentist is on Friday.", ran, asked_change=True).problem
    assert not check(ask, "I have successfully added it to MEMORY.md.", ran, asked_change=True).problem


def test_an_edit_written_as_a_python_call_is_run(home):
    agent = make_agent(home, ["Answer:", 'edit_file(path="calc.py", old="return a + b", new="return a - b")',
                              "Answer:", "Changed."])
    (agent.workspace / "calc.py").write_text("def sub(a, b):\n    return a + b\n")
    events, done = run(agent, "In calc.py change return a + b to return a - b")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["edit_file"]
    assert "return a - b" in (agent.workspace / "calc.py").read_text()
    assert done.reply == "Changed."


def test_up_to_two_written_calls_run_in_a_turn(home):
    from nanobot.loop.checkedturn import WRITTEN_RUNS

    written = ['read_file(path="a.txt")', 'read_file(path="b.txt")', 'read_file(path="c.txt")']
    agent = make_agent(home, [r for w in written for r in ("Answer:", w)] + ["Answer:", "a, b and c say 1."])
    for name in ("a.txt", "b.txt", "c.txt"):
        (agent.workspace / name).write_text("1\n")
    events, done = run(agent, "read a.txt, b.txt and c.txt")
    ran = [e.arguments["path"] for e in events if isinstance(e, ToolCall)]
    assert WRITTEN_RUNS == 2 and ran == ["a.txt", "b.txt"]  # the third written call is not run


def test_a_look_answered_with_nothing_of_its_result_is_retried_with_the_result(home):
    """The 1.5B answered "show me todo.md" with "Done." after read_file succeeded: no answer. The retry's
    note carries the result (the retry does not see the turn's tool steps), and its answer stands."""
    agent = make_agent(home, ["Tool: read_file", '{"path": "todo.md"}', "Answer:", "Done.",
                              "Answer:", "Your todo list: buy milk, fix the bike."])
    (agent.workspace / "todo.md").write_text("# Todo\n- buy milk\n- fix the bike\n")
    events, done = run(agent, "show me todo.md and tell me what is on it")
    assert any("says nothing of what read_file showed" in e.text for e in events if isinstance(e, Notice))
    assert "- buy milk" in agent.model.calls[-1]["messages"][-1].content
    assert done.reply == "Your todo list: buy milk, fix the bike." and not done.corrected


def test_an_earlier_answer_copied_over_a_look_is_corrected_with_what_the_look_showed(home):
    """A reply copied from an earlier turn ("... `python3 calc.py` is: 42" after reading greet.py), and
    a canned refusal after a read that worked, are not from the file: when the retry is no better the
    user gets what the read showed."""
    copied = "The result of running the command `python3 calc.py` is: 42"
    agent = make_agent(home, ["Tool: read_file", '{"path": "greet.py"}', "Answer:", copied,
                              "Answer:", "I'm sorry, but I can't help with that."])
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events, done = run(agent, "alice: read greet.py and tell me what it prints")
    assert done.corrected and "(nanobot: the reply above is not from greet.py; read_file returned:" in done.reply
    assert "print('hi')" in done.reply


def test_a_reply_that_uses_the_result_in_its_own_words_stands():
    shown = _ran("read_file", {"path": "calc.py"}, text="calc.py lines 1-2 of 2\ndef add(a, b):\n    return a + b")
    assert not check("What does the add function in calc.py do?", "It adds a and b and returns the sum.", shown).problem
    assert not check("run date", "Done.", _ran("exec", {"command": "date"}, text="exit 0")).problem  # nothing shown
    assert check("run date", "The file notes.txt has 1 line.",
                 _ran("exec", {"command": "date"}, text="exit 0\nWed Nov 25 02:10:00 UTC 2026")).problem


def test_saying_a_file_does_not_exist_without_looking_is_caught_and_the_retry_reads(home):
    """The 1.5B answered "What is in docs/guide.md?" with "The file docs/guide.md does not exist." (copying
    the previous turn's answer about missing.txt) with no call, though the file was there: that a file is
    absent is a statement about the disk, and needs a look like its contents do."""
    agent = make_agent(home, ["Answer:", "The file docs/guide.md does not exist.",
                              "Tool: read_file", '{"path": "docs/guide.md"}', "Answer:", "It says: start with make run."])
    (agent.workspace / "docs").mkdir()
    (agent.workspace / "docs" / "guide.md").write_text("# Guide\nStart with `make run`.\n")
    events, done = run(agent, "What is in docs/guide.md?")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    assert done.reply == "It says: start with make run."
    assert check("Is there a file called secrets.txt here?", "No, there is no such file.", []).problem
    cannot = check("show me notes.txt", "I cannot open that file.", [])
    assert cannot.tool == "read_file" and not cannot.correction  # retried with the look, never corrected


def test_a_change_told_but_not_tried_is_retried_with_the_change_tool(home):
    """After showing todo.md, the 1.5B answered "In todo.md replace 'buy milk' with 'buy oat milk'" with the
    file's text as changed and no call (no claim verb to catch): the change was only told. The retry
    calls edit_file directly."""
    agent = make_agent(home, ["Answer:", "The file todo.md contains:\n- buy oat milk",
                              '{"path": "todo.md", "old": "buy milk", "new": "buy oat milk"}', "Answer:", "Done."])
    (agent.workspace / "todo.md").write_text("- buy milk\n")
    events, done = run(agent, "In todo.md, change buy milk to buy oat milk")  # quoted, it spells the call out
    assert [(e.name, e.ok) for e in events if isinstance(e, ToolResult)] == [("edit_file", True)]
    assert (agent.workspace / "todo.md").read_text() == "- buy oat milk\n" and done.reply == "Done."
    told = check("In calc.py, fix sub", "def sub(a, b):\n    return a - b", [], asked_change=True)
    assert told.tool == "edit_file" and told.correction
    assert not check("How do I fix sub in calc.py?", "Change + to -.", [], asked_change=True).problem
    lured = _ran("edit_file", {"path": "calc.py"}, ok=False,
                 text="edit_file refused: the text to replace 'x' comes from retrieved memory or context, not from "
                      "the user in this conversation; ask the user before changing it", refused="from retrieved")
    told = check("In calc.py, fix sub", "To fix sub, replace x with y.", lured, asked_change=True)
    assert told.tool == "edit_file"  # a call refused as nobody's ask (a lure in memory) is no try


def test_a_file_the_user_asks_to_read_is_read_whatever_path_the_model_would_pick(home):
    """On "read calc.py" the 1.5B read 'sessions/2026...jsonl:13', a source reference from its memory
    block: a message that only asks to see one file names the call, and nanobot makes it first."""
    agent = make_agent(home, ["Tool: read_file", '{"path": "sessions/x.jsonl:13"}', "Answer:", "It prints hi."])
    (agent.workspace / "greet.py").write_text("print('hi')\n")
    events, done = run(agent, "alice: read greet.py please")
    first = next(e for e in events if isinstance(e, ToolCall))
    assert (first.name, first.arguments["path"]) == ("read_file", "greet.py")
    assert next(e for e in events if isinstance(e, ToolResult)).ok


def test_a_note_of_nanobots_echoed_as_the_reply_is_no_answer(home):
    """The 1.5B answered "Summarize notes.txt in one sentence." with nanobot's own note to it, brackets
    dropped: "The call ran; answer the user in plain text from its result above, without another call."
    (it shares "call" with the file, so only its removal shows it is no answer)."""
    echo = "The call ran; answer the user in plain text from its result above, without another call."
    assert scrub(echo) == "" and scrub(f"Bob is to be called. {echo}") == "Bob is to be called."
    agent = make_agent(home, ["Tool: read_file", '{"path": "notes.txt"}', "Answer:", echo,
                              "Answer:", "Call Bob at 5pm about the invoice."])
    (agent.workspace / "notes.txt").write_text("Call Bob at 5pm about the invoice.\n")
    events, done = run(agent, "Summarize notes.txt in one sentence.")
    assert done.reply == "Call Bob at 5pm about the invoice." and "answer the user" not in done.reply


def test_not_trying_a_change_or_a_look_is_a_fault_only_when_the_tool_is_offered():
    """With no file tool in this chat, "On it." to "I need to add a --name option to greet.py" and
    "I cannot open files here." to "show me todo.md" are the honest replies: no retry asking for a
    call that cannot be made (it took the observer's scripted draft as its reply)."""
    change, look = "Today I need to add a --name option to greet.py using argparse.", "show me todo.md"
    assert check(change, "On it.", [], asked_change=True).problem  # a file tool exists: try it
    assert not check(change, "On it.", [], asked_change=True, offered=frozenset()).problem
    assert check(look, "I cannot open files here.", []).problem
    assert not check(look, "I cannot open files here.", [], offered=frozenset({"memory_search"})).problem
    assert check(look, "I cannot open files here.", [], offered=frozenset({"read_file"})).problem


def test_a_reply_that_tells_of_a_tool_instead_of_calling_it_is_retried_with_that_tool(home):
    """"Para leer el archivo `recipe.md`, puedes usar la función `read_file`": the model meant the call.
    The retry calls the named tool under its grammar; the user gets the file, not advice."""
    agent = make_agent(home, ["Answer:", "Para leer el archivo `recipe.md`, puedes usar la función `read_file`.",
                              '{"path": "recipe.md"}', "Answer:", "Es una receta de flan: 4 huevos."])
    (agent.settings.workspace / "recipe.md").write_text("# Flan\n- 4 huevos\n")
    events, done = run(agent, "¿Qué dice el archivo recipe.md?")
    assert agent.model.calls[2]["prefill"].startswith("Tool: read_file")
    assert [e.name for e in events if isinstance(e, ToolResult) and e.ok] == ["read_file"]
    assert "read_file" not in done.reply and "flan" in done.reply


CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"


def edit_calc(home, call: str, said: str, reply: str = "Done.") -> tuple[ToolResult, str]:
    """One scripted edit_file ``call`` on CALC for the message ``said``: its result and the file after."""
    agent = make_agent(home, ["Tool: edit_file", call, "Answer:", reply])
    (agent.workspace / "calc.py").write_text(CALC)
    events, _ = run(agent, said)
    return next(e for e in events if isinstance(e, ToolResult)), (agent.workspace / "calc.py").read_text()


def test_a_text_that_occurs_twice_is_replaced_in_the_definition_the_request_names(home):
    """"In calc.py, fix sub": the 1.5B's ``old`` "return a + b" occurs in add and in sub; the one in sub
    is replaced. Without a named definition the edit is still refused as ambiguous."""
    edit = '{"path": "calc.py", "old": "return a + b", "new": "return a - b"}'
    result, text = edit_calc(home, edit, "In calc.py, fix sub: it should return a - b")
    assert result.ok and text == "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    result, text = edit_calc(home, edit, "In calc.py, the function should return a - b", "I could not.")
    assert not result.ok and "occurs 2 times" in result.text and text == CALC


def test_an_edit_of_a_definition_the_request_does_not_name_is_kept_to_the_named_one(home):
    """"In calc.py, fix sub" once rewrote add as well (``return a + b`` -> ``return a - b``, a changed form
    the loss guard allows): where the request names a definition of the file, only the named ones take
    the edit (``namedonly``) and the result says what was kept; an edit that changes only unnamed
    definitions is refused and the file stays as it was."""
    both = ('{"path": "calc.py", "old": "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b", '
            '"new": "def add(a, b):\\n    return a - b\\n\\n\\ndef sub(a, b):\\n    return a - b"}')
    result, text = edit_calc(home, both, "In calc.py, fix sub: it should return a - b")
    assert result.ok and "add kept as it was" in result.text
    assert text == "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    only_add = '{"path": "calc.py", "old": "def add(a, b):\\n    return a + b", "new": "def add(a, b):\\n    return a * b"}'
    result, text = edit_calc(home, only_add, "In calc.py, fix sub: it should return a - b", "I could not.")
    assert not result.ok and "would change add in calc.py" in result.text and text == CALC




def test_an_edit_for_a_new_function_that_rewrites_an_existing_one_is_refused(home):
    """dev2, the 1.5B: "Add a function tip(total, pct) to pricing.py ..." was met by a forced edit that
    replaced split_bill whole (its rounding dropped: a destroyed line). A request that writes a function
    name as code the file does not have names none of its definitions: an edit that changes them is
    refused and the file stays; adding the new function after them is made."""
    rewrite = '{"path": "calc.py", "old": "add(a, b)", "new": "def add(a, b):\\n    return a * b"}'
    result, text = edit_calc(home, rewrite, "Add a function mul(a, b) to calc.py that multiplies", "I could not.")
    assert not result.ok and "would change add in calc.py" in result.text and text == CALC
    added = '{"path": "calc.py", "old": "    return a + b\\n\\n\\ndef sub", "new": "    return a + b\\n\\n\\ndef mul(a, b):\\n    return a * b\\n\\n\\ndef sub"}'
    result, text = edit_calc(home, added, "Add a function mul(a, b) to calc.py that multiplies")
    assert result.ok and "def mul(a, b):\n    return a * b" in text and text.count("return a + b") == 2
    result, text = edit_calc(home, rewrite, "make the first function in calc.py multiply")  # names no code
    assert result.ok and "return a * b" in text


def test_a_new_function_may_not_take_the_place_of_one_an_earlier_message_named(home):
    """dev2, the 1.5B: after "What does split_bill in pricing.py do?", "Add a function tip(total, pct)
    to pricing.py ..." was met by old "split_bill" -> new "tip", applied in split_bill's def line (the
    earlier question named it): split_bill renamed away. The message that writes a new function as code
    is the one whose names count: the edit is not applied and the file is kept."""
    stats = ("def subtotal(items):\n    return sum(items)\n\n\ndef average(items):\n    return sum(items) / len(items)\n"
             "\n\nprint(subtotal([1, 2]))\n")
    agent = make_agent(home, ["Tool: read_file", '{"path": "stats.py"}', "Answer:", "subtotal returns sum(items).",
                              "Tool: edit_file", '{"path": "stats.py", "old": "subtotal", "new": "mean"}',
                              "Answer:", "I could not."])
    (agent.workspace / "stats.py").write_text(stats)
    run(agent, "what does subtotal in stats.py do?")
    events, _ = run(agent, "Add a function mean(items) to stats.py")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok, result.text
    assert (agent.workspace / "stats.py").read_text() == stats


def test_a_reply_that_declines_after_a_refused_look_carries_the_tools_reason(home, tmp_path, monkeypatch):
    """nanobot started in a folder outside its roots: a read there is refused with the setting that allows
    it; the model's "I'm sorry, but I can't assist with that." goes out with that reason under it, with no
    retry (no model call more). A decline after a read of a file that is not there stands as it is."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "utils.py").write_text("def f():\n    return 1\n")
    monkeypatch.chdir(elsewhere)
    agent = make_agent(home, ["Tool: read_file", json.dumps({"path": "utils.py"}),
                              "Answer:", "I'm sorry, but I can't assist with that."])
    events, done = run(agent, "what does utils.py do?")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "add roots" in result.text
    assert done.reply == f"I'm sorry, but I can't assist with that.\n\n(nanobot: read_file failed: {result.text.strip()})"
    assert len(agent.model.calls) == 4  # the four scripted steps alone
    agent = make_agent(home, ["Tool: read_file", json.dumps({"path": "nope.py"}), "Answer:", "I'm sorry, I can't."])
    assert run(agent, "what does nope.py do?")[1].reply == "I'm sorry, I can't."


def test_a_reply_that_takes_a_refused_commands_setting_on_itself_is_told_the_users_part(home):
    """exec refused as not allowed names the setting and its file; "I will add it to the exec_allow list
    in my configuration file." promises what only the user can do: the refusal goes under it."""
    agent = make_agent(home, ["Tool: exec", json.dumps({"command": "echo 17 * 3"}), "Answer:",
                              'I will add "echo 17 * 3" to the `exec_allow` list in my configuration file.'],
                       exec_allow=["ls"])
    events, done = run(agent, "What is 17 times 3?")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert not result.ok and "config.toml" in result.text
    assert done.reply.endswith(f"(nanobot: exec failed: {result.text.strip()})")


def test_a_write_that_leaves_out_the_function_asked_for_is_retried_with_an_edit(home):
    """"Add a function inches_to_cm(inches) to convert.py ...": the 1.5B overwrote convert.py with its two
    old functions and nothing new, and the turn ended there. The name the message spells as code is in
    no file the turn wrote, before or after: the reply is asked again with edit_file, and the retried
    edit puts it in."""
    convert = "def km_to_miles(km):\n    return km / 1.609344\n"
    same = json.dumps({"path": "convert.py", "content": convert})
    add = json.dumps({"path": "convert.py", "old": "    return km / 1.609344\n",
                      "new": "    return km / 1.609344\n\n\ndef inches_to_cm(inches):\n    return inches * 2.54\n"})
    agent = make_agent(home, ["Tool: write_file", same, "Answer:", "I added inches_to_cm to convert.py.",
                              add, "Answer:", "inches_to_cm is in convert.py now."])
    (agent.workspace / "convert.py").write_text(convert)
    events, done = run(agent, "Add a function inches_to_cm(inches) to convert.py (1 inch is 2.54 cm).")
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["write_file", "edit_file"]
    assert "def inches_to_cm(inches)" in (agent.workspace / "convert.py").read_text()
    assert any("convert.py does not hold inches_to_cm" in e.text for e in events if isinstance(e, Notice))
    assert done.reply.endswith("inches_to_cm is in convert.py now.") and not done.corrected
    agent = make_agent(home, ["Tool: write_file", same, "Answer:", "Done."])  # a name the file held already
    (agent.workspace / "convert.py").write_text(convert)
    events, done = run(agent, "Tidy km_to_miles() in convert.py.")
    assert not any(isinstance(e, Notice) and "does not hold" in e.text for e in events)
    agent = make_agent(home, ["Tool: write_file", same, "Answer:", "Done."])  # a name another file it names holds
    (agent.workspace / "convert.py").write_text(convert)
    (agent.workspace / "style.py").write_text("def tidy_helper():\n    pass\n")
    events, done = run(agent, "Tidy convert.py the way tidy_helper in style.py is written.")
    assert not any(isinstance(e, Notice) and "does not hold" in e.text for e in events)
