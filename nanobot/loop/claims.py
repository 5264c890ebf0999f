"""The reply checks about changes, and what a reply says back: a reply that claims a change must
have one behind it, a change or a keeping the user asked for must be tried, and a reply that restates
the user's message, or is that message again, is read as such. Each check reads a turn's ``Facts``
(``nanobot.loop.verdict``) and returns a ``CheckResult`` or None (no objection);
``nanobot.loop.replycheck.CHECKS`` runs them in order. Which call changed what is the tools' declared
effects (``nanobot.tools.effects``); what the *reply* claims is read from its text
(``nanobot.loop.wording``: the model's words, not the user's).
"""

from __future__ import annotations

import difflib
import re
from difflib import SequenceMatcher
from pathlib import PurePath

from nanobot.base.shorten import shorten
from nanobot.core.asks import _FILE, _NOT_FILES
from nanobot.core.provenance import Provenance, Refusal, facts_of, is_question
from nanobot.loop.verdict import CheckResult, Facts, Outcome, from_reply
from nanobot.loop.wording import REPLY, USER
from nanobot.tools.effects import Effect

_MEMORY_FILES = {"memory.md", "user.md"}


def claims(f: Facts) -> bool:
    """The reply claims a change (a bare "Done." too when one was asked) and does not deny one: in the
    English list's words, else by the model's sure reading of the reply (``Facts.claimed``, asked only
    where the user asked for a change or leans to a keeping: "C'est noté", "Anotado")."""
    if REPLY["denial"].search(f.reply):
        return False
    return bool(REPLY["claim"].search(f.reply) or (REPLY["done"].search(f.reply) and f.asked_change)) or f.claimed


def changer(f: Facts) -> str:
    """The tool a change request needs, for the retry's note: memory for a remember request, a new file's
    writer where the file the message names first is not there and a new file is asked
    (``replycheck._new_files``), else the editor."""
    if f.remembers:
        return "memory_add"
    named = [m.group(1) for m in _FILE.finditer(f.user_text)]
    new = f.extra.get("new_files", ())
    if named and any(PurePath(n).name == PurePath(named[0]).name for n in (new() if callable(new) else new)):
        return "write_file"
    if named and not f.extra.get("roots_known") and USER["create"].search(f.user_text):
        return "write_file"
    return "edit_file" if named else "the tool that makes the change"


def failed_change_claimed(f: Facts) -> CheckResult | None:
    """A change failed, none succeeded, and the reply claims success. A fact to keep refused for what it
    left out of the user's words (``Refusal.UNSAID``) is kept on the retry: memory_add is called again."""
    changes = [o for o in f.done if o.changes]
    if not (changes and not any(o.ok for o in changes) and claims(f)):
        return None
    last = changes[-1]
    if last.refused == Refusal.UNSAID and f.can(last.name):
        result = failure(last, "the reply claims success but {name} failed: {first}",
                         "[nanobot: {name} failed ({first}); nothing was kept. Call {name} again with the fact "
                         "in the user's own words.]", "(nanobot: {name} failed: {first}. Nothing was kept.)")
        result.tool = last.name
        return result
    return failure(last, "the reply claims success but {name} failed: {first}",
                   "[nanobot: {name} failed ({first}); nothing was changed. Tell the user it failed; do not claim success.]",
                   "(nanobot: {name} failed: {first}. Nothing was changed.)")


ECHO_CHARS = 50  # a run this long shared with a failed call's error: the reply repeats the error


def failure_echoed(f: Facts) -> CheckResult | None:
    """The reply repeats a failed change's error (its instructions to the model, the file's text it
    showed) instead of answering: "The file's text is: ... Call edit_file again with old copied exactly
    from it". Retried with the same tool, which is what the error asks for. (A failed look's error,
    "not found: x.md", told to the user is an answer.)"""
    from difflib import SequenceMatcher

    reply = " ".join(f.reply.split())
    for o in reversed(f.done):
        if o.ok or o.unasked or not o.changes or not o.text.strip():
            continue
        error = " ".join(o.text.split())
        run = SequenceMatcher(None, reply, error, autojunk=False).find_longest_match(0, len(reply), 0, len(error))
        if run.size < ECHO_CHARS:
            continue
        result = failure(o, "the reply repeats {name}'s error instead of answering",
                         "[nanobot: {name} failed: {first}. Call {name} again with arguments that fix it, "
                         "or tell the user in one sentence what failed.]",
                         "(nanobot: {name} failed: {first}; nothing was changed.)")
        result.tool = o.name if f.can(o.name) else ""
        return result
    return None


def failure_untold(f: Facts) -> CheckResult | None:
    """A file change the model tried failed, none succeeded, and the reply neither claims it nor tells of
    a failure: it answers something else (what a read before it showed), and the user would not learn
    that the file is unchanged. Retried once with the same tool; if that fails too, the failure is told
    in a correction. A change refused as nobody's ask is no try; a tool that changes no file (an MCP
    server's, which a retry would call again) is not this check's."""
    tried = [o for o in f.done if Effect.CHANGES in o.effects and o.changes and o.on_path and not o.unasked]
    if not tried or any(o.ok for o in tried) or REPLY["denial"].search(f.reply) or claims(f):
        return None
    result = failure(tried[-1], "{name} failed and the reply does not say so",
                     "[nanobot: {name} failed: {first}. Call {name} again with arguments that fix it, "
                     "or tell the user in one sentence what failed.]",
                     "(nanobot: {name} failed: {first}; nothing was changed.)")
    result.tool = tried[-1].name if f.can(tried[-1].name) else ""
    return result


@from_reply
def change_claimed_without_one(f: Facts) -> CheckResult | None:
    """No call that can change anything succeeded, and the reply claims a change."""
    if any(o.ok and o.may_change for o in f.done) or not claims(f):
        return None
    what = "no tool ran this turn" if not f.done else "no tool changed anything this turn"
    if not f.asked_change and f.can("memory_add") and f.remember_leans:  # the reply speaks as if it kept a fact
        if recalls(f.user_text):
            return None  # the reply gives a kept fact back: a keeping forced here could only copy one
        return CheckResult(  # the model half judged it asked to be kept: its claim is the second signal
            problem=f"the reply claims a change but {what}",
            note=f"[nanobot: {what}, so nothing was kept. If the user's message gives a fact to keep, call "
                 "memory_add now with it in the user's words; otherwise say you did not keep anything.]",
            correction=f"(nanobot: {what}; nothing was kept.)", tool="memory_add")
    owed = f.asked_change and _owed_after_look(f)
    return CheckResult(
        problem=f"the reply claims a change but {what}",
        note=f"[nanobot: {what}, so nothing was changed. Call {changer(f)} now, or say you did not change anything.]"
        if owed else answer_note(f.user_text, what, f.done),
        correction=f"(nanobot: {what}; nothing was changed.)", tool=changer(f) if owed else "")


def recalls(text: str) -> bool:
    """Whether a message asks for a kept fact rather than gives one: a question (its question mark, in
    any script) with no fact of its own (``Provenance.facts``: a number, a quote, a name). "Remember the
    code for my bike lock? Tell me." leans to a keeping by its first word, and its reply "The code for my
    bike lock is 6083." reads as a claim to have kept it."""
    return is_question(text) and not facts_of(text)


def _owed_after_look(f: Facts) -> bool:
    """Whether a change the reply only claims may be retried with the change tool: before any look, as
    the message asks; after one, only on the model's sure change judgement, as ``change_not_tried``
    has it. A reply that retells what a look showed ("the last commit changed glazes.md") claims in
    the words of the look, and a change word of the message ("commit", "fix" in a question) is no
    ask; the call policy refuses that change anyway, so the retry would only cost a reply."""
    return not (f.judged and any(o.looks and o.ok for o in f.done)) or bool(f.change_sure)


def asked_file_not_changed(f: Facts) -> CheckResult | None:
    """The reply claims a change of a file, but no file tool succeeded (only memory changed)."""
    if any(o.ok and o.changes_file for o in f.done) or not claims(f) or not (miss := _file_missed(f)):
        return None
    if not _owed_after_look(f):
        return CheckResult(problem=f"the reply claims a change but {miss}", note=answer_note(f.user_text, miss, f.done),
                           correction=f"(nanobot: {miss}; the file is unchanged.)")
    return CheckResult(
        problem=f"the reply claims a change but {miss}",
        note=f"[nanobot: {miss}, so the file is unchanged. Call {changer(f)} now, or say you did not change it.]",
        correction=f"(nanobot: {miss}; the file is unchanged.)", tool=changer(f))


def change_not_tried(f: Facts) -> CheckResult | None:
    """The user asked to change a file and no call that can change anything was tried (a look is no try:
    a read then the file's text as the reply changed nothing; a call refused as nobody's ask is none
    either): the change is only told. Retried with the change tool; a reply that declines stands after it.
    After a look only the model's sure change judgement asks for the change, not the wording ("What does
    the add function in calc.py do?" holds "add"). A command that failed to run is no try either (a test
    file the model guessed, not there, for "square_area in shapes.py returns 12 ... Please fix it."). An
    edit refused for putting in a value nobody gave (``Refusal.UNGIVEN``) was a try: asked again, the
    model would write one again."""
    tried = [o for o in f.done if o.may_change and (o.ok or not o.unasked or o.refused == Refusal.UNGIVEN)
             and (o.ok or Effect.RUNS not in o.effects)]  # an edit refused for a value nobody gave was the try
    looked = any(o.looks and o.ok for o in f.done)
    if (tried or (looked and not f.change_sure) or not _FILE.search(f.user_text) or not f.asked_change or f.remembers
            or (not f.judged and USER["asks_how"].match(f.user_text))
            or f.reply.rstrip().endswith("?") or not f.can(changer(f))):
        return None
    tool, declined = changer(f), bool(REPLY["denial"].search(f.reply))
    return CheckResult(
        problem=f"the user asked to change a file but {'the reply declines without trying' if declined else 'no tool ran'}",
        note=f"[nanobot: nothing was changed: no tool ran this turn. Call {tool} now to make the change, or say you cannot.]",
        correction="" if declined else "(nanobot: nothing was changed this turn.)", tool=tool)


_CALLED = re.compile(r"(?<![\w.$/-])([A-Za-z_$][\w$]+)\((?!s\))|`([A-Za-z_$][\w$]+)(?:\([^`]*\))?`"
                     r"|(?<![\w.$/-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w$/-]|\.\w)")


def code_names(text: str) -> list[str]:
    """The names a message spells as code: written as a call ("vat(amount, rate)", "inches_to_cm()";
    "file(s)" is no call), in backticks, or joined by underscores ("a test for inches_to_cm"; not a
    file's name), in any language of the message.

    >>> code_names("Füge in basket.py eine Funktion vat(amount, rate) hinzu"), code_names("rename `subtotal` please")
    (['vat'], ['subtotal'])
    >>> code_names("Now write a test for inches_to_cm in test_convert.py."), code_names("the file(s) in my_docs/")
    (['inches_to_cm'], [])
    """
    return list(dict.fromkeys(a or b or c for a, b, c in _CALLED.findall(text)))


def name_not_written(f: Facts) -> CheckResult | None:
    """A file tool wrote this turn, and a name the message spells as code (``code_names``) that none of
    the written files held before is in none of them after: the code the user asked for was not put
    in ("Add a function inches_to_cm(inches) to convert.py" answered by a ``write_file`` of convert.py
    that holds only the old functions). Facts only: the files' texts before the turn's first write to
    each and on disk now, and the other files the message names (a name one of them holds is spoken of,
    not asked for). Retried with edit_file on the file the message names."""
    if not any(o.ok and o.changes and o.on_path for o in f.done) or not code_names(f.user_text) or f.remembers:
        return None
    written = f.extra.get("written")
    files = written() if callable(written) else written or {}
    missing = [n for n in code_names(f.user_text) if not any(
        re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", text) for pair in files.values() for text in pair)]
    if not missing or not f.can("edit_file"):
        return None
    named = [p for p in files if PurePath(p).name in f.user_text] or list(files)
    where, what = PurePath(named[0]).name, ", ".join(missing)
    return CheckResult(
        problem=f"a file was written but {where} does not hold {what}, which the user asked for",
        note=f"[nanobot: {where} does not hold {what} yet: the change asked for is not made. Call edit_file on "
             f"{where} to add it, keeping everything that is there.]",
        correction=f"(nanobot: {where} does not hold {what}: the change asked for was not made.)", tool="edit_file")


def remember_not_tried(f: Facts) -> CheckResult | None:
    """The user asked to remember something (the model's sure judgement in any language, else the
    wording) and nothing was saved or changed: no call that remembers was tried. Retried with
    memory_add, whatever the reply says ("Merk ich mir!" claims it in words no list holds). A reply
    that asks back stands; a question ("Quando é o aniversário da minha mãe?", "Remember the code for my
    bike lock? Tell me.": ``recalls``) recalls, and a message
    that names a file ("I can't remember what I wrote in a.md") is about the file: neither is this. A
    memory_add refused as holding what the user never said (an older fact copied from memory) saved
    nothing of the user's: the keeping is still owed (``loop.checkedturn`` keeps the message as written)."""
    if (f.target or _FILE.search(f.user_text) or f.user_text.rstrip().endswith(("?", "？")) or recalls(f.user_text)
            or not f.can("memory_add")
            or f.reply.rstrip().endswith("?") or not f.keeps or not f.gives_facts):
        return None  # a message with no fact of its own and nothing said before it: a retry could only invent one
    if any(Effect.REMEMBERS in o.effects and (o.ok or not (o.unasked or o.refused == Refusal.UNSAID))
           or o.ok and o.may_change for o in f.done):
        return None  # a keeping tried (one refused for holding what the user never said is none of the user's)
    return CheckResult(
        problem="the user asked to remember something but nothing was saved",
        note="[nanobot: nothing was saved: no tool ran this turn. Call memory_add now with the fact, in the user's words.]",
        correction="(nanobot: nothing was saved to memory this turn.)", tool="memory_add")


def failure(outcome: Outcome, problem: str, note: str, correction: str, **fields: str) -> CheckResult:
    """The result for a reply that ignores a failed call: the three texts name ``{name}``, ``{first}``
    (the first line of its error) and any ``fields``.

    >>> failure(Outcome("read_file", None, False, "not found: a.txt\\nmore"), "{name}: {first}", "", "").problem
    'read_file: not found: a.txt'
    >>> failure(Outcome("edit_file", None, False, "refused: " + "word " * 60), "{first}", "", "").problem.endswith(" word…")
    True
    """
    first = shorten(outcome.text.splitlines()[0], 200) if outcome.text.strip() else "failed"  # at a word or clause
    values = {"name": outcome.name, "first": first, **fields}
    return CheckResult(problem=problem.format(**values), note=note.format(**values),
                       correction=correction.format(**values))


def answer_note(user_text: str, what: str, done: list[Outcome]) -> str:
    """The retry's note for a change claimed where none was asked: the user's message again, and what a
    look showed, to answer from -- not "or say you did not change anything", which became the whole reply."""
    shown = next((o for o in reversed(done) if o.ok and o.looks and o.text.strip()), None)
    result = f" {shown.name} returned:\n{shown.text[:1500]}\n" if shown else " "
    return (f"[nanobot: {what} and none was asked for; do not say anything was changed, saved or remembered."
            f"{result}Answer the user's message now: {user_text}]")


def _file_missed(f: Facts) -> str:
    """Why a claimed file change did not happen ("" when it may have)."""
    if any(o.ok and o.changes_file for o in f.done):
        return ""
    named = [m.group(1) for m in _FILE.finditer(f.user_text) if m.group(1).lower() not in _NOT_FILES | _MEMORY_FILES]
    if f.asked_change and named and not f.remembers:
        return f"{named[0]} was asked to change and no file tool succeeded this turn"
    changed = [o for o in f.done if o.ok and o.may_change]
    noted = " ".join(o.text for o in changed)  # where memory wrote it
    in_reply = [m.group(1) for m in _FILE.finditer(f.reply) if m.group(1).rsplit("/", 1)[-1].lower() not in _NOT_FILES | _MEMORY_FILES
                and m.group(1) not in noted]  # "added to observations/notes-...md" when memory_add wrote there
    only_memory = bool(changed) and all(o.changes and not o.changes_file and o.effects == _REMEMBERS for o in changed)
    # "added a note to the observations file" is true of a keeping the user asked for: memory is files too
    if only_memory and (in_reply or (REPLY["files"].search(f.reply) and not f.remembers)):
        return f"only memory changed this turn ({changed[0].name}), no file"
    return ""


_REMEMBERS = frozenset({Effect.REMEMBERS})


# Whether a reply restates what the user's message said: a fact to keep said back ("Anotado: tu vuelo
# sale a las 7:15." to "Apunta que mi vuelo sale a las 7:15."), a change named back. A fact of the two
# texts, in any language: the longest run of characters they share, across a word boundary. Where a
# change was asked, the reply checks ask the model's reading of a claim (``judge.reply_claims``, an
# evaluation) only for such a reply to a message that is no question: "hi" answered "Hello! How can I
# help?" asks nothing. Where the remember judgement leans to a keeping, a reply that gives back one of
# the message's facts (a number, a name, a quote: ``says_back``) is read too: it may say the fact back
# translated ("I'll remember your bike is a green Peugeot."), sharing no run of the message.

RUN = 10  # characters in common, a space among them: two words or more said back


def restates(user_text: str, reply: str) -> bool:
    """Whether ``reply`` says back a run of ``user_text`` (not a question) of ``RUN`` characters or more.

    >>> restates("Apunta que mi vuelo sale a las 7:15.", "Anotado: tu vuelo sale a las 7:15.")
    True
    >>> restates("hi", "Hello! How can I help?"), restates("When does my flight leave?", "Your flight leaves at 7:15.")
    (False, False)
    """
    said, back = " ".join(user_text.lower().split()), " ".join(reply.lower().split())
    if not said or said.endswith(("?", "？")):
        return False
    run = SequenceMatcher(None, said, back, autojunk=False).find_longest_match(0, len(said), 0, len(back))
    common = said[run.a:run.a + run.size].strip()
    return len(common) >= RUN and " " in common


def says_back(user_text: str, reply: str) -> bool:
    """``restates``, or ``reply`` keeps one of the facts ``user_text`` (no question) gives: its numbers,
    names or quotes (``Provenance.facts``), in whatever language the rest is said.

    >>> says_back("Pour plus tard : mon vélo est un Peugeot vert.", "Noted, your bike is a green Peugeot.")
    True
    >>> says_back("hi", "Hello! How can I help?"), says_back("Who is Ada Lovelace?", "Ada Lovelace was a mathematician.")
    (False, False)
    """
    if restates(user_text, reply):
        return True
    said = Provenance(said=[user_text])
    return not user_text.rstrip().endswith(("?", "？")) and bool(said.facts()) and said.keeps_a_fact(reply)


# A reply that is the user's own message again, word for word ("My cat is called Pixel, keep that in
# mind." answered with itself after memory_add kept it): no answer, though the call behind it may have done
# what was asked. A fact of the turn in any language: difflib's ratio of the two texts. Where a change or
# a keeping was asked and none tried, the checks that make it answer (``change_not_tried``, ``remember_not_tried``); otherwise the
# reply is asked again with what the call returned, then corrected with it. "I remember that your cat is
# called Pixel." says the fact back in the model's own words and stands.

SAME = 0.95  # difflib's ratio at which a reply is the message again (a restatement in other words scores lower)
LEAST = 20  # characters: "yes" or "thanks" may well come back as they were sent


def message_parroted(f: Facts) -> CheckResult | None:
    """The reply is this turn's message again (``SAME``), at least ``LEAST`` characters long.

    >>> message_parroted(Facts("hi there", "hi there", [])) is None
    True
    """
    said, back = " ".join(f.user_text.split()).lower(), " ".join(f.reply.split()).lower()
    if len(said) < LEAST or 2 * min(len(said), len(back)) < SAME * (len(said) + len(back)):
        return None  # lengths this far apart cannot reach SAME: no comparison on a long reply's turn
    if difflib.SequenceMatcher(None, said, back, autojunk=False).ratio() < SAME:
        return None
    if (untried := change_not_tried(f) or remember_not_tried(f)) is not None:
        return untried  # nothing tried: the retry makes the change or the keeping
    shown = next((o for o in reversed(f.done) if o.ok and o.text.strip()), None)
    result = f" {shown.name} returned: {shorten(shown.text, 300)}." if shown else ""
    return CheckResult(
        problem="the reply repeats the user's message",
        note=f"[nanobot: your reply repeated the user's message word for word.{result} Answer the user now in one "
             "short sentence of your own.]",
        correction=f"(nanobot: the reply above repeats your message.{result})")
