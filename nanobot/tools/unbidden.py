"""Calls a tool's output may not bring about, within a turn: once a tool's result is in the turn's
context, what the model does next is decided with that text in view, and a file, a page or a command's
output can say "now call write_file" or "run cleanup.py". Two facts hold such text back, and a third
keeps a recall from becoming a keeping:

- **A change or a keeping after a look is offered only where the user asks for one.** At a tool step
  after the turn's first result, a tool that declares ``CHANGES`` or ``REMEMBERS`` (``tools.effects``)
  is left out of what the step may call unless the model's own classifier is sure the user's message
  asks for that kind of act (change, repair or create; remember), or this is a coding session. The
  turn's first step, decided on the user's words alone, is not narrowed, nor is a reply check's retry
  (it names its tool from the user's request).
- **A command or a search only a tool's output spelled is not run.** An ``exec`` at such a step whose
  command, or a search (a tool declaring ``SEARCHES``) whose query, occurs in this turn's tool results
  and nowhere in the user's message (``core.quoted.passed_on``) is not run, and the model is not told of
  it (a call nobody asked for is answered as never made).
- **A recall takes no step**: where the user's message asks about a fact memory already holds
  (``Provenance.has_facts``), a tool that only remembers is left out of every step, and where it is a
  question and the facts ask for no look (``tools.firstlook``) the turn makes no tool step at all
  (``recall_held``).

The first two are counted as the turn goes on (``TemplateCalls``); a backend that cannot score a classifier
narrows nothing here (the call policy still refuses what nobody asked for).
"""

from __future__ import annotations

from typing import Any

from nanobot.core.features import Agent
from nanobot.core.provenance import is_question
from nanobot.core.quoted import passed_on
from nanobot.tools.effects import Effect, declared

_ASKS = {Effect.CHANGES: ("change", "repair", "create"), Effect.REMEMBERS: ("remember",)}


def barred(agent: Agent, tools: dict[str, Any]) -> frozenset[str]:
    """The tools a step may not call: a keeping where the message recalls a kept fact (``_recalled``), at
    any step; and after the turn's first tool result (``Provenance.this_turn``), outside a coding session
    and with a scored judgement, each changing (remembering) tool whose kind of act no sure judgement of
    the user's message asks for. Judgements are asked only for the effects
    an offered tool declares, each once per message (``loop.judge`` caches them)."""
    prov = agent.provenance
    out: set[str] = set(_recalled(agent, tools))
    if not prov.this_turn or any(f.name == "coding" for f in agent.features):
        return frozenset(out)
    asked: dict[Effect, bool] = {}
    for name, tool in tools.items():
        for effect in declared(tool) & set(_ASKS):
            if effect not in asked:  # a sure yes, or no judgement at all; the first that holds decides
                asked[effect] = any(agent.judge.sure(agent, kind) is not False for kind in _ASKS[effect])
            if not asked[effect]:
                out.add(name)
    return frozenset(out)


def _recalled(agent: Agent, tools: dict[str, Any]) -> list[str]:
    """The keeping tools (``REMEMBERS`` only) where the user's message asks about a fact memory already
    holds (``Provenance.has_facts``: its content words and every fact it gives are in one retrieved
    line): "Remember the code for my bike lock? Tell me." beside the kept code is a recall; a keeping
    could only copy memory back, and the grounding refuses it, so the step does not offer it."""
    keeping = [n for n, t in tools.items() if declared(t) & {Effect.REMEMBERS} and not declared(t) & {Effect.CHANGES}]
    return keeping if keeping and agent.provenance.said and not agent.provenance.has_facts() else []


def recall_held(agent: Agent) -> bool:
    """Whether the user's message is a question (its question mark, in any script) about a fact a
    retrieved line holds (``Provenance.has_facts``): the turn's memory block, or a Context section,
    answers it, so no tool step comes first ("What's my locker number at the pool?" beside "My locker
    at the swimming pool is number 218." ran ``cat MEMORY.md``). A request a retrieved line restates
    ("fix the failing test", said in an earlier session too) is no recall: its steps run."""
    prov = agent.provenance
    return (bool(prov.said and prov.retrieved) and is_question(prov.said[-1])
            and not prov.has_facts())


def spelled_by_output(agent: Agent, name: str, args: dict) -> str:
    """The command a call of ``name`` runs, or the words a search looks for, where only this turn's tool
    output spelled them (see above); "" where the user's words did, or the call is neither."""
    if name == "exec":
        text = str(args.get("command", ""))
    else:
        tool = agent.tool_runner.tools.get(name) if agent.tool_runner is not None else None
        text = str(args.get("query", "")) if tool is not None and Effect.SEARCHES in declared(tool) else ""
    prov = agent.provenance
    return text if text.strip() and passed_on(text, prov.this_turn, prov.said[-1:]) else ""
