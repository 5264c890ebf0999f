"""What the user's last message leaves open, for CONTEXT.md's Task or Next: the message without
its leading parts that are done or say nothing.

A person coming back needs the step still ahead, and the message that closes a session often starts
with what a tool then did ("Show me git status; I won't commit yet, Jonas reviews it tomorrow")
and the step comes after it. Facts decide, not phrasing: a leading part (a sentence, or a clause
ending in ``;``) is done when it names what a tool of that last turn ran on (a command's words, a
file's name), and says nothing when it is one word ("Nice.", "Genau."). The rest is kept whole, up
to ``CHARS``, shortened at a clause (``base/shorten``); only leading parts go, so what stays is
the user's words as said (its quote grounds it). When a tool did all of it, nothing is left open
(the outcome says what ran); when nothing else is left, the whole message stays.
A group chat's speaker ("Jana: Genau. Und Lukas reserviert bis Mittwoch.") stays in front.

>>> from nanobot.observer.toolevents import ToolEvent
>>> ran = [ToolEvent(name="exec", args={"command": "git status --short"})]
>>> left_open("Nice. Show me git status; I won't commit yet, Jonas reviews it first.", ran)
"I won't commit yet, Jonas reviews it first."
>>> left_open("Jana: Genau. Und Lukas reserviert bis Mittwoch.", [])
'Jana: Und Lukas reserviert bis Mittwoch.'
>>> left_open("run the tests", [ToolEvent(name="exec", args={"command": "pytest -q"})])
'run the tests'
>>> left_open("run the tests with pytest -q", [ToolEvent(name="exec", args={"command": "pytest -q"})])
''
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from nanobot.base.shorten import sentences, shorten
from nanobot.observer.contextmd import MAX_VALUE_CHARS as CHARS
from nanobot.observer.toolevents import ToolEvent
from nanobot.tools.shell import named_in

_PART = re.compile(r"(?<=;)\s+")
_WORD = re.compile(r"[\w./-]+")
_SPEAKER = re.compile(r"^[^\s:]{1,30}: ")


def still_open(asked: list[str], events: list[ToolEvent], chars: int = CHARS) -> str:
    """What the session leaves open: the last message's open part, or, when its tools did all of
    it ("run the tests with pytest -q", and they ran), the message before it, and so on back: an
    edit that failed is still the task after the run that followed it."""
    for back, message in enumerate(reversed(asked)):
        if left := left_open(message, events, chars, back):
            return left
    return ""


def left_open(message: str, events: list[ToolEvent], chars: int = CHARS, back: int = 0) -> str:
    """``message`` (the user's last, or the one ``back`` messages before it) from its first part
    that is not done or empty (see the module docstring); "" when its turn's tools did all of it."""
    ran = [e for e in events if e.back == back and e.ok]
    speaker = _SPEAKER.match(message)  # a group chat's "Jana: ...": who says it stays
    said = message[speaker.end():] if speaker else message
    parts = [p for s in sentences(said) for p in _PART.split(s) if p]
    start, did = 0, False
    while start < len(parts) and (len(_WORD.findall(parts[start])) <= 1 or _does(parts[start], ran)):
        did = did or _does(parts[start], ran)
        start += 1
    if start == len(parts) and did:
        return ""  # all of it done: the outcome says so, nothing is left open
    if start == 0 or start == len(parts):
        return shorten(message, chars)
    return shorten((speaker.group(0) if speaker else "") + " ".join(parts[start:]), chars)


def _does(part: str, events: list[ToolEvent]) -> bool:
    """Whether ``part`` names what one of ``events`` ran on: its command, or its file's name."""
    words = {w.lower().rstrip(".,;:") for w in _WORD.findall(part)}
    for e in events:
        path = PurePosixPath(str(e.args.get("path", ""))).name.lower()
        if named_in(part, str(e.args.get("command", ""))) or (path and path in words):
            return True
    return False


def quote_of(value: str) -> str:
    """The words as said behind a ``left_open`` value: without its "…" and a speaker put in front."""
    return _SPEAKER.sub("", value.rstrip("…"), count=1)
