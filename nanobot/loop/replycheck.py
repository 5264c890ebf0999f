"""Reply checks: what a reply may not say, checked in code against what happened this turn.

- **Markup.** nanobot's own markup (the memory block's headers, ``(said: "...")`` quotes, source
  references like ``(observations/20261123-150749-8fbf.md:1)``, ``[tool NAME ...]`` notes, and the
  ``(nanobot: ...)`` corrections and ``[nanobot: ...]`` notes a model copies from its history) never
  reaches the user: ``Scrubber`` removes it from the stream, holding back only an unclosed bracket.
- **False success.** After a failed change (a file tool, memory_add, knowledge_apply, a task_board
  or scratchpad change, an MCP tool) with no successful one, or when no tool that can change
  anything ran (none at all, or only look-ups: a read, a search, a task list), a reply that claims a
  change ("I've updated ...", "saved successfully"; not a bare "successfully": "greet.py was read
  successfully" claims nothing) is false.
- **Asked change not made.** The user asked to change a file (a change word and a file name), no file
  tool (write_file, edit_file, exec, an MCP tool) succeeded this turn, and the reply claims a change:
  another tool's success (a task added, a memory noted) is not the file the user asked about.
- **Asked change not tried.** The user asked to change a file (not a how/what question) and no tool
  ran: whatever the reply says ("The file todo.md contains: - buy oat milk", copied from an earlier
  turn) the change is only told. Retried with the change tool; a reply that declines without
  trying is retried too and then stands.
- **Memory is not a file.** Only memory changed this turn (memory_add) and the reply claims a file
  (other than MEMORY.md/USER.md) was changed.
- **A call written as text.** A reply holding a tool call's JSON (``{"name": ..., "arguments": ...}``,
  as a template-tool model writes one after the step decided to answer) is no answer: nothing ran.
- **No answer.** An empty reply, a bare code fence, only a call's opening (``json: {``) or one holding
  the template's ``tool_response`` markup says nothing to the user.
- **Not from the look.** The user asked to see or run something, the look succeeded, and the reply
  shares no word with its result ("Done.", a canned refusal, an earlier turn's answer copied):
  ``nanobot.loop.answered``; the note carries the result, the correction shows it.
- **Not looked.** The user named a file, folder or command and asked to see or run it, no tool that
  shows files or runs commands ran this turn (a memory or web search does not; or every call failed),
  and the reply neither says it cannot nor asks back: its content is invented. "It does not exist" /
  "there is no such file" is content too (a model can say so of a file that is there). Declining with
  no tool tried at all ("I'm sorry, but I can't help with that.", copied from an earlier turn) is
  retried with the look; if the retry declines again, that reply stands (no correction). The retry's note names
  the tool that looks (exec for a command, list_dir for a folder, read_file for a file).

``Agent.turn`` retries a failing reply once with a note saying what went wrong (``CheckResult.note``)
and otherwise flags it: a correction line is added to the reply and a warning shown.

>>> scrub('Your name is Priya. (said: "I am Priya") (observations/20261123-150749-8fbf.md:1)')
'Your name is Priya.'
>>> looks_at("please read notes.txt"), looks_at("what is 2+2?")
('notes.txt', '')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from nanobot.core.asks import _COMMAND, _DIR, _FILE, _HERE, _LOOK, _NOT_FILES, looks_at  # noqa: F401 (re-exported)
from nanobot.core.events import ToolCall, ToolResult
from nanobot.core.provenance import unasked
from nanobot.loop.answered import _words, unanswered
from nanobot.loop.shown import imitates

HEADERS = ("Relevant Memory:", "Related Context:")
_SOURCE = re.compile(r"\s*\((?:said: \"[^\"\n]*\"|[\w./-]+\.(?:md|txt|jsonl?)(?::\d+(?:-\d+)?)?)\)")
_NANOBOT = re.compile(r"\s*(?:\(nanobot: [^()]*\)|\[nanobot: [^\[\]]*\])")
_TOOL_NOTE = re.compile(r"^\s*\[tool [\w.-]+ .*\b(?:result|error)\]\s*$", re.M)
_HEADER_LINE = re.compile(r"^\s*(?:#+\s*)?(?:Relevant Memory|Related Context):\s*$\n?", re.M)
_CUT_SOURCE = re.compile(r"\s*\((?:said:|observations/|knowledge/|MEMORY\.md|USER\.md|[\w./-]+\.md:)[^)]*$")  # cut by max_tokens
HOLD_MAX = 240  # an unclosed "(" or "[" older than this is released as it is

CHANGERS = {"write_file", "edit_file", "knowledge_apply", "memory_add", "task_board", "scratchpad"}
_ACTIONS = {"task_board": {"add", "update", "remove"}, "scratchpad": {"write", "clear", "append"}}  # their changes
_NOT_LOOKING = {"memory_search", "memory_add", "knowledge_search", "task_board", "scratchpad", "skill_manager",
                "tool_search", "web_search", "web_fetch", "message"}  # none shows a local file or runs a command
_VERBS = r"(?:created|updated|edited|written|wrote|saved|added|changed|modified|fixed|deleted|removed|renamed|replaced|appended|inserted|stored|remembered)"
_CLAIM = re.compile(rf"\b(?:I(?:'ve| have)?\s+(?:now\s+|successfully\s+|also\s+)?{_VERBS}|(?:has|have)\s+(?:now\s+)?been\s+(?:successfully\s+)?{_VERBS}|"
                    rf"{_VERBS}\s+successfully|successfully\s+{_VERBS}|the user edited|is now (?:saved|updated|created|stored|in))\b",
                    re.I)  # not a bare "successfully": "greet.py was read successfully" claims no change
_DONE = re.compile(rf"\b(?:{_VERBS}|done|deleted)\b", re.I)  # "File hello.txt created.": a claim when a change was asked
_DENIAL = re.compile(r"\b(?:fail|failed|failure|error|could ?n[o'’]t|can(?:no|['’]| no)t|unable|not found|did ?n[o'’]t|"
                     r"was ?n[o'’]t|not (?:been )?(?:changed|created|updated|edited|saved|able)|no (?:access|tool)|sorry|gave up|give up|"
                     r"does ?n[o'’]t exist|do ?n[o'’]t exist|no such|there (?:is|are) no|is ?n[o'’]t (?:there|any))\b", re.I)
# "X does not exist" / "there is no X" states what is on disk: it needs a look like any content does
_ABSENT = re.compile(r"\b(?:not found|does ?n[o']t exist|do ?n[o']t exist|no such|there (?:is|are) no|is ?n[o']t (?:there|any)|"
                     r"there is ?n[o']t|no,? there is)\b", re.I)
_ASKS_HOW = re.compile(r"\s*(?:how|what|why|where|when|which|who|should|would)\b", re.I)  # a question about a change
_FILE_TOOLS = {"write_file", "edit_file", "exec"}  # what changes a file the user names (and MCP tools)
_MEMORY_FILES = {"memory.md", "user.md"}
# No answer at all: empty, or only the opening of a call or a code block ("json: {", "```json",
# "json ```json {", "plaintext", "<tool_call>") -- what a template-tool model leaves when its reply,
# meant to be a call, is stopped at the call
_NO_ANSWER = re.compile(r"\s*(?:(?:json|plaintext|text|python|bash)\s*:?\s*)?(?:```[\w-]*\s*(?:```)?\s*)?"
                        r"(?:<tool_call>\s*)?[\[{]?\s*(?:`{1,3})?\s*", re.I)
_CALL_TEXT = re.compile(r"\{\s*\"name\"\s*:\s*\"([\w.-]+)\"\s*,\s*\"(?:arguments|parameters)\"\s*:")


# nanobot's own notes to the model (templatecalls.AFTER_CALL/REASK, textcall.run_written), echoed without
# their brackets ("The call ran; answer the user in plain text ..."): removed from the reply
_ECHOED = (r"(?:the call(?: the user asked for| you wrote)? ran; answer the user in plain text from its result "
           r"above(?:, without another call)?\.?|your reply was empty\. answer the user in plain text now\.?)")
_ECHO = re.compile(rf"\s*{_ECHOED}", re.I)
_ECHO_START = regex.compile(_ECHOED, regex.I)  # its partial matches: the stream holds a note's start back


def scrub(text: str) -> str:
    """``text`` without nanobot's markup (see the module docstring)."""
    text = _TOOL_NOTE.sub("", _HEADER_LINE.sub("", _CUT_SOURCE.sub("", _SOURCE.sub("", _NANOBOT.sub("", text)))))
    text = _ECHO.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text)


class Scrubber:
    """``scrub`` over a stream: ``feed(piece)`` returns what is safe to show now, ``finish()`` the rest."""

    def __init__(self) -> None:
        self.pending = ""

    def feed(self, piece: str) -> str:
        self.pending += piece
        cut = self._hold(self.pending)
        out, self.pending = self.pending[:cut], self.pending[cut:]
        return scrub(out)

    def finish(self) -> str:
        out, self.pending = self.pending, ""
        return scrub(out)

    @staticmethod
    def _hold(text: str) -> int:
        cut = len(text)
        for open_, close in (("(", ")"), ("[", "]")):
            i = text.rfind(open_)
            if i >= 0 and close not in text[i:] and len(text) - i < HOLD_MAX:
                cut = min(cut, len(text[:i].rstrip(" ")))  # with the space a removed source takes along
        for m in re.finditer(r"(?<![^\s.!?])[TtYy]", text[max(0, len(text) - HOLD_MAX):]):
            start = max(0, len(text) - HOLD_MAX) + m.start()  # a sentence that may be an echoed note
            if _ECHO_START.fullmatch(text, pos=start, partial=True):
                cut = min(cut, len(text[:start].rstrip()))
                break
        line = text.rfind("\n") + 1
        tail = text[line:].lstrip(" #")
        if tail and any(h.startswith(tail) for h in HEADERS):
            cut = min(cut, line)
        return cut


def remember(user_text: str) -> bool:
    """The user asks to remember or note something (a change to memory).

    >>> remember("Please remember that my favourite colour is green."), remember("what do you remember?")
    (True, False)
    """
    return bool(re.search(r"\b(?:remember|memori[sz]e|note|save)\b(?!\s*\?)", user_text, re.I)) and not user_text.rstrip().endswith("?")


@dataclass
class CheckResult:
    problem: str = ""  # "" when the reply may stand
    note: str = ""  # for the model, on a retry
    correction: str = ""  # for the user, when the retry did not help ("": the retried reply stands)
    tool: str = ""  # the tool the note asks for: the retry calls it directly (``ToolRunner.retry_tool``)


def outcomes(events: list) -> list[tuple[str, dict | None, bool, str]]:
    """(tool, arguments or None, ok, text) per tool result of a turn; the arguments are those of the
    ``ToolCall`` just before (a call whose arguments did not validate has none)."""
    out, last = [], None
    for e in events:
        if isinstance(e, ToolCall):
            last = e
        elif isinstance(e, ToolResult):
            args = last.arguments if last is not None and last.name == e.name else None
            out.append((e.name, args, e.ok, e.text))
            last = None
    return out


def _changing(name: str, args: dict | None) -> bool:
    """Whether a call can have changed something (exec: any command may; an MCP tool: SERVER.TOOL)."""
    if name in _ACTIONS and args is not None:
        return str(args.get("action", "")) in _ACTIONS[name]
    return name in CHANGERS or name == "exec" or "." in name


def _looker(user_text: str, target: str) -> str:
    """The tool that looks at what the user named: exec for a command, list_dir for a folder."""
    if (m := _COMMAND.search(user_text)) and (m.group(1) or m.group(2)).strip() == target:
        return "exec"
    return "list_dir" if target == "this folder" or target.endswith("/") else "read_file"


def _changer(user_text: str) -> str:
    """The tool a change request needs, for the retry's note."""
    if remember(user_text):
        return "memory_add"
    if re.search(r"\b(?:create|new|write)\b", user_text, re.I) and _FILE.search(user_text):
        return "write_file"
    return "edit_file" if _FILE.search(user_text) else "the tool that makes the change"


def _failure(outcome: tuple, problem: str, note: str, correction: str, **fields: str) -> CheckResult:
    """The result for a reply that ignores a failed call (``outcome`` as ``outcomes`` gives it): the
    three texts name ``{name}``, ``{first}`` (the first line of its error) and any ``fields``.

    >>> _failure(("read_file", None, False, "not found: a.txt\\nmore"), "{name}: {first}", "", "").problem
    'read_file: not found: a.txt'
    """
    name, _, _, text = outcome
    values = {"name": name, "first": text.splitlines()[0][:200] if text else "failed", **fields}
    return CheckResult(problem=problem.format(**values), note=note.format(**values),
                       correction=correction.format(**values))


def check(user_text: str, reply: str, events: list, asked_change: bool = False,
          offered: frozenset[str] | None = None, earlier: str = "") -> CheckResult:
    """The reply of one turn against its tool events (``ToolCall``/``ToolResult``); ``asked_change``:
    the user asked for a change (then a bare "created." or "Done." is a claim too); ``offered``: the
    tools this chat has (None: any). Not trying a change or a look is a fault only when the tool
    for it is offered: with none, "On it." or "I can't open files here" is the honest reply.
    ``earlier``: what the model was shown before the user's message (the retrieved block): a look's
    reply copied from it is not from the look, whatever words it shares with the result (a past
    conversation's "The file docs/guide.md has 2 lines. The first line ..." shares "first" with a git
    log's "first notes")."""
    def can(tool: str) -> bool:
        return offered is None or tool in offered

    done = outcomes(events)
    if _NO_ANSWER.fullmatch(reply) or "tool_response" in reply:
        what = "holds tool_response markup" if "tool_response" in reply else "is empty or only the opening of a call"
        shown = next((o for o in reversed(done) if o[2] and o[3].strip()), None)
        tail = f" {shown[0]} returned:\n{shown[3][:800]}" if shown else ""
        result = f" {shown[0]} returned:\n{shown[3][:1500]}\n" if shown else " "
        return CheckResult(  # the retry does not see this turn's tool steps: the result goes in the note
            problem=f"the reply {what}, not an answer",
            note=f"[nanobot: your reply was not an answer.{result}Answer the user now in plain sentences from "
                 "this; no JSON, no code block, no function call.]",
            correction=f"(nanobot: the model gave no answer.{tail})")
    if imitates(reply):  # nanobot's caption over a look it showed, copied: invented output passed off as a tool's
        return CheckResult(problem="the reply imitates nanobot's display of a tool's output",
                           note="[nanobot: never write a tool's output yourself. Answer the user in plain sentences "
                                "from what a tool returned this turn, or say what you could not do.]",
                           correction="(nanobot: the reply above imitates a tool's output; no such output was shown.)")
    changes = [o for o in done if o[0] in CHANGERS and _changing(o[0], o[1])]
    claims = bool(_CLAIM.search(reply) or (asked_change and _DONE.search(reply))) and not _DENIAL.search(reply)
    if claims and changes and not any(o[2] for o in changes):
        return _failure(changes[-1], "the reply claims success but {name} failed: {first}",
                        "[nanobot: {name} failed ({first}); nothing was changed. Tell the user it failed; do not claim success.]",
                        "(nanobot: {name} failed: {first}. Nothing was changed.)")
    if claims and not any(ok and _changing(name, args) for name, args, ok, _ in done):
        what = "no tool ran this turn" if not done else "no tool changed anything this turn"
        return CheckResult(
            problem=f"the reply claims a change but {what}",
            note=f"[nanobot: {what}, so nothing was changed. Call {_changer(user_text)} now, or say you did not change anything.]"
            if asked_change else _answer_note(user_text, what, done),
            correction=f"(nanobot: {what}; nothing was changed.)", tool=_changer(user_text) if asked_change else "")
    if claims and (miss := _asked_file_not_changed(user_text, reply, done, asked_change)):
        return CheckResult(
            problem=f"the reply claims a change but {miss}",
            note=f"[nanobot: {miss}, so the file is unchanged. Call {_changer(user_text)} now, or say you did not change it.]",
            correction=f"(nanobot: {miss}; the file is unchanged.)", tool=_changer(user_text))
    # a call refused as nobody's ask is no try; any other call is one, file tool or not: a retry that
    # forces edit_file after another tool was tried risks a wrong change where "not made" is only a miss
    tried = [o for o in done if o[2] or not unasked(o[3])]
    if (asked_change and not tried and _FILE.search(user_text) and not remember(user_text)
            and not _ASKS_HOW.match(user_text) and not reply.rstrip().endswith("?") and can(_changer(user_text))):
        tool, declined = _changer(user_text), bool(_DENIAL.search(reply))
        return CheckResult(  # "The file todo.md contains: - buy oat milk" with nothing run: the change is only told
            problem=f"the user asked to change a file but {'the reply declines without trying' if declined else 'no tool ran'}",
            note=f"[nanobot: nothing was changed: no tool ran this turn. Call {tool} now to make the change, or say you cannot.]",
            correction="" if declined else "(nanobot: nothing was changed this turn.)", tool=tool)
    if m := _CALL_TEXT.search(reply):
        return CheckResult(
            problem=f"the reply is a {m.group(1)} call written as text, not an answer",
            note="[nanobot: a call written in the reply does not run. Call the tool, or answer the user in plain "
                 "text, or say what you could not do.]",
            correction=f"(nanobot: the reply above is a {m.group(1)} call written as text; it did not run.)")
    target = looks_at(user_text)
    looks = [o for o in done if o[0] not in _NOT_LOOKING]
    if target and looks and not any(o[2] for o in looks) and not _DENIAL.search(reply):
        return _failure(looks[-1], "the reply speaks of {target} but looking failed: {first}",
                        "[nanobot: {name} failed ({first}). Tell the user; do not describe {target}.]",
                        "(nanobot: {name} failed: {first}. The reply above is not from {target}.)", target=target)
    shown = [o for o in looks if o[2] and o[0] not in CHANGERS]
    copied = (len(flat := " ".join(reply.lower().split())) >= 24 and flat in " ".join(earlier.lower().split())
              and all(_foreign(reply, o[3]) for o in shown))  # copied, and mostly not the result's words
    if target and shown and (all(missed := [unanswered(user_text, reply, o[3]) for o in shown]) or copied):
        name, body = shown[-1][0], missed[-1] or shown[-1][3]
        return CheckResult(  # the retry does not see this turn's tool steps: the result goes in the note
            problem=f"the reply says nothing of what {name} showed",
            note=f"[nanobot: your reply did not use what {name} returned:\n{body[:1500]}\nAnswer the user's "
                 "message now from this result, in plain sentences.]",
            correction=f"(nanobot: the reply above is not from {target}; {name} returned:\n{body[:800]})")
    if (target and not looks and not done and _DENIAL.search(reply) and not _ABSENT.search(reply)
            and can(_looker(user_text, target))):
        tool = _looker(user_text, target)  # "I'm sorry, but I can't help with that." without trying
        return CheckResult(problem=f"the reply declines {target} without looking", tool=tool,
                           note=f"[nanobot: you have not tried to look at {target}. Call {tool} for it now.]")
    if target and not looks and (_ABSENT.search(reply) or not _DENIAL.search(reply)) and not reply.rstrip().endswith("?"):
        tool = _looker(user_text, target)
        return CheckResult(
            problem=f"the reply speaks of {target} but nothing was read or run this turn",
            note=f"[nanobot: you have not looked at {target} this turn. Call {tool} for it now, or say you cannot.]",
            correction=f"(nanobot: {target} was not read or run this turn; the reply above is not from it.)", tool=tool)
    return CheckResult()


def _foreign(reply: str, result: str) -> bool:
    """Whether less than half of the reply's words are words of the result."""
    words = _words(reply)
    return len(words & _words(result)) * 2 < len(words)


def _answer_note(user_text: str, what: str, done: list) -> str:
    """The retry's note for a change claimed where none was asked ("What's on my todo list?" answered
    "I have successfully remembered ..." as the turns before it were): the user's message again, and what a
    look showed, to answer from -- not "or say you did not change anything", which became the whole reply."""
    shown = next((o for o in reversed(done) if o[2] and o[0] not in _NOT_LOOKING and o[3].strip()), None)
    result = f" {shown[0]} returned:\n{shown[3][:1500]}\n" if shown else " "
    return (f"[nanobot: {what} and none was asked for; do not say anything was changed, saved or remembered."
            f"{result}Answer the user's message now: {user_text}]")


def _asked_file_not_changed(user_text: str, reply: str, done: list, asked_change: bool) -> str:
    """Why a claimed file change did not happen ("" when it may have): the user asked for a change to a
    file and no file tool succeeded, or only memory changed and the reply names a file."""
    if any(ok and (name in _FILE_TOOLS or "." in name) for name, _, ok, _ in done):
        return ""
    named = [m.group(1) for m in _FILE.finditer(user_text) if m.group(1).lower() not in _NOT_FILES | _MEMORY_FILES]
    if asked_change and named and not remember(user_text):
        return f"{named[0]} was asked to change and no file tool succeeded this turn"
    changed = {name for name, args, ok, _ in done if ok and _changing(name, args)}
    noted = " ".join(text for name, _, ok, text in done if ok and name == "memory_add")  # where memory wrote it
    in_reply = [m.group(1) for m in _FILE.finditer(reply) if m.group(1).rsplit("/", 1)[-1].lower() not in _NOT_FILES | _MEMORY_FILES
                and m.group(1) not in noted]  # "added to observations/notes-...md" when memory_add wrote there
    if changed == {"memory_add"} and (in_reply or re.search(r"\bfiles?\b", reply, re.I)):
        return "only memory changed this turn (memory_add), no file"
    return ""
