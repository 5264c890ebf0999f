"""The call policy: checks on a validated call that changes something, before it runs.

A call is checked where its tool's declared effects (``nanobot.tools.effects``) include ``CHANGES`` or
``REMEMBERS``, or where the tool declares none, so a new tool is guarded without a list to update. The
rules, in order, each a ``Refusal`` kind (``nanobot.core.provenance``; docs/safety.md tells them to users):

1. ``FROM_RETRIEVED``: a target of the call occurs in retrieved text only (memory, Context), never said or shown.
2. ``NOT_MEMORY``: a call that only remembers, on a message that asks to change a file it names;
   ``UNSAID``: what such a call keeps is nothing the user said or a tool showed, or leaves out every fact given.
3. ``OTHER_FILE``: the call's path is none of those the message (else the message before) names.
4. ``KEEP`` (checked after 5): the message names a file and the model judges that it allows no change, or
   says to leave the file as it is; text the user typed for that file is vetoed only by a sure no, and the
   repair classifier's sure yes (a report of something broken) lifts the change judgement's veto.
5. ``NOT_ASKED``: nobody asked for the change, typed the command, or typed the text written.
6. ``UNGIVEN``: an edit puts a number of its own in place of one the file has, and the change
   judgement is short of ``VALUE_SURE`` with no sure repair (a summary asked, the file "corrected").

"Asks for a change" is the model's sure judgement (``nanobot.loop.judge``, any language) or the listed
wording (``nanobot.loop.wording``). An interactive chat asks the user (``agent.confirm``); otherwise the
call is refused with a line naming the reason and what to do instead. ``guard(tool)`` wraps a tool so its
``run`` checks first; the Agent wraps every tool it offers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from nanobot.core.asks import FILE_NAME
from nanobot.core.features import Agent
from nanobot.core.provenance import (
    FROM_RETRIEVED,
    NOT_ASKED,
    UNGIVEN_VALUE,
    PolicyError,
    Provenance,
    Refusal,
    Refused,
)
from nanobot.loop import wording
from nanobot.tools.effects import Effect, declared, effects_of, targets

_NAMED = re.compile(rf"(?<![\w/.]){FILE_NAME}\b")


class _Named:
    """A tool known only by name (an MCP tool's ``SERVER.TOOL``, a built-in's name): its declared
    effects when a built-in has that name, else undeclared (or read-only, as its server says)."""

    def __init__(self, name: str, read_only: bool = False):
        from nanobot.tools.base import Tool
        from nanobot.tools.registry import all_tools

        self.name, self.read_only = name, read_only
        known = all_tools().get(name) or next((c for c in _subclasses(Tool) if getattr(c, "name", "") == name), None)
        try:
            self._tool = known() if known is not None else None
        except TypeError:  # a tool built per instance (an MCP tool): only its class is known
            self._tool = None
        self.description = getattr(known, "description", "")
        self.target_args = getattr(known, "target_args", {})

    def effects_for(self, args: Any) -> frozenset[Effect]:
        return effects_of(self._tool, args) if self._tool is not None else declared(_ReadOnly(self.read_only))


class _ReadOnly:
    def __init__(self, read_only: bool):
        self.read_only = read_only


def _subclasses(cls: type) -> list[type]:
    """Every loaded subclass of ``cls`` (a feature's tools: memory_add is no registry built-in)."""
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def _tool(tool: Any, read_only: bool = False) -> Any:
    return _Named(tool, read_only) if isinstance(tool, str) else tool


def changes(tool: Any, args: Any, read_only: bool = False) -> bool:
    """Whether the call changes something the user keeps (see the docstring)."""
    return bool(effects_of(_tool(tool, read_only), args) & {Effect.CHANGES, Effect.REMEMBERS})


def _signal(agent: Agent | None, kind: str, text: str) -> bool:
    """The model's sure yes, or the listed wording: either signal asks. A judged "no" alone refuses
    nothing: a small model's judgement can miss a plain "Add a line ... at the end of poem.txt"."""
    return wording.says(kind, text) or (agent is not None and _judged(agent, kind, text) is True)


def asked_for_change(said: list[str], coding: bool = False, agent: Agent | None = None) -> bool:
    """Whether the user's last two messages ask for a change to a file (or this is a coding session): the
    wording, the change judgement's sure yes, or the repair classifier's (a report of something broken in
    the file the message names asks for its fix: "reverse_words in utils.py gives the words back in the
    same order").

    >>> asked_for_change(["Write a haiku about autumn."]), asked_for_change(["read calc.py", "now fix sub"])
    (False, True)
    """
    recent = said[-2:]
    if coding:
        return True
    if not any(_names_path(t, agent) for t in recent):  # the fact first: a message naming no path costs no judgement
        return False
    return any(wording.says("change", t) for t in recent) or (
        agent is not None and bool(recent) and (_judged(agent, "change", recent[-1]) is True
                                                or _judged(agent, "repair", recent[-1]) is True))


# a message that gives the text to write into the file it names is vetoed only by a sure "no" (P(change)
# at most this: "Don't write 'call the plumber' into notes.txt"), not by a judgement just under the change
# bound ("Log today's harvest at the bottom of garden.log: ...")
KEEP_TYPED = 0.2


def _probability(agent: Agent, kind: str, text: str) -> float | None:
    """The model's P(yes) for ``kind`` on ``text`` (``loop.judge``, cached per message); None when it cannot say."""
    from nanobot.loop.judge import asks, judge_of

    asks(agent, kind, text)
    return judge_of(agent).probability(agent, kind)


def _change_p(agent: Agent, text: str) -> float:
    """The model's P(the message asks for a change) (1.0 when it cannot say)."""
    p = _probability(agent, "change", text)
    return 1.0 if p is None else p


def change_asked(text: str, agent: Agent | None) -> bool:
    """What the reply checks take for "a change was asked": ``asked_for_change`` on the message, unless
    the model's own judgement is a sure no (``refuted_change``)."""
    return asked_for_change([text], agent=agent) and not refuted_change(agent, text)


def refuted_change(agent: Agent | None, text: str) -> bool:
    """Whether the model's own judgement is a sure "no change asked" (P <= ``KEEP_TYPED``) for ``text``, or
    its keep classifier is sure the message says to leave a file as it is: the reply checks then do not
    take a change word ("What does the add function in calc.py do?" holds "add"; "... Don't change
    anything." holds "change") for an ask to change the file. False when it cannot say."""
    return agent is not None and (_change_p(agent, text) <= KEEP_TYPED or says_leave_it(agent, text))


def says_leave_it(agent: Agent, text: str) -> bool:
    """The keep classifier is sure the message says to leave a file as it is, more sure than the change
    classifier is that it asks for a change, and the message names a file or folder that exists in the
    roots: a file to be made ("Create a new file hello.txt that says hi", which the keep classifier can
    be sure of) has nothing to leave as it is. Of two sure judgements that disagree the surer stands: the
    keep classifier also says yes to removals ("Lösch bitte die Zeile mit duct tape aus inventory.csv"),
    which the change classifier is surer of, while a "leave it" scores keep above change."""
    if getattr(agent, "settings", None) is None or _judged(agent, "keep", text) is not True:
        return False
    from nanobot.tools.named import named, roots_of

    if not any(n.kind != "new" for n in named(text, roots_of(agent.settings))):
        return False  # the fact first: no second judgement where no file is there to leave
    keep, change = _probability(agent, "keep", text), _probability(agent, "change", text)
    return keep is None or change is None or keep > change


def _judged(agent: Agent, kind: str, text: str) -> bool | None:
    from nanobot.loop.judge import asks

    return asks(agent, kind, text)


def _names_path(text: str, agent: Agent | None = None) -> bool:
    """A path the message names (a fact of the roots where the agent is known), or the listed words
    for a file ("the file", "this folder")."""
    if agent is not None and getattr(agent, "settings", None) is not None:
        from nanobot.tools.named import named, roots_of

        if named(text, roots_of(agent.settings)):
            return True
    return bool(_NAMED.search(text) or "/" in text or wording.says("file", text))


def _own_words(tool: Any, said: list[str]) -> bool:
    """A word of the tool's own name or description (5+ letters, or the whole name part) starts a word
    of the request, or the other way round: "remind me every hour" for "Schedule reminders ..."."""
    name = getattr(tool, "name", "")
    own = {w.lower() for w in re.split(r"[^A-Za-z0-9]+", name.split(".")[-1]) if len(w) >= 3}
    own |= {w.lower() for w in re.findall(r"[A-Za-z]{5,}", getattr(tool, "description", "") or "")}
    words = {w.lower() for t in said for w in re.findall(r"[^\W\d_]{3,}", _NAMED.sub(" ", t))}
    return any(a.startswith(b) or b.startswith(a) for a in own for b in words if len(b) >= 3 and len(a) >= 3
               and (len(b) >= 5 or b == a))


def asked_for(tool: Any, said: list[str], coding: bool = False, agent: Agent | None = None) -> bool:
    """Whether the user's last two messages ask for the kind of change ``tool`` makes."""
    tool, recent = _tool(tool), said[-2:]
    if "path" in getattr(tool, "target_args", {}).values() or "command" in getattr(tool, "target_args", {}).values():
        return asked_for_change(said, coding, agent)
    change = any(_signal(agent, "change", t) for t in recent[-1:]) or any(wording.says("change", t) for t in recent[:-1])
    return (change or _own_words(tool, recent)) and not any(_NAMED.search(t) for t in recent)


def refusal(tool: Any, args: Any, prov: Provenance, coding: bool = False, read_only: bool = False,
            agent: Agent | None = None) -> str:
    """Why this call must be confirmed by the user first (a ``Refused``); "" when it may run."""
    tool = _tool(tool, read_only)
    name = getattr(tool, "name", "")
    fx = effects_of(tool, args)
    if not fx & {Effect.CHANGES, Effect.REMEMBERS}:
        return ""
    if Effect.CHANGES in fx:
        for what, text in targets(tool, args):
            if prov.only_retrieved(text):
                short = " ".join(text.split())[:80]
                return Refused(f"{name} refused: the {what} '{short}' {FROM_RETRIEVED}; ask the user before changing it",
                               Refusal.FROM_RETRIEVED)
    last = prov.said[-1] if prov.said else ""
    if Effect.CHANGES not in fx:  # only remembers: refused only where a named file was asked to change
        files = [m.group(0) for m in _NAMED.finditer(last)]
        if files and _signal(agent, "change", last) and not _signal(agent, "remember", last):
            return Refused(f"{name} refused: the user asked to change {files[0]}, not to remember something; "
                           f"change {files[0]} with edit_file (or write_file for a new file)", Refusal.NOT_MEMORY)
        kept = str(getattr(args, "text", "") or (args.get("text", "") if isinstance(args, dict) else ""))
        if kept.strip() and prov.said and getattr(tool, "user_facts", False) and (unsaid := prov.unsaid(kept)):
            return Refused(f"{name} refused: {', '.join(unsaid[:4])} in '{' '.join(kept.split())[:80]}' is nothing the "
                           "user said; keep only what the user said, in their words", Refusal.UNSAID)
        if kept.strip() and prov.said and not prov.grounded_here(kept):
            return Refused(f"{name} refused: '{' '.join(kept.split())[:80]}' is nothing the user said or a tool "
                           "showed; write the fact in the user's own words", Refusal.UNSAID)
        if kept.strip() and prov.said and not prov.keeps_a_fact(kept):
            return Refused(f"{name} refused: '{' '.join(kept.split())[:80]}' leaves out what the user said "
                           f"({', '.join(dict.fromkeys(prov.facts()[:4]))}); write the fact in the user's own words",
                           Refusal.UNSAID)
        return ""
    declared = getattr(tool, "target_args", {})
    path = next((str(getattr(args, k, "") or (args.get(k, "") if isinstance(args, dict) else ""))
                 for k, what in declared.items() if what == "path"), "")
    named = [m.group(0) for t in prov.said[-2:] for m in _NAMED.finditer(t)]
    now = [m.group(0) for m in _NAMED.finditer(last)  # a message that names files names the ones it is about
           if len(m.group(0).split("/")[-1].split(".")[0]) >= 2]  # not "e.g."
    roots = _roots(agent)
    if path and (now or named) and not coding and agent is not None and _judged(agent, "keep", last) is True:
        now, named = _with_definers(now, last, roots), _with_definers(named, last, roots)  # the file to change
    if path and now and not coding and not any(_same_path(path, n, roots) for n in now):
        return Refused(f"{name} refused: the user named {', '.join(dict.fromkeys(now))}, not '{path}'; "
                       "change only the file the user asked about, or ask first", Refusal.OTHER_FILE)
    if path and named and not coding and not prov.mentioned_by_user(path):
        return Refused(f"{name} refused: the user named {', '.join(dict.fromkeys(named))}, not '{path}'; "
                       "change only the file the user asked about, or ask first", Refusal.OTHER_FILE)
    command = next((str(getattr(args, k, "")) for k, what in declared.items() if what == "command"), "")
    typed = bool(command) and prov.mentioned_by_user(command)  # the user gave the command
    typed = typed or bool(path and now and _gives_text(args, last))  # ... or the text to write into the file named
    if not typed and not asked_for(tool, prov.said, coding, agent):
        return Refused(f"{name} refused: {NOT_ASKED}; answer the user instead, or ask whether to make the change",
                       Refusal.NOT_ASKED)
    if agent is not None and path and _NAMED.search(last) and (says_leave_it(agent, last) or (
            _judged(agent, "change", last) is False and (not typed or _change_p(agent, last) <= KEEP_TYPED)
            and _judged(agent, "repair", last) is not True)):  # a report of something broken asks for the fix
        return Refused(f"{name} refused: the user's message names a file but does not ask to change it; "
                       "answer without changing anything", Refusal.KEEP)
    if agent is not None and path and not coding and (swap := _value_swapped(args, prov.said[-2:])) and (
            _change_p(agent, last) < VALUE_SURE and _judged(agent, "repair", last) is not True):
        return Refused(f"{name} refused: the edit changes {swap[0]} to {swap[1]}, {UNGIVEN_VALUE}, and "
                       "the message does not clearly ask for a change; answer without changing anything", Refusal.UNGIVEN)
    return ""


# P(change) under which an edit may not put a value of its own in place of one the file has: the
# change judgement's asks with a value to set give it ("Sobe a versão no package.json para 1.3.0")
VALUE_SURE = 0.8
_VALUE = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])")


def _value_swapped(args: Any, said: list[str]) -> tuple[str, str] | None:
    """(old value, new value) where an edit (``old`` -> ``new``) drops a number of ``old`` and writes
    one in ``new`` that neither ``old`` nor the user's messages hold: "Halle 2" made "Halle 3" under a
    request to summarise the file. None where it changes no number, or only adds or removes one."""
    get = (lambda k: args.get(k)) if isinstance(args, dict) else (lambda k: getattr(args, k, None))
    old, new = str(get("old") or ""), str(get("new") or "")
    was, now = _VALUE.findall(old), _VALUE.findall(new)
    gone = [v for v in was if v not in now]
    given = set(_VALUE.findall(" ".join(said)))
    put = [v for v in now if v not in was and v not in given]
    return (gone[0], put[0]) if gone and put else None


def _with_definers(names: list[str], text: str, roots: list[Path]) -> list[str]:
    """``names`` and the files of the roots that define a name ``text`` gives (``namedcode.defining``):
    where the message names files to leave as they are ("Fix days_between ..., and do not change
    test_when.py"), the change it asks is in the file that defines what it names."""
    from nanobot.tools.namedcode import defining

    return [*names, *defining(text, roots)] if names else names


def _same_path(path: str, named: str, roots: list[Path] = ()) -> bool:
    """Whether a call's ``path`` is the file a message names: as written, or by its file name. With the
    roots known, a name with a folder in it is that file in a root, so "/proj/inventory/stock.py" is not
    "inventory/stock.py" of the root /proj/inventory (the same name one folder up)."""
    a, b = path.replace("\\", "/").lstrip("./"), named.lstrip("./")
    if roots and "/" in b.rstrip("/"):
        def places(p: str) -> set[Path]:
            p_ = Path(p).expanduser()
            return {p_.resolve()} if p_.is_absolute() else {(r / p_).resolve() for r in roots}
        return bool(places(path) & places(named))
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _roots(agent: Agent | None) -> list[Path]:
    """Where a relative path starts (``tools.paths.base_dir``), then the folders the tools reach
    (``tools.named.roots_of``); none where the agent has no settings."""
    if getattr(agent, "settings", None) is None:
        return []
    from nanobot.tools.named import roots_of
    from nanobot.tools.paths import base_dir

    roots = roots_of(agent.settings)
    return list(dict.fromkeys([base_dir(roots), *roots]))


def _gives_text(args: Any, message: str) -> bool:
    """Whether the text a call writes (``text``, ``content`` or ``new``, of an edit only what ``new``
    adds to the ``old`` it keeps; three words or more) is in the user's message word for word: "Log
    today's harvest at the bottom of garden.log: 2024-06-08 picked the first strawberries" gives the
    line, as a typed command gives the command, whether the edit writes the line alone or after the
    last line it keeps."""
    said = " ".join(message.split()).lower()
    get = (lambda k: args.get(k)) if isinstance(args, dict) else (lambda k: getattr(args, k, None))
    old = str(get("old") or "")
    for key in ("text", "content", "new"):
        value = str(get(key) or "")
        value = value.replace(old, " ", 1) if key == "new" and old.strip() and old in value else value
        value = " ".join(value.split()).lower()
        if len(value.split()) >= 3 and value in said:
            return True
    return False


class Guarded:
    """A tool whose ``run`` applies the policy first; everything else is the tool's own."""

    def __init__(self, tool: Any):
        self._tool = tool

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._tool, attr)

    def run(self, args: Any, ctx: Any) -> str:
        agent = ctx.agent
        prov = getattr(agent, "provenance", None)
        if prov is not None:
            why = refusal(self._tool, args, prov, coding=_coding(agent), agent=agent)
            if why:
                ask = ctx.confirm
                if ask is None or not ask(f"{why.split(': ', 1)[1].split(';')[0]}. Allow {self._tool.name} anyway?"):
                    if why.kind.unasked:  # the turn's retrieved block leaves its context (Provenance.unlured)
                        prov.lured = len(prov.said)
                    raise PolicyError(why)
        return self._tool.run(args, ctx)


def guard(tool: Any) -> Any:
    """``tool`` under the policy, unless its declared effects change nothing whatever the call (a read,
    a search); a tool whose effects depend on the call (``effects_for``: exec, task_board) is guarded."""
    if isinstance(tool, Guarded):
        return tool
    if _varies(tool) or declared(tool) & {Effect.CHANGES, Effect.REMEMBERS}:
        return Guarded(tool)
    return tool


def _varies(tool: Any) -> bool:
    """Whether the tool's effects depend on the call (it overrides ``Tool.effects_for``)."""
    from nanobot.tools.base import Tool

    fn = getattr(type(tool), "effects_for", None)
    return fn is not None and fn is not Tool.effects_for


def _coding(agent: Agent) -> bool:
    return any(getattr(f, "name", "") == "coding" for f in getattr(agent, "features", []))
