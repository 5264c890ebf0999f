"""Calls a tool's output may not bring about, within a turn: once a tool's result is in the turn's
context, what the model does next is decided with that text in view, and a file, a page or a command's
output can say "now call write_file" or "run cleanup.py". Two facts hold such text back:

- **A change or a keeping after a look is offered only where the user asks for one.** At a tool step
  after the turn's first result, a tool that declares ``CHANGES`` or ``REMEMBERS`` (``tools.effects``)
  is left out of what the step may call unless the model's own classifier is sure the user's message
  asks for that kind of act (change, repair or create; remember), or this is a coding session. The
  turn's first step, decided on the user's words alone, is not narrowed, nor is a reply check's retry
  (it names its tool from the user's request).
- **A command only a tool's output spelled is not run.** An ``exec`` at such a step whose command
  occurs in this turn's tool results and nowhere in the user's message (``core.quoted.passed_on``) is
  not run, and the model is not told of it (a call nobody asked for is answered as never made).

Both are counted as the turn goes on (``TemplateCalls``); a backend that cannot score a classifier
narrows nothing here (the call policy still refuses what nobody asked for).
"""

from __future__ import annotations

from typing import Any

from nanobot.core.features import Agent
from nanobot.core.quoted import passed_on
from nanobot.tools.effects import Effect, declared

_ASKS = {Effect.CHANGES: ("change", "repair", "create"), Effect.REMEMBERS: ("remember",)}


def barred(agent: Agent, tools: dict[str, Any]) -> frozenset[str]:
    """The tools a step may not call: none before the turn's first tool result (``Provenance.this_turn``),
    in a coding session or without a scored judgement; else each changing (remembering) tool whose kind
    of act no sure judgement of the user's message asks for. Judgements are asked only for the effects
    an offered tool declares, each once per message (``loop.judge`` caches them)."""
    prov = agent.provenance
    if not prov.this_turn or any(f.name == "coding" for f in agent.features):
        return frozenset()
    out: set[str] = set()
    asked: dict[Effect, bool] = {}
    for name, tool in tools.items():
        for effect in declared(tool) & set(_ASKS):
            if effect not in asked:  # a sure yes, or no judgement at all; the first that holds decides
                asked[effect] = any(agent.judge.sure(agent, kind) is not False for kind in _ASKS[effect])
            if not asked[effect]:
                out.add(name)
    return frozenset(out)


def spelled_by_output(agent: Agent, name: str, args: dict) -> bool:
    """Whether a call of ``name`` runs a command only this turn's tool output spelled (see above)."""
    command = str(args.get("command", "")) if name == "exec" else ""
    prov = agent.provenance
    return bool(command.strip()) and passed_on(command, prov.this_turn, prov.said[-1:])
