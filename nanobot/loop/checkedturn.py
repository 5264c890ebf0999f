"""One turn's reply under the reply checks (``nanobot.loop.replycheck``): markup scrubbed from the
stream; a call the user spelled out, or the model wrote as text, run; a command the reply proposes for
an ask to run something, run; a reply cut at the token limit while it copied a look's output,
finished from the output (``stream.finished``); a reply that claims what did not happen, or states what it
never looked at, retried once with a note, then flagged with a correction.
``Agent._checked`` is ``checked``; the agent's history and transcript stay the agent's (``Agent.turn``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nanobot.backends.base import Generation, Message
from nanobot.core.events import Event, Notice, TextDelta, ToolCall, ToolResult, TurnDone
from nanobot.core.features import Agent
from nanobot.core.quoted import own_words, passed_on
from nanobot.loop.budget import BudgetSpent
from nanobot.loop.spelled import direct
from nanobot.loop.stream import finished

WRITTEN_RUNS = 2  # calls a turn runs from replies that wrote them as text (``nanobot.loop.written``)


def checked(agent: Agent, messages: list[Message], typed: str) -> Iterator[Event]:
    """``Agent.respond`` under the reply checks (``nanobot.loop.replycheck``): markup scrubbed from the
    stream; a reply that claims what did not happen, or states what it never looked at, is
    retried once with a note, then flagged with a correction. A step that finds the turn's budget
    spent (``loop.budget``) ends the turn with what the user has seen, the correction of the check whose
    retry it cut (what a run really printed, what was not saved) or, where nothing was said yet, what the
    turn's changes returned ("edit_file: edited convert.py at line 5"), and one line saying so."""
    shown: list[str] = []
    owed: list[str] = []  # the correction of the check whose retry is running: the truth, if the budget ends it
    made: list[str] = []  # what the turn's calls that change or keep something returned
    call: ToolCall | None = None
    try:
        for ev in _checked(agent, messages, typed, owed):
            if isinstance(ev, TextDelta):
                shown.append(ev.text)
            elif isinstance(ev, ToolCall):
                call = ev
            elif isinstance(ev, ToolResult) and ev.ok and call is not None and _changes(agent, call):
                made.append(f"{ev.name}: {(ev.text.splitlines() or [''])[0]}")
            yield ev
    except BudgetSpent:
        line, text = agent.budget.spent_line(), "".join(shown).strip()
        if owed and owed[-1]:  # what the retry was for (a run's real output, say) is still told
            line = f"{owed[-1]}\n\n{line}"
        elif not text and made:  # no reply yet: what the calls did is the turn's answer
            line = f"(nanobot: {'; '.join(dict.fromkeys(made))}.)\n\n{line}"
        elif not text:  # nothing above to point at
            line = agent.budget.spent_line("no reply was ready yet; ask again")
        yield TextDelta(text=f"\n\n{line}" if text else line)
        yield Notice(text=f"turn budget: {agent.budget.spent_what()} spent; answering with what there is",
                     level="warning")
        agent.transcript.append("event", "turn budget spent", used=dict(agent.budget.used))
        yield TurnDone(reply=f"{text}\n\n{line}".strip(), generation=agent.model.last, corrected=True)


def _changes(agent: Agent, call: ToolCall) -> bool:
    """Whether ``call`` is of a tool that changes or keeps something (``tools.effects``)."""
    from nanobot.tools.effects import Effect, effects_of

    tool = agent.tool_runner.tools.get(call.name) if agent.tool_runner is not None else None
    return tool is not None and bool(effects_of(tool, call.arguments) & {Effect.CHANGES, Effect.REMEMBERS})


def _checked(agent: Agent, messages: list[Message], typed: str, owed: list[str] | None = None) -> Iterator[Event]:
    from nanobot.loop.callpolicy import change_asked
    from nanobot.loop.replycheck import FROM_REPLY, LOOKED_FOR, check, kept_in_file, remember
    from nanobot.loop.runasked import as_typed, asked_run
    from nanobot.loop.spelled import asked, explicit
    from nanobot.loop.spelled import shown as tests_shown
    from nanobot.loop.stream import Echoes, Scrubber, scrub, unfenced
    from nanobot.loop.verdict import ANY_LOOK
    from nanobot.tools.repofacts import cut_copied, told

    seen: list[Event] = []  # tool events of every attempt: what ran this turn, for the checks
    agent.judge.context(typed, messages)
    answer = False  # the next reply answers from a run the user asked for, in words: no other tool first
    if agent.tool_runner is not None and (spelled := as_typed(explicit(typed, agent.tool_names()), typed, agent)
                                          or asked(typed, agent) or (answer := asked_run(typed, agent))):
        messages = yield from run_written_call(agent, spelled, messages, seen, "the call the user asked for ran")
        if shown := direct(typed, spelled, seen) or tests_shown(typed, spelled, seen):  # the whole message was the look
            return (yield from (TextDelta(text=shown), TurnDone(reply=shown, generation=Generation(), shown=True)))
        answer = bool(answer) and any(isinstance(e, ToolResult) and e.ok for e in seen)
    runs = attempt = 0  # calls run from written replies; retries after a failed check
    echoes = None  # the notes a check sent this turn, which the reply may echo (None: the fixed ones)
    tool = ""  # the tool a failed check's note names: the retry calls it (``ToolRunner.retry_tool``)
    while True:
        stream = Scrubber(echoes)
        replying = (agent.stream_reply(messages) if answer else agent.respond(messages) if not tool
                    else agent.tool_runner.retry_tool(agent, messages, tool))
        answer = False
        for ev in replying:
            if isinstance(ev, TextDelta):
                if shown := stream.feed(ev.text):
                    yield TextDelta(text=shown)
                continue
            if isinstance(ev, TurnDone):
                if rest := stream.finish():
                    yield TextDelta(text=rest)
                break
            if shown_by_tool(ev):
                kept_shown(agent, ev, seen)
            seen.append(ev)
            yield ev
        reply = unfenced(scrub(ev.reply, echoes)).strip()  # as the stream showed it
        if more := finished(reply, ev.generation.finish_reason == "length", seen):  # a copy cut short
            yield TextDelta(text=more)
            reply = f"{reply}{more}"
        if (runs < WRITTEN_RUNS and agent.budget.room() and agent.tool_runner is not None
                and (found := call_in_reply(typed, ev.reply, reply, agent, seen))):
            runs, (call, notice, problem, ran) = runs + 1, found
            yield Notice(text=f"reply check: {notice}", level="warning")
            agent.transcript.append("event", "reply check", problem=problem, attempt=runs - 1)
            messages = yield from run_written_call(agent, call, messages, seen, ran)
            yield TextDelta(text="\n\n")
            continue
        # judgements made from here on are asked after the reply: the next turn reuses it from the KV cache
        agent.judge.context(typed, [*messages, Message(role="assistant", content=reply)])
        earlier = messages[-1].content.split(typed, 1)[0]

        shown = " ".join(m.content for m in messages)  # all the model was shown: a value from it is no invention

        def checks(text: str, earlier: str = earlier, shown: str = shown, **which: Any) -> Any:
            return check(typed, text, seen, asked_change=lambda: change_asked(typed, agent) or remember(typed, agent)
                         or kept_in_file(typed, agent),
                         offered=frozenset(agent.tool_names()), earlier=earlier,
                         agent=agent, tools=agent.tool_runner.tools if agent.tool_runner is not None else None,
                         seen_text=shown, **which)

        section = prompt_repo(agent)  # answered from the prompt's repository facts, where it holds them whole
        passed = set(LOOKED_FOR if told(reply, section) and not cut_copied(reply, section) else ())
        result, own = checks(reply, skip=frozenset(passed)), None  # own words: read only when a check needs them
        while (result.problem and result.tool and result.rule in FROM_REPLY
               and (own := own or own_reply(agent, reply)) != reply and checks(own, only=result.rule).tool != result.tool):
            passed.add(result.rule)  # the tool was owed to text the reply passes on: that check has no say
            result = checks(reply, skip=frozenset(passed))
        if not result.problem:
            yield ev.model_copy(update={"reply": reply})
            return
        agent.transcript.append("event", "reply check", problem=result.problem, attempt=attempt, reply=reply[:400])
        if attempt == 1 and not result.correction:  # a retry was worth it, a correction is not
            yield ev.model_copy(update={"reply": reply})
            return
        if attempt == 1 or not result.retry or not agent.budget.room():  # no room: the correction, not a retry
            break
        attempt = 1
        if owed is not None:
            owed.append(result.correction)
        if result.call is not None and result.call[0] in agent.tool_names():  # the call the user's words name
            yield Notice(text=f"reply check: {result.problem}; running it", level="warning")
            messages = yield from run_written_call(agent, result.call, messages, seen, "the run the user asked for ran")
            echoes, tool, answer = None, "", True  # the reply is given again, from the run's output
            yield TextDelta(text="\n\n" if reply else "")
            continue
        if result.tool == "memory_add" and "memory_add" in agent.tool_names() and agent.provenance.facts():
            # a keeping owed for a message that gives its facts: the user's own words are it, nothing to author
            yield Notice(text=f"reply check: {result.problem}; keeping the message as the user wrote it", level="warning")
            messages = yield from run_written_call(agent, ("memory_add", {"text": typed}), messages, seen,
                                                   "the keeping the user asked for ran, with the user's own words")
            if (kept := seen[-1] if seen else None) and isinstance(kept, ToolResult) and kept.ok:
                # kept: the turn ends with the reply and where the words went -- a second reply adds nothing
                # true, and a small model asked again copies an earlier turn's answer
                line = f"(nanobot: kept in memory as you wrote it: {kept.text})"
                yield TextDelta(text=f"\n\n{line}" if reply else line)
                yield ev.model_copy(update={"reply": f"{reply}\n\n{line}".strip(), "corrected": True})
                return
            echoes, tool, answer = None, "", True  # the reply tells of it, in words
            yield TextDelta(text="\n\n" if reply else "")
            continue
        tool = result.tool if result.tool in agent.tool_names() or result.tool == ANY_LOOK else ""
        answer = result.answer and not tool
        yield Notice(text=f"reply check: {result.problem}; asking again", level="warning")
        last = messages[-1]
        earlier = without(messages[:-1], result)
        messages = [*earlier, Message(role=last.role, content=f"{last.content}\n\n{result.note}")]
        echoes = Echoes([result.note])
        yield TextDelta(text="\n\n" if reply else "")  # nothing shown yet: no blank line
    yield TextDelta(text=f"\n\n{result.correction}" if reply else result.correction)  # no blank line first
    yield Notice(text=f"reply check: {result.problem}", level="warning")
    yield ev.model_copy(update={"reply": f"{reply}\n\n{result.correction}".strip(), "corrected": True})


def without(earlier: list[Message], result: Any) -> list[Message]:
    """The session a retry sees: with ``result.bare`` the system message alone (the note holds the
    result); with ``result.copied``, without that reply and the message it answered, so the turns left
    still alternate (after stacked user messages a small model answers the first of them, or repeats it)."""
    if result.bare:
        return [m for m in earlier if m.role == "system"]
    if not result.copied:
        return earlier
    same = " ".join(result.copied.split())
    out: list[Message] = []
    for m in earlier:
        if m.role == "assistant" and " ".join(m.content.split()) == same:
            if out and out[-1].role == "user":
                out.pop()
            continue
        out.append(m)
    return out


def call_in_reply(typed: str, raw: str, reply: str, agent: Agent,
                  seen: list[Event]) -> tuple[tuple[str, dict], str, str, str] | None:
    """The call a reply holds instead of making it -- a call written as text (``written.written``), a change
    written out (``written_change``), a command proposed for the user to run (``written.reply_command``) --
    with the notice, the transcript's problem and how the note to the model says where it came from."""
    from nanobot.loop.stream import scrub
    from nanobot.loop.written import RAN, reply_command, written

    prov = agent.provenance
    others = [*prov.looked, *prov.retrieved]  # text the user did not write: it never makes a call run
    kept = any(isinstance(e, ToolResult) and e.ok and e.name == "memory_add" for e in seen)
    if (call := written(own_words(reply, others, prov.said, names=False), agent.tool_names())) and not (
            kept and call[0] == "memory_add"):  # a keeping made this turn is not made twice
        return call, f"the reply is a {call[0]} call written as text; running it", "call written as text", RAN
    if made := written_change(typed, reply, agent, seen):
        (call, how) = made
        return call, f"the reply writes the change to {call[1]['path']} {how}; making it", f"change written {how}", RAN
    if (call := reply_command(scrub(raw), agent, seen)) and not passed_on(call[1]["command"], others, prov.said):
        return (call, f"the reply proposes '{call[1]['command']}' for the user to run; running it",
                "command proposed, not run", "the command your reply proposed ran")
    return None


def prompt_repo(agent: Agent) -> str:
    """The system prompt's repository facts (``tools.repofacts``); "" where it has none."""
    return next((s.text for s in agent.system_prompt().sections if s.name == "repo"), "")


def own_reply(agent: Agent, reply: str) -> str:
    """The reply without what it passes on from a tool's output, memory or the prompt's Context
    (``core.quoted``): what may make a tool run."""
    prov = agent.provenance
    return own_words(reply, [*prov.looked, *prov.retrieved], prov.said)


def written_change(typed: str, reply: str, agent: Agent, seen: list[Event]) -> tuple[tuple[str, dict], str] | None:
    """The change the reply writes instead of calling, and how: its code (``written.reply_edit``: a
    definition of the named Python file in another form) or the file's own lines, changed
    (``written.lines_edit``); None when it writes none or the user asked for none."""
    from nanobot.loop.callpolicy import change_asked
    from nanobot.loop.written import lines_edit, reply_edit

    def asked() -> bool:
        from nanobot.loop.replycheck import kept_in_file

        return change_asked(typed, agent) or kept_in_file(typed, agent)

    if call := reply_edit(typed, reply, agent, seen, asked):
        return call, "as code"
    return (call, "as its lines") if (call := lines_edit(typed, reply, agent, seen, asked)) else None


def run_written_call(agent: Agent, call: tuple[str, dict], messages: list[Message], seen: list[Event],
                     ran: str = "the call you wrote ran") -> Any:
    """Run a call the model wrote as its reply (``nanobot.loop.written``), or one the user spelled
    out (``nanobot.loop.spelled``); its events are yielded and kept in ``seen``; returns the
    messages with its outcome, for the reply."""
    from nanobot.loop.written import run_written

    gen = run_written(agent, *call, messages, ran)
    while True:
        try:
            ev = next(gen)
        except StopIteration as stop:
            return stop.value
        if shown_by_tool(ev):
            kept_shown(agent, ev, seen)
        seen.append(ev)
        yield ev


def kept_shown(agent: Agent, ev: Event, seen: list[Event] | None = None) -> None:
    """A tool's result into the session's provenance: what a search brought (memory, the knowledge vault,
    the web) is retrieved text, as the memory block is, and so is a read of nanobot's own memory files
    (MEMORY.md, observations: ``_memory_read``); what another look or a run showed is seen."""
    from nanobot.tools.effects import Effect, effects_of

    tool = agent.tool_runner.tools.get(ev.name) if agent.tool_runner is not None else None
    call = next((e for e in reversed(seen or []) if isinstance(e, ToolCall) and e.name == ev.name), None)
    searched = tool is not None and Effect.SEARCHES in effects_of(tool) or _memory_read(agent, call)
    (agent.provenance.retrieved if searched else agent.provenance.looked).append(ev.text)
    agent.provenance.this_turn.append(ev.text)


def _memory_read(agent: Agent, call: ToolCall | None) -> bool:
    """Whether ``call`` read the workspace's MEMORY.md or an observation (its ``path``, or a word of its
    ``command``): memory already kept, never a fact the user gave to keep (a recall answered by reading
    MEMORY.md, or by ``cat MEMORY.md``, then its line kept again)."""
    import shlex
    from pathlib import Path

    args = (call.arguments or {}) if call is not None else {}
    paths = [str(args.get("path") or "")]
    if args.get("command"):  # a command that reads it ("cat MEMORY.md") shows memory too
        try:
            paths += shlex.split(str(args["command"]))[1:]
        except ValueError:
            pass
    paths = [p for p in paths if p]
    workspace = Path(agent.settings.workspace).expanduser().resolve() if paths else None
    for path in paths:
        try:
            target = (workspace / Path(path).expanduser()).resolve()
        except (OSError, ValueError):
            continue
        if target == workspace / "MEMORY.md" or workspace / "observations" in target.parents:
            return True
    return False


def shown_by_tool(ev: Event) -> bool:
    """A tool's result whose text the user's files or commands gave: a success, or a failure that is no
    refusal (edit_file's "not found" shows the file's text, which the next call may copy; a refusal
    quotes the refused call's own arguments, which must not become "seen")."""
    return isinstance(ev, ToolResult) and (ev.ok or not ev.refused)
