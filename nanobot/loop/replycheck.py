"""Reply checks: what a reply may not say, checked in code against what happened this turn.

``CHECKS`` is one ordered pipeline of named checks over the turn's ``Facts`` (``nanobot.loop.verdict``);
the first objection stands, and the reply is retried once with its note, else corrected with its line
(``nanobot.loop.checkedturn``). What the user asks is the model's judgement (``loop.judge``) where it
gives one; what the reply claims is read from its text (``loop.wording.REPLY``).

**How to add a check.** Write ``def my_check(f: Facts) -> CheckResult | None`` in the module of its
concern (claims: ``claims``; looks and answers: ``looks``), reading only ``Facts``: the user's
message and what the runtime knows of it (lazy judgements, the target), the reply, this turn's
``Outcome``s (what each call did is its tool's declared effects). Return None when the reply may stand;
else a ``CheckResult`` with the ``problem`` (for the transcript), the ``note`` the retry sees, the
``correction`` the user sees if the retry fails, and ``tool`` where the retry must call one. A check that
picks that tool from the reply's own words is decorated ``@from_reply`` (then never held to text the
reply quotes from a file or memory). Put it in ``CHECKS`` at its place, run ``scripts/pipeline_doc.py``,
and write a test that is red without it. Its judgements and retry draw from the turn's budget (``loop.budget``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from nanobot.core.asks import _COMMAND, _DIR, _FILE, _HERE, _LOOK, _NOT_FILES, ASKS, looks_at  # noqa: F401 (re-exported)
from nanobot.core.features import Agent
from nanobot.loop import wording
from nanobot.loop.claims import (
    asked_file_not_changed,
    change_claimed_without_one,
    change_not_tried,
    failed_change_claimed,
    failure_echoed,
    failure_untold,
    message_parroted,
    name_not_written,
    remember_not_tried,
    restates,
    says_back,
)
from nanobot.loop.judge import asks, leans, reply_claims
from nanobot.loop.looks import (
    absent_listed,
    call_as_text,
    declined_without_look,
    imitated_output,
    listing_unnamed,
    look_failed,
    named_unlooked,
    no_answer,
    not_from_look,
    not_looked,
    output_unrun,
    repeated_reply,
    told_of_tool,
    value_unshown,
)
from nanobot.loop.runasked import named_program
from nanobot.loop.verdict import Check, CheckResult, Facts, outcomes  # noqa: F401 (re-exported)
from nanobot.loop.wording import REPLY

_DENIAL = REPLY["denial"]  # (re-exported: the real-model tests read it)

def remember(user_text: str, agent: Agent | None = None) -> bool:
    """The user asks to remember or note something (a change to memory): the model's judgement where
    it can give one (``nanobot.loop.judge``), else the listed wording.

    >>> remember("Please remember that my favourite colour is green."), remember("what do you remember?")
    (True, False)
    """
    if wording.says("remember", user_text):
        return True
    if agent is None or asks(agent, "remember", user_text) is not True:
        return False
    # the remember classifier also says yes to "fix the typo in letter.txt" and "Log
    # today's harvest at the bottom of garden.log: ..."; where the message names a file that exists in the
    # roots (a fact), or names a file and the change classifier is sure it asks for a change, the change stands
    return not (_FILE.search(user_text) and (asks(agent, "change", user_text) is True or names_a_file(user_text, agent)))


def kept_in_file(user_text: str, agent: Agent | None = None) -> bool:
    """The model judges the user asks to note something down (its sure remember judgement) and the
    message names a file that exists in the roots: a note for that file, a change to it ("Log today's
    harvest at the bottom of garden.log: ..."), where ``remember`` says it is no memory -- unless the model
    is sure the message says to leave the file as it is (``callpolicy.says_leave_it``: the remember
    classifier can be sure of "Can you take a look at server.cfg ...? Don't change anything." too)."""
    from nanobot.loop.callpolicy import says_leave_it

    return (agent is not None and asks(agent, "remember", user_text) is True and names_a_file(user_text, agent)
            and not says_leave_it(agent, user_text))


def names_a_file(user_text: str, agent: Agent, kinds: tuple[str, ...] = ("file",)) -> bool:
    """Whether the message names a file (or another of ``kinds``: "folder") that exists in the agent's
    roots (``tools.named``)."""
    settings = getattr(agent, "settings", None)
    if settings is None:
        return False
    from nanobot.tools.named import named, roots_of

    return any(n.kind in kinds for n in named(user_text, roots_of(settings)))


def asks_to_keep(user_text: str, agent: Agent | None = None) -> bool:
    """The user asks to remember something, by the model's sure judgement where it gives one (and its
    change judgement is not sure of a change); else the listed wording in a message that names no file
    ("save it to notes.md" saves a file, not a memory).

    >>> asks_to_keep("Please remember that my locker is 42."), asks_to_keep("save the list to todo.md")
    (True, False)
    """
    judged = asks(agent, "remember", user_text) if agent is not None else None
    if judged is not None:  # and not a change: the remember classifier says yes to "fix that" too; and
        # not a message about a folder or file that exists in the roots (a fact: "tell me what the
        # trips folder holds" is about trips/, whatever the remember classifier says)
        return judged and asks(agent, "change", user_text) is not True and not names_a_file(
            user_text, agent, ("file", "folder"))
    return wording.says("remember", user_text) and not _FILE.search(user_text)


# The checks, in order: the first objection stands. Each reads the turn's ``Facts`` and returns a
# ``CheckResult`` or None, and has its own tests (tests/test_checks_pipeline.py).
CHECKS: tuple[Check, ...] = (
    no_answer,  # an empty reply, a call's opening, the template's markup
    repeated_reply,  # an earlier reply of the session again, to another message
    message_parroted,  # this turn's message again, word for word
    imitated_output,  # nanobot's caption over a look, copied
    failed_change_claimed,  # a change failed and the reply claims success
    failure_echoed,  # the reply repeats a failed call's error
    failure_untold,  # a file change failed and the reply answers something else
    change_claimed_without_one,  # nothing that changes anything succeeded and the reply claims a change
    asked_file_not_changed,  # the file asked about is unchanged (only memory changed) and the reply claims it
    change_not_tried,  # a change asked for and no call tried
    remember_not_tried,  # a remember request and nothing saved
    name_not_written,  # a file written, and a name the message spells as code is in none of the written files
    call_as_text,  # a call's JSON in the reply: nothing ran
    look_failed,  # every look failed and the reply speaks of the target
    told_of_tool,  # the reply tells the user of a tool that did not run
    output_unrun,  # a program the message names: the reply gives values neither its run nor anything else showed
    not_from_look,  # the look succeeded and the reply says nothing of it
    listing_unnamed,  # a listing for a message that names nothing, and the reply names none of it
    value_unshown,  # looks only, and the reply gives a value nothing the model was shown holds
    declined_without_look,  # declined with nothing tried
    not_looked,  # speaks of what it never looked at
    absent_listed,  # names files that are not there, with nothing looked at
    named_unlooked,  # speaks of the user's files, nothing tried, a look judged asked
)
FROM_REPLY = frozenset(c.__name__ for c in CHECKS if getattr(c, "from_reply", False))  # ``verdict.from_reply``
# the checks that hold a reply to the look this turn made: a reply that gives the prompt's repository facts
# (``tools.repofacts.told``: the branch, the last commit) after a look at something else is answered from
# what nanobot read itself; a reply with no look at all is still held to one where a look was asked
LOOKED_FOR = frozenset({"look_failed", "not_from_look", "listing_unnamed"})




def judged_target(user_text: str, agent: Agent, reply: str = "") -> tuple[str, tuple[str, ...]]:
    """What the user asks to see, in any wording: a file or folder the message names that exists in the
    roots (``tools.named``: a typo within one edit too), when the reply speaks of it too (it tells of
    the file: it must have read it), declines it, the message asks a question (``ASKS``: a question
    about a file that exists is answered from the file), or the model judges that the message asks to look (``judge``:
    "¿Qué dice el archivo recipe.md?", "how many lines are in poem.txt?"); the facts are read first,
    so a message that names nothing costs no judgement. ("", ()) otherwise."""
    settings = getattr(agent, "settings", None)
    if settings is None:
        return "", ()
    from pathlib import Path

    from nanobot.tools.named import named, roots_of

    found = [n for n in named(user_text, roots_of(settings)) if n.kind in ("file", "folder")]
    if not found:
        return "", ()
    spoken = [n for n in found if Path(n.path).name.lower() in reply.lower()]
    if (not spoken and not REPLY["denial"].search(reply) and not ASKS.search(user_text)
            and asks(agent, "look", user_text) is not True):
        return "", ()
    return (spoken or found)[0].path, tuple(n.path for n in found if n.kind == "folder")


def named_run(user_text: str, done: list) -> str:
    """The command a run of this turn ran when the user's message names it (``tools.shell.named_in``,
    in any language); "" otherwise. Its output is then what the user asked to see.

    >>> from nanobot.loop.verdict import Outcome
    >>> ran = [Outcome("exec", {"command": "git log --oneline"}, True, "exit 0", effects=frozenset({"runs"}))]
    >>> named_run("Lancia git log --oneline per favore", ran), named_run("what changed lately?", ran)
    ('git log --oneline', '')
    """
    from nanobot.tools.shell import named_in

    for o in reversed(done):
        command = str((o.args or {}).get("command", "")) if o.ok and "runs" in o.effects else ""
        if named_in(user_text, command):
            return command
    return ""


def allowed_named(user_text: str, agent: Agent | None) -> str:
    """A command ``tools.exec_allow`` admits that the user's message names (``shell.named_command``, in
    any language); "" for none. A reply to it with nothing run this turn is not its output."""
    from nanobot.tools.gitexec import unasked
    from nanobot.tools.shell import named_command

    settings = getattr(agent, "settings", None)
    return named_command(user_text, unasked(settings.tools)) if settings is not None else ""


def reply_paths(reply: str, agent: Agent | None) -> Callable[[], dict[str, list[str]]]:
    """The paths ``reply`` names (``tools.named``), as written, by kind ("file", "folder", "new": not in
    the roots): read once, when a check first asks for them."""
    @cache
    def paths() -> dict[str, list[str]]:
        settings = getattr(agent, "settings", None)
        if settings is None:
            return {}
        from nanobot.tools.named import named, roots_of

        out: dict[str, list[str]] = {}
        for n in named(reply, roots_of(settings)):
            if n.said not in (kind := out.setdefault(n.kind, [])):
                kind.append(n.said)
        return out
    return paths


def _exchanges(agent: Agent | None) -> list[tuple[str, str]]:
    """(user message, reply) of the session's history before this turn."""
    history = getattr(agent, "history", None) or []
    return [(u.content, a.content) for u, a in zip(history, history[1:])
            if u.role == "user" and a.role == "assistant"]


def written(agent: Agent | None, user_text: str = "") -> dict[str, tuple[str, str]]:
    """Each file a file tool wrote this turn: (its text before the turn's first write, its text now);
    and each other file the message names that exists in the roots, as (its text, its text)."""
    from pathlib import Path

    from nanobot.base.regular import read_regular
    from nanobot.tools.named import named, roots_of

    def now(path: str) -> str:
        try:
            return read_regular(Path(path)).decode("utf-8", errors="replace")[:MAX_READ]
        except OSError:
            return ""

    if agent is None:
        return {}
    out = {path: (was, now(path)) for path, was in agent.provenance.before.items()}
    roots = roots_of(agent.settings)
    for n in named(user_text, roots) if user_text else ():
        path = next((str(r / n.path) for r in roots if (r / n.path).is_file()), "")
        if n.kind == "file" and path and path not in out:
            out[path] = (text := now(path), text)
    return out


MAX_READ = 200_000  # characters of a file read for the names it holds


def _new_files(user_text: str, agent: Agent | None) -> list[str]:
    """The file-shaped names the message gives that are not in the roots (``tools.named``), where the
    model's create classifier is sure the message asks for a new file: a name that is not there is
    otherwise a question about it or a typo, and a retry must not write it."""
    if agent is None or getattr(agent, "settings", None) is None or asks(agent, "create", user_text) is not True:
        return []
    from nanobot.tools.named import named, roots_of

    return [n.path for n in named(user_text, roots_of(agent.settings)) if n.kind == "new"]


def check(user_text: str, reply: str, events: list, asked_change: bool | Callable[[], bool] = False,
          offered: frozenset[str] | None = None, earlier: str = "", agent: Agent | None = None,
          tools: dict[str, Any] | None = None, skip: frozenset[str] = frozenset(),
          only: str = "", seen_text: str = "") -> CheckResult:
    """The reply of one turn against its tool events (``ToolCall``/``ToolResult``), through ``CHECKS``;
    ``asked_change``: the user asked for a change (then a bare "created." or "Done." is a claim too), or
    a function that says so, called only when a check needs it (it may ask the model);
    ``offered``: the tools this chat has (None: any): not trying a change or a look is a fault only when
    the tool for it is offered. ``earlier``: what the model was shown before the user's message (the
    retrieved block): a look's reply copied from it is not from the look. ``agent``: for the model's
    judgements; ``tools``: the chat's tools, whose declared effects say what each call did; ``skip``,
    ``only``: the checks (by name) left out, or the one asked alone; ``seen_text``: all the model was
    shown this turn (the prompt, the session, the message with its retrieved block)."""
    done = outcomes(events, tools)
    target, folders = looks_at(user_text), ()
    if not target and agent is not None:
        target, folders = judged_target(user_text, agent, reply)
    ran = named_run(user_text, done)
    if ran and target.lower().startswith(ran.lower()):  # the run's command is where the message's words end
        target = ran  # ("run head -n 3 rota.csv and tell me ...": ``looks_at`` reads on past the command)
    target = target or ran
    command = not target and allowed_named(user_text, agent)
    target = target or command
    paths = reply_paths(reply, agent)
    facts = Facts(user_text=user_text, reply=reply, done=done, asked_change=asked_change,
                  offered=offered, earlier=earlier, remembers=lambda: remember(user_text, agent), target=target,
                  keeps=lambda: asks_to_keep(user_text, agent),
                  remember_leans=lambda: agent is not None and not _FILE.search(user_text) and leans(agent, "remember", user_text),
                  judged=lambda: agent is not None and asks(agent, "change", user_text) is not None,
                  change_sure=lambda: agent is not None and asks(agent, "change", user_text) is True,
                  look_sure=lambda: agent is not None and asks(agent, "look", user_text) is True,
                  gives_facts=lambda: getattr(agent, "provenance", None) is None or agent.provenance.has_facts(),
                  extra={"folders": folders, "before": _exchanges(agent), "command": bool(command), "seen": seen_text,
                         "program": lambda: agent is not None and named_program(user_text, agent) or "",
                         "run_leans": lambda: agent is not None and leans(agent, "run", user_text),
                         "absent": lambda: paths().get("new", []), "files": lambda: paths().get("file", []),
                         "new_files": lambda: _new_files(user_text, agent), "written": lambda: written(agent, user_text)})
    # the reply read by the model where a claim would matter: it says the message back, and a change was
    # asked for; or it gives back a fact of the message (in another language too), and a keeping is leaned to
    facts.claimed = lambda: (agent is not None and (restates(user_text, reply) and facts.asked_change
                                                    or says_back(user_text, reply) and facts.remember_leans)
                             and reply_claims(agent, user_text, reply))
    for rule in CHECKS:
        if rule.__name__ in skip or only and rule.__name__ != only:
            continue
        if (verdict := rule(facts)) is not None:
            verdict.rule = rule.__name__
            return verdict
    return CheckResult()
