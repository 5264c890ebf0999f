"""Which turns are worked out by a computing tool first (``calculate``): a message that holds a number
(a digit, in any script) and whose answer the model's own sum classifier (``loop.judge``, read through
``agent.judge``, a layer above) is sure is arithmetic on the numbers it gives. A small model answers
such questions from its head and gets them wrong ("1234 times 56" -> 6804 on the 1.5B); it writes the
expression right far more often (10 of 12 of a probe's sums, against 3 of 12 answered directly), and
the tool evaluates it exactly. Its P(call) on such questions stays under the threshold, so the facts and
the judgement make the call, as ``tools.firstlook`` does for looks.
"""

from __future__ import annotations

import re
from typing import Any

from nanobot.tools.effects import Effect, declared

COMPUTING = frozenset({Effect.COMPUTES})
_NUMBER = re.compile(r"\d")


def computing_tool(tools: dict[str, Any]) -> str | None:
    """The offered tool that computes (``Effect.COMPUTES``), if any."""
    return next((name for name, tool in tools.items() if declared(tool) & COMPUTING), None)


def sum_asked(agent: Any) -> bool:
    """Whether the user's last message holds a number and the model is sure its answer is arithmetic on
    the numbers it gives (False where the model cannot say: a server, a scripted model)."""
    said = agent.provenance.said
    judge = getattr(agent, "judge", None)
    if not said or not _NUMBER.search(said[-1]) or not callable(getattr(judge, "sure", None)):
        return False
    return judge.sure(agent, "sum") is True
