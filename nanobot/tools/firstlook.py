"""Which first steps of a turn are looks: the facts (a file, folder or command the message names; a
file-shaped name that is not there) and the model's own judgements lower the bar a turn's first tool
decision must reach (``tools.templatecalls``), and pick the looking tool, so a look made under the
threshold never edits.

>>> ASK_FLOOR < 0.3 and LOOK_FLOOR < ASK_FLOOR and ASK_SURE < LOOK_CERTAIN
True
"""

from __future__ import annotations

import re
from typing import Any

from nanobot.core.asks import ASKS, looks_at
from nanobot.core.features import Agent
from nanobot.tools.effects import Effect, changes, declared
from nanobot.tools.repoask import repo_asked

# A message that names a file or folder that exists in the roots (``tools.named``: in any language, a
# typo within one edit) or a command ``tools.exec_allow`` admits, or asks in so many words to see or run something (``core.asks.looks_at``),
# makes the first step a call when P(call) is at least this: a small model can score such asks under the
# threshold, and the reply checks would ask for the look anyway.
LOOK_FLOOR = 0.05


def asks_to_look(agent: Agent) -> str | None:
    """Whether the user's last message (what they typed, not retrieved text) asks for a look, and with
    which tool: ``exec`` for a command ``exec_allow`` admits ("Führe bitte ls aus") or a question about the
    repository's state that names nothing (``tools.repoask``), ``read_file`` /
    ``list_dir`` for a file / folder that exists in the roots (any language, a typo within one edit),
    ``read_file`` for a name that a file the user named earlier defines (``tools.namedcode``) when
    nothing else is named to look at and the model does not judge a change asked,
    ``read_file`` for a file-shaped name that is not there when the model judges no change is asked
    (the look tells the user it is missing, instead of a reply that invents it),
    "" (the model picks) for an ask in so many words ("show me ..."); None for no look. The facts
    pick a looking tool, so a look made under the threshold never edits."""
    said = agent.provenance.said
    if not said:
        return None
    settings = agent.settings
    if settings is not None:
        from nanobot.tools.gitexec import unasked
        from nanobot.tools.named import named, roots_of
        from nanobot.tools.namedcode import defined_in

        if any(re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", said[-1]) for c in unasked(settings.tools)):
            return "exec"
        found = named(said[-1], roots_of(settings))
        kinds = [n.kind for n in found]
        if "file" in kinds and _git_look(agent, settings, [n.path for n in found if n.kind == "file"]):
            return "exec"  # "what did I change in lamp.toml?", "which commit added it?": git, not a read
        if "file" in kinds or "folder" in kinds:
            return "read_file" if "file" in kinds else "list_dir"
        if not found and repo_asked(agent):
            return "exec"  # "is anything uncommitted?": git's output, not a file the model would guess
        if not looks_at(said[-1]) and defined_in(said, roots_of(settings)) and _change_judged(agent) is not True:
            return "read_file"  # "what does add do?" after "In calc.py, fix sub": a look at calc.py
        if "new" in kinds and _change_judged(agent) is False:  # a file that is not there, not to create:
            return "read_file"  # the look says it is missing ("do I have taxes_2023.pdf here?")
    return "" if looks_at(said[-1]) else None


# A message that names no file, folder or command the facts know ("Do I have any uncommitted changes?",
# "Zeig mir die letzten drei Commits") is looked into when P(call) is at least ASK_FLOOR and the model's
# own look classifier (``loop.judge``, ``Judge.classified``: weighed here with P(call), so without the
# calibration a judgement standing alone needs) gives it ASK_SURE or more: either alone does not separate
# such asks from "what's 17 times 23?" or "translate ... to Italian". After the session's first message a
# classifier that passes its calibration (``Judge.probability``) and gives LOOK_CERTAIN or more decides
# alone: after a few replies made without tools, P(call) of such an ask falls to ~0 however plain the ask
# (a session's first message keeps the cheaper rule: its P(call) still tells, and a declined first
# question is not made to wait for a classifier). How the numbers were chosen: docs/tools.md.
ASK_FLOOR = 0.1
ASK_SURE = 0.65
LOOK_CERTAIN = 0.75  # the least P(look) no "no" of the judge sets reaches (dev, dev2, held, held2: docs/tools.md)


def asked_here(agent: Agent, p: float) -> bool:
    """Whether the user's last message asks something the model judges is answered on this computer,
    at a P(call) of ``p`` (see ``ASK_FLOOR``)."""
    said = agent.provenance.said
    if not said:
        return False
    if p >= ASK_FLOOR:
        look = agent.judge.classified(agent, "look")
        if look is not None and look >= ASK_SURE:
            return True
    if len(said) < 2:
        return False
    sure = agent.judge.probability(agent, "look")
    return sure is not None and sure >= LOOK_CERTAIN


def _git_look(agent: Agent, settings: Any, paths: list[str]) -> bool:
    """Whether a file of ``paths`` is looked at with git (``tools.gitlook``): its uncommitted changes
    or its history asked."""
    from nanobot.tools.gitlook import diffed, historied

    def change() -> bool | None:
        return _change_judged(agent)

    return bool(diffed(agent, settings, paths, change) or historied(agent, settings, paths, change))


def first_args(agent: Agent, n: int, look: str | None, tools: dict) -> dict | None:
    """``exec``'s arguments the facts write for step ``n`` when it is a turn's first look at what git
    knows of a file (``tools.gitlook.look_args``); None: the model writes them."""
    from nanobot.tools.gitlook import look_args

    if n != 0 or look != "exec" or "exec" not in tools:
        return None
    return look_args(agent, lambda: _change_judged(agent))


def _change_judged(agent: Agent) -> bool | None:
    """Whether the model judges that the user's message asks for a change (``agent.judge``); None when
    it cannot say (a server, a scripted model)."""
    p = _change_p(agent)
    return None if p is None else p >= CHANGE_SURE


def _change_p(agent: Agent) -> float | None:
    return agent.judge.probability(agent, "change")


LOOK_SURE = 0.6  # the look classifier's sure yes (``loop.judge.BOUNDS``)
LOOK_NO = 0.5  # under this, its sure no
CHANGE_SURE = 0.6  # the change classifier's one bound (``loop.judge.BOUNDS``)
# Under this, a sure no for a look made on an unsure look judgement: the band between it and CHANGE_SURE
# holds messages that ask for a change and messages that do not, and a change asked there must not become a
# read.
CHANGE_NO = 0.5


def judged_look(agent: Agent, look: str) -> bool:
    """A look the facts name (a path in the roots, an allowed command: ``look`` is its tool) that the
    model's own look classifier does not say surely no to: a call even under ``LOOK_FLOOR``, where the
    model opens its call some way the decision does not count ("tools {{" for "can you shwo me
    buget.csv") or answers from what it guesses ("what does utils.py do?"). A look at what exists
    changes nothing, and a reply that speaks of it unread is retried with that look anyway
    (``loop.looks.not_looked``), after the user saw it; so an unsure judgement looks first only where
    the model's change classifier is sure it is no (``CHANGE_NO``): after a look only a sure change
    judgement asks for the change, so a change asked under the change's bound would stay unmade. A
    command (a tool that runs) still needs a sure yes: it may do more than look. A message that asks a
    question (a question mark anywhere, in any script: ``core.asks.ASKS``) and names a file or folder
    that is there is a look whatever the look classifier says, unless a change may be asked ("How long
    should the batter rest? The recipe is in recipes/pancakes.md" is answered from the file, not from a
    guess): the look classifier does not separate such questions from mentions of a file, the question
    mark does (docs/tools.md)."""
    if not look:
        return False
    p = agent.judge.probability(agent, "look")
    runner = agent.tool_runner
    tool = runner.tools.get(look) if runner is not None else None
    runs = tool is None or Effect.RUNS in declared(tool) or Effect.CHANGES in declared(tool)
    change = _change_p(agent)
    if not runs and change is not None and change < CHANGE_NO and ASKS.search(agent.provenance.said[-1]):
        return True  # a question naming a file that is there: answered from the file, whatever P(look)
    if p is None or p < LOOK_NO:
        return False
    return p >= LOOK_SURE or (not runs and change is not None and change < CHANGE_NO)


def look_instead(agent: Agent, look: str | None, tool: Any) -> bool:
    """Whether a turn's first call of ``tool``, which changes something, is to be the look the facts name
    (``look``: ``read_file`` for a file the message names) instead: the model judges that no change is
    asked, so the call policy would refuse the change as nobody's ask ("What does the add function in
    calc.py do?" is answered from the file, not with a refused edit_file and a correction)."""
    return bool(look) and changes(tool, None) and _change_judged(agent) is False


def run_instead(agent: Agent, look: str | None, picked: str) -> bool:
    """Whether a turn's first call of ``picked`` is to be the run the facts name instead: the message
    spells a command the allow list runs (``look`` is ``exec``), the model picked another tool by its
    name, and its run classifier is sure a run is asked ("Esegui cat blasting.ini e dimmi quanti kg ..."
    picked read_file: a read shows the file, the command's output was asked)."""
    return look == "exec" and picked != "exec" and agent.judge.sure(agent, "run") is True


def change_owed(agent: Agent, look: str | None) -> bool:
    """Whether the turn owes the change tool a call whatever P(call): the message names a file that is
    there (``look`` is ``read_file``), the model's change classifier is sure a change is asked, and neither
    its keep classifier is sure a file is to be left as it is nor its repair classifier that the message
    reports something broken (a report names where a fault shows, a failing test, which need not be the
    file to change: "days_between gives a negative number ... Fix it, and do not change test_when.py").
    A small model otherwise declines the call and answers "I added the test", and the reply check's
    retry (``loop.claims.change_not_tried``) then pays a whole reply more to make the same call; made
    here, the call comes first."""
    return (look == "read_file" and _change_judged(agent) is True and agent.judge.sure(agent, "keep") is not True
            and agent.judge.sure(agent, "repair") is not True)
