"""The reply checks about looks and answers: a reply must be an answer, must not imitate a tool's
output, must come from the look the user asked for (its words, a listing's entries), and must not
speak of the user's files with nothing looked at. Each check reads a turn's ``Facts`` and returns a
``CheckResult`` or None; ``nanobot.loop.replycheck.CHECKS`` runs them in order. Which call looked is
the tools' declared effects (``nanobot.tools.effects``: a memory or web search does not).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from pathlib import PurePath

from nanobot.base.safe_text import one_line
from nanobot.core.asks import _COMMAND, command_of
from nanobot.core.provenance import restated
from nanobot.loop.claims import (
    change_claimed_without_one,
    change_not_tried,
    failure,
    remember_not_tried,
)
from nanobot.loop.spelled import imitates
from nanobot.loop.verdict import ANY_LOOK, CheckResult, Facts, Outcome, from_reply
from nanobot.loop.wording import REPLY
from nanobot.tools.gitshort import short_data
from nanobot.tools.listing import COUNTS, entries, read

# No answer at all: empty, or only the opening of a call or a code block ("json: {", "```json",
# "json ```json {", "plaintext", "<tool_call>") -- what a small model leaves when its reply, meant to
# be a call, is stopped at the call
_NO_ANSWER = re.compile(r"\s*(?:(?:json|plaintext|text|python|bash)\s*:?\s*)?(?:`{1,3}[\w-]*\s*(?:`{1,3})?\s*)?"
                        r"(?:<tool_call>\s*)?[\[{]?\s*(?:`{1,3})?\s*", re.I)
_CALL_TEXT = re.compile(r"\{\s*\"name\"\s*:\s*\"([\w.-]+)\"\s*,\s*\"(?:arguments|parameters)\"\s*:")


def looker(f: Facts) -> str:
    """The tool that looks at what the user named: exec for a command (one ``tools.exec_allow`` admits
    that the message names: ``extra["command"]``), list_dir for a folder."""
    if f.extra.get("command") or (m := _COMMAND.search(f.user_text)) and command_of(m) == f.target:
        return "exec"
    return "list_dir" if f.target == "this folder" or f.target.endswith("/") or f.target in f.extra.get("folders", ()) \
        else "read_file"


def no_answer(f: Facts) -> CheckResult | None:
    """An empty reply, a bare code fence, a call's opening or the template's markup says nothing."""
    if not (_NO_ANSWER.fullmatch(f.reply) or "tool_response" in f.reply):
        return None
    what = "holds tool_response markup" if "tool_response" in f.reply else "is empty or only the opening of a call"
    shown = next((o for o in reversed(f.done) if o.ok and o.text.strip()), None)
    tail = f" {shown.name} returned:\n{shown.text[:800]}" if shown else ""
    result = f" {shown.name} returned:\n{shown.text[:1500]}\n" if shown else " "
    return CheckResult(  # the retry does not see this turn's tool steps: the result goes in the note
        problem=f"the reply {what}, not an answer",
        note=f"[nanobot: your reply was not an answer.{result}Answer the user now in plain sentences from "
             "this; no JSON, no code block, no function call.]",
        correction=f"(nanobot: the model gave no answer.{tail})")


REPEAT_RATIO = 0.8  # a reply this close to an earlier one (difflib's ratio over their starts) repeats it
REPEAT_MIN = 40  # characters: "Done." or "Yes." may well come twice
SAME_ASK = 0.7  # messages this close (difflib's ratio) ask nearly the same: a repeated answer may stand


def repeated_reply(f: Facts) -> CheckResult | None:
    """The reply repeats an earlier reply of this session, word for word or nearly, to another message
    (a small model copies its history: every request after a look answered with that look's summary).
    A fact of the session, not of any language. When the user named a file or folder nothing looked at
    this turn, the retry calls the tool that looks at it; a copied claim of a keeping, where the remember
    judgement leans to one, is the claim check's (``change_claimed_without_one``: the retry keeps this
    message's fact); when it named nothing, tried nothing, and the
    model's look judgement is a sure yes ("and what else is in there?"), the retry looks with the tool
    the runner picks (``ANY_LOOK``). The correction shows what a look of this turn returned, so the user
    still gets the file asked for."""
    reply = " ".join(f.reply.split())
    if parroted := _parroted(f, reply):
        return parroted
    if len(reply) < REPEAT_MIN:
        return None
    asked = " ".join(f.user_text.split()).lower()
    words = _words(reply)
    looked = set().union(*(_words(o.text) for o in f.done if o.text.strip()))
    if words and len(words & looked) >= 0.6 * len(words):
        return None  # from this turn's look or failure: the same file, or the same refusal, reads the same
    shown_now = set().union(*(_words(o.text) for o in f.done if o.ok))  # a reply that differs from an earlier
    # one where this turn's results do (another file edited, another count) reports this turn
    for user, earlier in f.extra.get("before", ()):
        said = " ".join(user.split()).lower()[-(len(asked) + 20):]  # its end: a memory block may come first
        if said.endswith(asked) or difflib.SequenceMatcher(None, asked, said, autojunk=False).ratio() >= SAME_ASK:
            continue  # the same message again, or nearly: the same answer may stand
        if repeats(reply, earlier) and not (words - _words(earlier)) & shown_now:
            if (untried := change_not_tried(f) or remember_not_tried(f)) is not None:
                return untried  # a change or a keeping asked and not tried: the retry makes it, not another look
            if f.remember_leans and (kept := change_claimed_without_one(f)) is not None and kept.tool:
                kept.copied = earlier  # an earlier keeping's claim copied to a message the model leans to
                return kept  # keep: the claim check's retry keeps this message's fact, without the copy
            shown = next((o for o in reversed(f.done) if o.ok and o.text.strip()), None)
            result = f" {shown.name} returned:\n{shown.text[:1500]}\n" if shown else " "
            changed = any(o.ok and o.changes for o in f.done)  # the change asked was made: answer from its result
            tool = looker(f) if f.target and not changed and not any(o.looks and _on(o, f) for o in f.done) else ""
            if tool and f.can(tool):  # what the user named is not looked at yet: the retry looks
                result = f" You have not looked at {f.target} this turn. Call {tool} for it now. "
            elif not tool and not f.target and not f.done and (f.offered is None or f.offered) and f.look_sure:
                tool = ANY_LOOK  # nothing named, nothing tried, a look judged asked: the retry looks, with
                result = " You have not looked this turn. Use a tool on this computer now. "  # the tool it picks
            return CheckResult(
                problem="the reply repeats an earlier reply to another message",
                tool=tool if tool == ANY_LOOK or tool and f.can(tool) else "",
                copied=earlier,  # the retry does not see the answer it copied
                answer=changed and not tool,  # the change asked was made: the retry tells of it, calling nothing
                note=f"[nanobot: your reply repeated your answer to an earlier message.{result}Answer this "
                     f"message now, in plain sentences: {f.user_text}]",
                correction="(nanobot: the reply above repeats an earlier answer; it does not answer this message."
                           + (f" {shown.name} returned:\n{shown.text[:800]})" if shown else ")"))
    return None


def said_before(f: Facts) -> bool:
    """Whether the reply is, word for word or nearly, one the session gave before (``REPEAT_RATIO``):
    its retry is asked without the earlier turns, or it copies the same again.

    >>> said_before(Facts("run the tests", "Yes, your last commit went through.", [],
    ...                   extra={"before": [("did my last commit go through?", "Yes, your last commit went through.")]}))
    True
    """
    reply = " ".join(f.reply.split())
    return bool(reply) and any(repeats(reply, earlier) for _, earlier in f.extra.get("before", ()))


def repeats(reply: str, earlier: str) -> bool:
    """Whether ``reply`` (spaces normalised) is ``earlier`` again, word for word or nearly: difflib's
    ratio over their starts is ``REPEAT_RATIO`` or more."""
    head = " ".join(earlier.split())[: len(reply) + 40]
    return difflib.SequenceMatcher(None, reply[:400], head[:400], autojunk=False).ratio() >= REPEAT_RATIO


PARROT_MIN = 20  # characters: a reply that copies an earlier message of the user this long is no answer


# a user's line of an earlier session in the turn's memory block (``memory.retriever.format_past``)
_PAST_USER = re.compile(r"^- [^\n]*?, User: (.+)$", re.M)


def _parroted(f: Facts, reply: str) -> CheckResult | None:
    """The reply is an earlier message of the user's, word for word or nearly -- of this session, or of an
    earlier one that the turn's memory block shows (``Facts.earlier``) -- and that message asked
    something other than this one: no answer to this message, a fact of the session in any language.
    Where this message asks for a change or a keeping and none was tried, the retry makes it."""
    if len(reply) < PARROT_MIN:
        return None
    asked = " ".join(f.user_text.split()).lower()
    past = [(m.group(1), "") for m in _PAST_USER.finditer(f.earlier)]  # retrieved from earlier sessions
    for user, _ in [*f.extra.get("before", ()), *past]:
        whole = " ".join(user.split()).lower()  # its end is compared: a memory block may come first
        if (difflib.SequenceMatcher(None, asked, whole[-(len(asked) + 20):], autojunk=False).ratio() >= SAME_ASK
                or difflib.SequenceMatcher(None, reply.lower(), whole[-(len(reply) + 20):], autojunk=False).ratio()
                < REPEAT_RATIO):
            continue  # that message asked nearly what this one asks, or the reply is not it
        was, f.reply = f.reply, ""  # the copy is no answer: its question mark asks nothing back
        try:
            untried = change_not_tried(f) or remember_not_tried(f)
        finally:
            f.reply = was
        if untried is not None:
            return untried  # as for a repeated reply: the retry makes the change or the keeping asked
        if restated(f.user_text, user):
            continue  # this message asks about what that one said (its fact asked back): told, not copied
        return CheckResult(problem="the reply repeats an earlier message of the user",
                           note=f"[nanobot: your reply repeated an earlier message of the user. Answer this message "
                                f"now, in plain sentences: {f.user_text}]",
                           correction="(nanobot: the reply above repeats an earlier message; it does not answer this one.)")
    return None


_RESULT_HEAD = re.compile(r"^\s*(\S+ lines \d+-\d+ of \d+)\b", re.M)  # read_file's own first line


def imitated_output(f: Facts) -> CheckResult | None:
    """nanobot's caption over a look it showed, copied: invented output passed off as a tool's; or a
    read's own first line ("notes.txt lines 1-1 of 1") that no read of this turn returned: an earlier
    turn's result copied from the history, to a message that asked something else."""
    heads = [m.group(1) for m in _RESULT_HEAD.finditer(f.reply)]
    copied = any(not any(o.ok and o.text.startswith(h) for o in f.done) for h in heads)
    if not (imitates(f.reply) or copied):
        return None
    return CheckResult(problem="the reply imitates nanobot's display of a tool's output",
                       note="[nanobot: never write a tool's output yourself. Answer the user in plain sentences "
                            "from what a tool returned this turn, or say what you could not do.]",
                       correction="(nanobot: the reply above imitates a tool's output; no such output was shown.)")


@from_reply
def call_as_text(f: Facts) -> CheckResult | None:
    """A reply holding a call's JSON is no answer: nothing ran. A call of a tool that is not offered
    ("git_log" for "Lancia git log --oneline per favore") where the user named something nothing looked
    at is retried as that look (``looker``: exec for an allowed command)."""
    if not (m := _CALL_TEXT.search(f.reply)):
        return None
    name, tool = m.group(1), ""
    if (f.offered is None or name not in f.offered) and f.target and not any(o.looks and _on(o, f) for o in f.done):
        tool = looker(f) if f.can(looker(f)) else ""  # no such tool: the look at what the user named is meant
    return CheckResult(
        problem=f"the reply is a {name} call written as text, not an answer", tool=tool,
        note=(f"[nanobot: there is no {name} tool and a call written in the reply does not run. Call {tool} "
              f"for {f.target} now.]" if tool else
              "[nanobot: a call written in the reply does not run. Call the tool, or answer the user in plain "
              "text, or say what you could not do.]"),
        correction=f"(nanobot: the reply above is a {name} call written as text; it did not run.)")


@from_reply
def told_of_tool(f: Facts) -> CheckResult | None:
    """The reply tells the user of a tool ("puedes usar la función `read_file`") that did not run this
    turn: the model meant to call it. Read from the offered tools' names, not the reply's language; a
    reply naming three or more tools lists what nanobot can do, and a tool the user named is theirs."""
    ran = {o.name for o in f.done}
    told = [name for name in sorted(f.offered or ()) if _names_tool(f.reply, name)]
    if not told or len(told) > 2 or any(t in ran or t in f.user_text for t in told):
        return None
    tool = told[0]
    return CheckResult(problem=f"the reply tells of {tool} instead of calling it", tool=tool,
                       note=f"[nanobot: the user cannot call {tool}; you can. Call {tool} now.]",
                       correction=f"(nanobot: the reply above names the {tool} tool; it did not run.)")


def _names_tool(reply: str, name: str) -> bool:
    """``name`` as an identifier in the reply: with an underscore, or in backticks, or called."""
    for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", reply):
        if "_" in name or reply[max(0, m.start() - 1):m.start()] == "`" or reply[m.end():m.end() + 1] in ("(", "`"):
            return True
    return False


def on_target(o: Outcome, target: str, folder: bool = False) -> bool:
    """Whether the call looked at ``target`` (a path the user named): an argument names it (its file
    name, or the path inside a command). "What does split_bill in pricing.py do?" answered after a
    read of LEIAME.md is no look at pricing.py; a listing of "." is no look at the ``folder`` trips. A
    target that is no path ("this folder", a command) and a call whose arguments are not known count
    as on it.

    >>> on_target(Outcome("read_file", {"path": "src/pricing.py"}, True, ""), "pricing.py")
    True
    >>> on_target(Outcome("read_file", {"path": "LEIAME.md"}, True, ""), "pricing.py")
    False
    >>> on_target(Outcome("read_file", {"path": "test_pricing.py"}, True, ""), "pricing.py")
    False
    >>> on_target(Outcome("exec", {"command": "python3 pricing.py --dry"}, True, ""), "pricing.py")
    True
    >>> on_target(Outcome("list_dir", {"path": "."}, True, ""), "trips", folder=True)
    False
    """
    if o.args is None or not (folder or re.search(r"[./]", target)) or target == "this folder":
        return True
    want = target.rstrip("/").lower()
    name = PurePath(want).name
    whole = re.compile(rf"(?<![\w.-]){re.escape(want)}(?![\w.-])")  # the path itself, not a longer name
    values = [str(v).lower() for v in o.args.values() if isinstance(v, str)]
    return not values or any(whole.search(v) or (name and PurePath(v.rstrip("/")).name == name) for v in values)


def _on(o: Outcome, f: Facts) -> bool:
    """``on_target`` for the turn's target, a folder the message names counted as one."""
    return on_target(o, f.target, f.target in f.extra.get("folders", ()))


_CONFIG = re.compile(r"[\w.-]+\.toml\b")  # the config file a refusal names, where the setting that allows it is


def look_failed(f: Facts) -> CheckResult | None:
    """Every look at the target failed and the reply speaks of the target anyway; or every look failed, the
    last failure names the setting that would allow it (its config file: "... not one of nanobot's roots;
    to allow it, add roots = [...] under [tools] in ~/.nanobot/config.toml"), and the reply does not name
    that file ("I'm sorry, but I can't assist with that.", "I will add it to the exec_allow list in my
    configuration file."): only the user can change the setting, so the tool's words go under the reply,
    with no retry."""
    tried = [o for o in f.done if o.looks]
    if (tried and not any(o.ok for o in tried) and (conf := _CONFIG.search(tried[-1].text))
            and conf.group(0) not in f.reply):
        why = one_line(tried[-1].text.strip().splitlines()[0] if tried[-1].text.strip() else "failed")[:400]
        return CheckResult(problem=f"the reply declines without the reason {tried[-1].name} gave", retry=False,
                           correction=f"(nanobot: {tried[-1].name} failed: {why})")
    looks = [o for o in f.done if o.looks and _on(o, f)]
    if not f.target or not looks or any(o.ok for o in looks) or REPLY["denial"].search(f.reply):
        return None
    if relays(f.reply, looks[-1].text, f.user_text):
        return None
    return failure(looks[-1], "the reply speaks of {target} but looking failed: {first}",
                   "[nanobot: {name} failed ({first}). Tell the user; do not describe {target}.]",
                   "(nanobot: {name} failed: {first}. The reply above is not from {target}.)", target=f.target)


RELAYED = 2  # words of a failure's error the user did not say, at least, for a reply to pass the failure on


def relays(reply: str, error: str, user_text: str) -> bool:
    """The reply passes the failure on in its own words: it carries words of the error that the user's
    message does not ("add it to exec_allow in config.toml"; "utils.py is in /home/me/proj, not a root").
    Read from the error the tool gave, so it holds in any language the model answers the error in."""
    return len((_words(reply) & _words(error)) - _words(user_text)) >= RELAYED


_VALUE = re.compile(r"[\w.:/-]*\d[\w.:/-]*")  # a value a reply gives: a word with a digit ("3.64", "16th")
_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")


def new_values(reply: str, shown: str) -> list[str]:
    """The values (words with a digit) of ``reply`` that ``shown`` does not hold, a number rounded from
    one it holds aside ("3.64" for 3.639)."""
    numbers = [float(n) for n in _DECIMAL.findall(shown)]

    def rounded(v: str) -> bool:
        places = len(v.split(".")[1]) if "." in v else 0
        return bool(_DECIMAL.fullmatch(v)) and any(round(n, places) == float(v) for n in numbers)

    return [v for w in _VALUE.findall(reply) if (v := w.strip(".:/-")) not in shown and not rounded(v)]


def output_unrun(f: Facts) -> CheckResult | None:
    """The message names a program the allow list runs (``extra["program"]``: "python3 tides.py"), and
    the reply gives a value (a word with a digit) that nothing this turn showed -- not the message, a
    read, a run: a program's output worked out from its source, or invented. Only where the model's run
    judgement leans yes (``extra["run_leans"]``; "what does tides.py do?" does not). With no run of it
    this turn the program runs as the user's words name it (``call``: never from the reply's words) and
    the reply is given again from its output; after its run the reply is asked again from the output,
    which goes under it if the retry misreads it too."""
    command = f.extra.get("program", lambda: "")()
    new = command and new_values(f.reply, " ".join([f.user_text, *(o.text for o in f.done)]))
    if not new or not f.extra.get("run_leans", lambda: False)():
        return None
    ran = [o for o in f.done if o.ok and "runs" in o.effects and command.split()[-1] in str((o.args or {}).get("command"))]
    if not ran:
        return CheckResult(problem=f"the reply gives {new[0]}, which no run of {command} showed this turn",
                           call=("exec", {"command": command}),
                           correction=f"(nanobot: {command} did not run this turn; the reply above is not its output.)")
    out = ran[-1].text
    return CheckResult(problem=f"the reply gives {new[0]}, which the output of {command} does not show", answer=True,
                       note=f"[nanobot: {command} printed:\n{out[:1500]}\nYour reply gave {new[0]}, which this output "
                            "does not show. Answer the user's message now from this output, in plain sentences.]",
                       correction=f"(nanobot: {new[0]} is not in what {command} printed:\n{out[:800]})")


def value_unshown(f: Facts) -> CheckResult | None:
    """Every call this turn looked (a read, a command, a listing) and nothing changed, and the reply gives
    a value that nothing showed: a word with a digit (a bare number of two digits or more) in none of the
    message, the looks' output or anything else the model was shown (``extra["seen"]``: the prompt, the
    session, the retrieved block). A small model fills in a value it did
    not find ("peak_c went from 1000 to 1238" under a diff that shows 1222). The reply is asked again from
    the last look's output; the retried reply stands (a value worked out -- a sum, a date written another
    way -- is the model's to give), so the check costs one reply at most."""
    looked = [o for o in f.done if o.ok and o.looks]
    if not looked or any(o.changes for o in f.done):
        return None
    shown = " ".join([f.user_text, f.earlier, f.extra.get("seen", ""), *(o.text for o in f.done)])
    new = [v for v in new_values(f.reply, shown) if not v.isdigit() or len(v) >= 2]
    if not new:
        return None
    last = looked[-1]
    return CheckResult(problem=f"the reply gives {new[0]}, which nothing {last.name} showed holds", answer=True,
                       note=f"[nanobot: {last.name} returned:\n{last.text[:1500]}\nYour reply gave {new[0]}, which "
                            "this output does not show. Answer the user's message now from this output, in plain "
                            "sentences.]")


def not_from_look(f: Facts) -> CheckResult | None:
    """The look succeeded and the reply shares no word with it, or copies the retrieved block. After a
    change of the target that succeeded, the reply is held to the change instead (``not_of_change``)."""
    shown = [o for o in f.done if o.looks and o.ok and not o.changes and _on(o, f)]
    if not f.target or not shown:
        return None
    if changed := [o for o in f.done if o.changes and o.ok and _on(o, f)]:
        return not_of_change(f, changed[-1])
    flat = " ".join(f.reply.lower().split())
    copied = (copied_from(flat, " ".join(f.earlier.lower().split()))
              and all(_foreign(f.reply, o.text) for o in shown))  # copied, and mostly not the result's words
    missed = [unanswered(f.user_text, f.reply, o.text) for o in shown]
    if not (all(missed) or copied):
        return None
    if not copied and (answer := listing_answer(f, shown[-1])):
        return answer
    name, body = shown[-1].name, missed[-1] or shown[-1].text
    return CheckResult(  # the retry does not see this turn's tool steps: the result goes in the note
        problem=f"the reply says nothing of what {name} showed", bare=said_before(f),
        note=f"[nanobot: your reply did not use what {name} returned:\n{body[:1500]}\nAnswer the user's "
             "message now from this result, in plain sentences.]",
        correction=f"(nanobot: the reply above is not from {f.target}; {name} returned:\n{body[:800]})")


def not_of_change(f: Facts, o: Outcome) -> CheckResult | None:
    """A change of the target succeeded and the reply says nothing of it: no word of what the change
    added beyond what it replaced (an edit's ``new`` less its ``old``), where that is more than the
    user's own words, nor, for a change that replaces nothing (a write), the file's name. "The word count of letter.txt is 10."
    after a weekday's spelling was fixed is not about the fix."""
    args = o.args or {}
    old, new = str(args.get("old", "")), str(args.get("new", args.get("content", "")))
    added = _words(new) - _words(old)
    if added <= _words(f.user_text) or not unanswered("", f.reply, " ".join(sorted(added))):
        return None  # the change writes only the user's own words (any reply will do), or the reply tells it
    if "old" not in args and PurePath(str(args.get("path", ""))).name.lower() in f.reply.lower():
        return None
    what = f"{o.text}: {old.strip()[:120]!r} -> {new.strip()[:120]!r}" if old else o.text
    return CheckResult(
        problem=f"the reply says nothing of the change {o.name} made",
        note=f"[nanobot: {o.name} made the change ({what}). Tell the user what changed, in plain sentences.]",
        correction=f"(nanobot: the reply above is not about the change; {o.name}: {what})")


def declined_without_look(f: Facts) -> CheckResult | None:
    """"I'm sorry, but I can't help with that." with nothing tried: retried with the look; stands after.
    A message that names nothing to look at is retried so when the model's own look judgement is a sure
    yes ("now make sure the tests still pass": "I don't have the ability to run tests"), with the
    looking tool the runner picks (``ANY_LOOK``). A reply that leaves a slot for the value it does not
    have ("The most recent commit is: [commit-hash]") declines the same way."""
    slot = not f.target and REPLY["placeholder"].search(f.reply)
    if f.done or not (REPLY["denial"].search(f.reply) or slot) or REPLY["absent"].search(f.reply):
        return None
    if not f.target:
        if f.offered is not None and not f.offered or not f.look_sure:
            return None
        return CheckResult(problem="the reply declines a look the model judges asked, untried", tool=ANY_LOOK,
                           note="[nanobot: you have not tried. Look it up on this computer with a tool now.]")
    if not f.can(looker(f)):
        return None
    tool = looker(f)
    return CheckResult(problem=f"the reply declines {f.target} without looking", tool=tool,
                       note=f"[nanobot: you have not tried to look at {f.target}. Call {tool} for it now.]")


def not_looked(f: Facts) -> CheckResult | None:
    """The reply speaks of what the user asked to see, and nothing looked this turn: invented."""
    if (not f.target or any(o.looks and _on(o, f) for o in f.done) or only_asks(f.reply)
            or (REPLY["denial"].search(f.reply) and not REPLY["absent"].search(f.reply))):
        return None
    tool = looker(f)
    return CheckResult(
        problem=f"the reply speaks of {f.target} but nothing was read or run this turn",
        note=f"[nanobot: you have not looked at {f.target} this turn. Call {tool} for it now, or say you cannot.]",
        correction=f"(nanobot: {f.target} was not read or run this turn; the reply above is not from it.)", tool=tool)


ABSENT_MIN = 2  # file names the reply gives that are not there, at least, to be an invented listing


def absent_listed(f: Facts) -> CheckResult | None:
    """The reply names files that are not in the roots (``extra["absent"]``: a function giving the file-shaped
    names there is no such file for, ``tools.named``'s "new"), the user named none of them, no look
    succeeded this turn and the model is sure the message asks to look: an invented listing ("list every
    file at the top of this project" answered "README.md, LICENSE.md, ..."; a failed read of a file that is
    not there answered with a listing no tool showed). A fact of the roots, in any language: retried
    with list_dir, then corrected."""
    if any(o.looks and o.ok for o in f.done) or "absent" not in f.extra:
        return None
    absent = [a for a in f.extra["absent"]() if a.lower() not in f.user_text.lower()]  # a walk of the roots
    if len(absent) < ABSENT_MIN or not f.look_sure:  # then the model's judgement
        return None
    shown = ", ".join(absent[:3])
    return CheckResult(
        problem=f"the reply names files that are not there ({shown}) and no look succeeded",
        tool="list_dir" if f.can("list_dir") else "",
        note=f"[nanobot: there is no {shown} here; nothing you looked at showed them. Call list_dir now, or say "
             "you do not know.]",
        correction=f"(nanobot: {shown} are not in the workspace; no look showed them this turn.)")


def only_asks(reply: str) -> bool:
    """The reply is a question back and states nothing first ("Which file do you mean?"); a reply that
    tells something and then asks "¿Tienes alguna otra pregunta?" states.

    >>> only_asks("Which file do you mean?"), only_asks("It says: flan. Anything else?")
    (True, False)
    """
    body = reply.strip()
    return body.endswith("?") and not re.search(r"[.!:;](?:\s|$)", body[:-1])


COPY_MIN = 24  # characters a reply copied from the retrieved block holds at least
COPY_SHARE = 0.8  # of the reply, in one piece of the retrieved block


def copied_from(reply: str, earlier: str) -> bool:
    """Whether most of ``reply`` (``COPY_SHARE``, at least ``COPY_MIN`` characters) is one piece of
    ``earlier``: an earlier answer copied, a word or two put in front ("Yes, the top 21 files ...").

    >>> copied_from("yes, the top 3 files are: a.md, b.md, c.md", "- the top 3 files are: a.md, b.md, c.md (sessions/x:2)")
    True
    >>> copied_from("the log shows 3 commits: quokka, trip notes, garden log", "- the top 3 files are: a.md, b.md")
    False
    """
    if len(reply) < COPY_MIN or not earlier:
        return False
    m = difflib.SequenceMatcher(None, reply, earlier, autojunk=False).find_longest_match(0, len(reply), 0, len(earlier))
    return m.size >= max(COPY_MIN, COPY_SHARE * len(reply))


def _foreign(reply: str, result: str) -> bool:
    """Whether less than half of the reply's words are words of the result."""
    words = _words(reply)
    return len(words & _words(result)) * 2 < len(words)


# The reply checks about a folder listing: a reply that names none of the entries a listing showed.
#
# "There are 14 files and 9 folders here." may be the answer ("how many files are here?") or not
# ("which files are here?"); which one only the message's meaning says. So such a reply stands, and the
# listing goes under it, without a retry and without calling it wrong: the user has the names either way.
# A count that is none of the listing's (its files, its folders, both together) is not from it: retried
# with the listing, then corrected. ``not_from_look`` hands a listing of the folder the
# message names to ``listing_answer``; ``listing_unnamed`` is the same for a message that names none
# ("which files are here?"), where the model's look judgement must be a sure yes.

_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.]*\d)")


def names_any(reply: str, names: list[str]) -> bool:
    """Whether the reply names an entry, whole or without its suffix, as a word ("old" is no word of "folders")."""
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", reply, re.I)
               for name in names for n in {name, PurePath(name).stem} if n)


def listing_answer(f: Facts, o: Outcome) -> CheckResult | None:
    """For a listing ``o`` whose entries the reply does not name: the listing under the reply, or, where
    the reply gives a count the listing does not, a retry with it; None when ``o`` is no listing or
    the reply names an entry."""
    listing = read(o.text)
    if not listing or not listing.names or names_any(f.reply, listing.names):
        return None
    where = str((o.args or {}).get("path", "")) or "the folder"
    body = f"{listing.notes}\n{listing.body}".strip()  # its own notes too: "this is nanobot's workspace, not ..."
    if {int(n) for n in _NUMBER.findall(f.reply)} - listing.counts:
        return CheckResult(
            problem=f"the reply's count is not what {o.name} showed",
            note=f"[nanobot: your reply did not use what {o.name} returned:\n{o.text[:1500]}\nAnswer the user's "
                 "message now from this result, in plain sentences.]",
            correction=f"(nanobot: the reply above is not from {where}; {o.name} returned:\n{body[:800]})")
    return CheckResult(problem=f"the reply names nothing {o.name} showed", retry=False,
                       correction=f"(nanobot: {o.name} {where} showed:\n{body[:800]})")


def listing_unnamed(f: Facts) -> CheckResult | None:
    """A listing ran for a message that names nothing to look at, the model sure that it asks to see,
    list or count something, and the reply names none of its entries (``listing_answer``)."""
    listed = [o for o in f.done if o.looks and o.ok and entries(o.text)]
    if f.target or not listed or names_any(f.reply, entries(listed[-1].text) or []) or not f.look_sure:
        return None
    return listing_answer(f, listed[-1])


# Whether a reply to "show me / run X" says anything of what the look showed (``unanswered``).
#
# The look ran and succeeded and the reply shares no word with its result ("Done.", a canned "I'm sorry,
# but I can't help with that.", an earlier answer copied from the history): ``replycheck.check`` retries
# it once with the result in the note (the retry does not see the turn's tool steps), else shows the user
# the result itself as a correction: they asked to see it.
#
# Words are compared, not meaning: the result's words (numbers too; a word and its longer form,
# "add"/"adds"), less the tool's own header ("todo.md lines 1-3 of 3", "exit 0") and the words of the
# user's message, against the reply's. A listing's count names none of its entries. A file read whole
# shows its length, and how many of its lines open with the same word ("There are 2 functions in
# utils.py."): those answer, and are never words to miss. A reply in other words entirely costs one retry,
# not a wrong answer.

_HEADER = re.compile(rf"\A(?:exit -?\d+|\S+ lines \d+-\d+ of \d+|\S+: empty file|\S+: {COUNTS})\s*$\n?", re.M)
_WHOLE = re.compile(r"\A\S+ lines 1-(\d+) of (\d+)\s*$", re.M)  # a read's header, when it showed the whole file
_READ = re.compile(r"\A\S+ lines \d+-\d+ of \d+\s*$", re.M)  # a read's header (a listing's counts do not answer)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_COMMON = frozenset(
    "an and are as at be but by can do does file for from has have he her his how if in into is it its me my no "
    "not of on or our result says she so that the their them then there these they this those to up us was we "
    "were what when which who will with you your".split())


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text))
            if w.isdigit() or (len(w) >= 2 and w not in _COMMON)}


def _shares(reply: set[str], shown: set[str]) -> bool:
    if reply & shown:
        return True
    return any(len(a) >= 3 and len(b) >= 3 and (a.startswith(b) or b.startswith(a)) for a in reply for b in shown
               if not a.isdigit() and not b.isdigit())


def unanswered(user_text: str, reply: str, result: str) -> str:
    """The result's body (what the look showed) when ``reply`` says nothing of it; "" when it does,
    or when there was nothing to show.

    >>> unanswered("show me todo.md", "Done.", "todo.md lines 1-2 of 2\\n# Todo\\n- buy milk")
    '# Todo\\n- buy milk'
    >>> unanswered("show me todo.md", "You need to buy milk.", "todo.md lines 1-2 of 2\\n- buy milk")
    ''
    >>> unanswered("run date", "It printed nothing.", "exit 0")  # nothing shown: nothing to miss
    ''
    >>> unanswered("what is in trips?", "There are 21 entries in trips.", "trips: 2 files\\noslo.md\\nrome.md")
    'oslo.md\\nrome.md'
    >>> unanswered("What files are in trips?", "There are 2 files.", "trips: 2 files\\noslo.md\\nrome.md")
    'oslo.md\\nrome.md'
    >>> unanswered("How many lines are in packing.txt?", "It has 2 lines.", "packing.txt lines 1-2 of 2\\npassport\\nadapter")
    ''
    >>> unanswered("show me big.txt", "It has 300 lines.", "big.txt lines 1-2 of 300\\nalpha\\nbeta")
    'alpha\\nbeta'
    >>> unanswered("how many functions are in u.py?", "It has 2.", "u.py lines 1-4 of 4\\ndef a():\\n  pass\\ndef b():\\n  pass")
    ''
    >>> unanswered("how many functions are in u.py?", "It has 3.", "u.py lines 1-4 of 4\\ndef a():\\n  pass\\ndef b():\\n  pass")
    'def a():\\n  pass\\ndef b():\\n  pass'
    """
    body = _HEADER.sub("", result, count=1).strip()
    shown = _words("\n".join(short_data(ln) if ln.startswith("In short: ") else ln for ln in body.splitlines()))
    shown -= _words(user_text)  # nanobot's own In short wording is no word of the look (``tools.gitshort``)
    if not shown or body == "(no output)":
        return ""
    if (whole := _WHOLE.match(result)) and whole.group(1) == whole.group(2):  # a file read whole: its length
        shown = shown | {whole.group(1)}  # answers too; it is never a word to miss
    if _READ.match(result):  # a read: how many lines open with one word answers a count
        opened = Counter(ln.split()[0] for ln in body.splitlines() if ln.split())
        shown = shown | {str(n) for n in opened.values() if n > 1}  # one of a kind is every line's first word
    return "" if _shares(_words(reply), shown) else body


# A reply that speaks of the user's files with nothing looked at this turn, where the model judges the
# message asks for something read or run here: "you can run the test_pricing.py script again" to "now
# make sure the tests still pass", or a listing of files given from memory.
#
# Read from facts, not from the reply's wording: the reply names a file that exists in the roots
# (``tools.named``, in any language), no tool was tried this turn, the user's message names nothing to
# look at (``not_looked`` has that case), and the model's own look judgement of the message
# is a sure yes (``loop.judge``: a right answer needs something read or run on this computer now). A
# command the reply names does not count: the look judgement also says yes to how-to questions ("what
# command shows the last commit?"), whose answer is the command. The retry
# makes the look with the looking tool the runner picks; a reply that still names the files unlooked
# then stands.

def named_unlooked(f: Facts) -> CheckResult | None:
    """The reply names the user's files, nothing was tried, and the model judges the message asks for
    something read or run here: retried with a look."""
    if f.done or f.target or (f.offered is not None and not f.offered):
        return None
    names = f.extra.get("files", lambda: [])()  # the reply's paths in the roots (``replycheck.reply_paths``)
    if not names or not f.look_sure:
        return None
    return CheckResult(problem=f"the reply speaks of {names[0]} but nothing was read or run this turn",
                       tool=ANY_LOOK, note=f"[nanobot: you have not looked. Use a tool on this computer for "
                                           f"{names[0]} now and answer from its result.]")
