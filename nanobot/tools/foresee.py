"""A draft's first tool step, judged while the person pauses before Enter.

Before a turn's reply, its first step asks the model up to four things about the message: P(call)
(``TemplateCalls.decide``), in the fit band the tool it would pick and whether that tool fits
(``TemplateCalls.fitting``), and from ``firstlook.ASK_FLOOR`` (on a later message, always) the look
classifier. ``foresee`` asks them of the draft as the turn will ask them of the message, on the
prefill thread; each answer is kept where the turn looks first (the backend's scored prompts and
yes/no answers, the runner's picks, the draft's judge), so a message sent as drafted finds them
answered. Each is asked only where the one before says the turn will ask it, and none starts once
``stop`` is set (a keystroke, Enter): Enter waits at most for the one under way, whose answer the turn
then reads. ``Agent.judge_draft`` gives the agent a judge of the draft while they are asked (the
message's text is what the fit check and the classifiers judge).
"""

from __future__ import annotations

import threading

from nanobot.backends.base import Message
from nanobot.core.features import Agent
from nanobot.tools.firstlook import ASK_FLOOR
from nanobot.tools.fitcheck import FIT_FLOOR


def foresee(agent: Agent, messages: list[Message], stop: threading.Event) -> None:
    """Ask the first step's judgements of ``messages`` (ending with the draft as the turn will send
    it; ``agent.judge``'s context is the draft) until ``stop`` is set."""
    p = _decided(agent, messages, stop)
    if p is not None and p >= ASK_FLOOR and not stop.is_set():
        agent.judge.classified(agent, "look")
    if agent.provenance.said and not stop.is_set():  # a later message: asked whenever a call is declined
        agent.judge.probability(agent, "look")


def _decided(agent: Agent, messages: list[Message], stop: threading.Event) -> float | None:
    """P(call) of the first step, and the pick and fit check where it falls in their band; None
    without template calls (then no decision is scored)."""
    runner = agent.tool_runner
    if runner is None or not runner.template_calls(agent) or stop.is_set():
        return None
    from nanobot.tools.templatecalls import TemplateCalls

    calls = TemplateCalls(runner)
    msgs = calls.messages(messages)
    p = calls.decide(agent, msgs, True)
    if calls.fit_on(agent, 0) and p >= FIT_FLOOR and not stop.is_set():
        calls.fitting(agent, msgs, 0, p)
    return p
