"""A reply that is the user's own message again, word for word ("My cat is called Pixel, keep that in
mind." answered with itself after memory_add kept it): no answer, though the call behind it may have done
what was asked. A fact of the turn in any language: difflib's ratio of the two texts. Where a change or
a keeping was asked and none tried, the checks that make it answer (``claimchecks``); otherwise the
reply is asked again with what the call returned, then corrected with it. "I remember that your cat is
called Pixel." says the fact back in the model's own words and stands.
"""

from __future__ import annotations

import difflib

from nanobot.base.shorten import shorten
from nanobot.loop.claimchecks import change_not_tried, remember_not_tried
from nanobot.loop.verdict import CheckResult, Facts

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
