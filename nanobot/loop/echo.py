"""nanobot's notes to the model, echoed in its reply without their brackets: found and removed.

The notes are the fixed ones a call's result carries ("The call ran; answer the user in plain text from
its result above") and every note a reply check sent this turn ("[nanobot: you have not looked at
notes/ this turn. Call list_dir for it now, or say you cannot.]"). A small model copies them into its
answer as if they were its own words; each sentence of a note (three words or more) is removed
wherever the reply holds it, in any case and spacing, and ``start`` tells a stream where a sentence
that may still become one begins, so it is held back until it is known.

>>> Echoes(["[nanobot: you have not looked at notes/ this turn. Call list_dir for it now, or say you cannot.]"]).sub(
...     "Here they are. You have not looked at notes/ this turn.  Call list_dir for it now, or say you cannot.")
'Here they are.'
>>> Echoes().sub("The call ran; answer the user in plain text from its result above. It holds 3 lines.")
' It holds 3 lines.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import regex

# the notes every turn may send (templatecalls.AFTER_CALL/REASK/answer_note, textcall.run_written)
FIXED = (r"(?:(?:the call(?: the user asked for| you wrote)?|the command your reply proposed) ran; answer the user "
         r"in plain text from its result above(?:, without another call)?\.?|your reply was empty\. answer the user in plain text now\.?"
         r"|answer that from the result above, in plain sentences\.?)")
_NOTE = re.compile(r"^\s*[\[(]nanobot:\s*|[\])]\s*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
HOLD_MAX = 240  # how far back a sentence that may become an echo is looked for


def sentences(note: str) -> list[str]:
    """The sentences of ``note`` worth matching in a reply: three words or more, brackets taken off.

    >>> sentences("[nanobot: nothing was changed: no tool ran this turn. Try again.]")
    ['nothing was changed: no tool ran this turn.']
    """
    return [s for s in _SENTENCE.split(_NOTE.sub("", note).strip()) if len(s.split()) >= 3]


class Echoes:
    """The echoes of the fixed notes and of ``notes`` (each as sent, brackets and all)."""

    def __init__(self, notes: Iterable[str] = ()) -> None:
        said = [s for n in notes for s in sentences(n)]
        alts = [FIXED, *(r"\s+".join(map(regex.escape, s.split())) for s in said)]
        self._firsts = {"t", "y", "a", *(s[0].lower() for s in said)}  # the letters an echo can begin with
        self._start = regex.compile("(?:" + "|".join(alts) + ")", regex.I)
        self._sub = regex.compile(r"\s*(?:" + "|".join(alts) + ")", regex.I)

    def sub(self, text: str) -> str:
        """``text`` without the echoed sentences."""
        return self._sub.sub("", text)

    def start(self, text: str) -> int:
        """Where, in the last ``HOLD_MAX`` characters of ``text``, a word begins that starts what may
        still become an echo by its end; ``len(text)`` when none does."""
        base = max(0, len(text) - HOLD_MAX)
        for m in re.finditer(r"(?<![^\s.!?…])\w", text[base:]):  # a word's start: tried where an echo may begin
            if m.group(0).lower() in self._firsts and self._start.fullmatch(text, pos=base + m.start(), partial=True):
                return base + m.start()
        return len(text)
