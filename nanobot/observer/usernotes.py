"""USER.md as memory the user can see: the user's own stated name, preferences, standing instructions
and facts about themselves, each with the sentence they said, in a section nanobot owns.

Extractive, never the model's words: a session's user messages go through ``observer/stated.py`` (the
user's statements about themselves, word for word) and each is sorted into a kind by its wording::

    ## Noted by nanobot
    - Name: Ada (you said: "My name is Ada.")
    - Prefers: (you said: "I prefer short answers.")
    - Instruction: (you said: "Always use metric units.")

The section is added under whatever the user wrote and only ever gains lines: a statement already in
USER.md (anywhere, word for word, case aside) is not added twice; the user may edit or delete any line,
and nanobot never rewrites them (read-merge-write under ``userfile.update_user_file``, so an edit made
meanwhile is merged, not clobbered). It is written at each observation (session end, 80% pressure).
"""

from __future__ import annotations

import re
from pathlib import Path

from nanobot.base.shorten import sentences
from nanobot.base.userfile import update_user_file
from nanobot.base.written import record_written
from nanobot.observer.stated import _REMEMBER, MAX_CHARS

HEADING = "## Noted by nanobot"
NOTE = ("<!-- nanobot adds what you tell it about yourself here, with your words. Edit or delete any "
        "line; lines you change are yours. -->")
MAX_NOTES = 20  # the section stops growing here (USER.md has a ~200-token prompt budget)
_NAME = re.compile(r"\b(?i:my name is|call me|my name's)\s+([A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)")
_IM_NAME = re.compile(r"^(?i:(?:hi|hello|hey)[,!]?\s*)?(?i:i'm|i am)\s+([A-Z][\w'-]+)[.!]?$")
_INSTRUCTION = re.compile(r"^\W*(?:please\s+)?(?:always|never(?! mind)|from now on|in future)\b|"
                          r"\b(?:from now on|every time you|whenever you)\b", re.I)
_PREFER = re.compile(r"\bi (?:prefer|like|love|hate|dislike|enjoy|want)\b|\bmy favou?rite\b", re.I)
_ABOUT = re.compile(r"\b(?:i work|i live|i study|i use|i speak|i(?:'m| am) an? |my (?:job|role|team|company) is)",
                    re.I)


def kind_of(sentence: str) -> str | None:
    """What a stated sentence tells about the user, or None when it is not about them (a task).

    >>> [kind_of(s) for s in ["My name is Ada.", "I prefer short answers.", "Always use metric units.",
    ...                       "I work on a Rust CLI.", "I need to fix the parser."]]
    ['Name', 'Prefers', 'Instruction', 'About', None]
    """
    if _NAME.search(sentence) or _IM_NAME.match(sentence.strip()):
        return "Name"
    if _INSTRUCTION.search(sentence):
        return "Instruction"
    if _PREFER.search(sentence):
        return "Prefers"
    if _ABOUT.search(sentence):
        return "About"
    return None


def notes_from(user_messages: list[str]) -> list[str]:
    """USER.md lines for the user's statements about themselves (``- Kind: (you said: "...")``), each
    sentence word for word (``observer/stated.py``'s sentence rule; questions are not statements).

    >>> notes_from(["Hi, my name is Ada. What is Rust? Always answer briefly. I need to fix a bug."])
    ['- Name: Ada (you said: "my name is Ada.")', '- Instruction: (you said: "Always answer briefly.")']
    """
    lines, seen = [], set()
    for message in user_messages:
        for sentence in sentences(message):
            if sentence.endswith("?") or len(sentence) > MAX_CHARS:
                continue
            quote = _REMEMBER.sub("", sentence, count=1).strip()
            quote = re.sub(r"^(?i:(?:hi|hello|hey)\b[,!]?\s*)", "", quote)
            kind = kind_of(quote)
            if kind is None or quote.lower() in seen or '"' in quote:
                continue
            seen.add(quote.lower())
            name = _NAME.search(quote) or _IM_NAME.match(quote)
            value = f" {name.group(1)}" if kind == "Name" and name else ""
            lines.append(f'- {kind}:{value} (you said: "{quote}")')
    return lines[:MAX_NOTES]


def merge_notes(text: str, lines: list[str]) -> str:
    """``text`` (USER.md) with the ``lines`` it does not already hold added to nanobot's section (made
    at the end when missing); every other byte kept.

    >>> print(merge_notes("# User\\n- Name: Ada\\n", ['- Prefers: (you said: "I prefer tea.")']))
    # User
    - Name: Ada
    <BLANKLINE>
    ## Noted by nanobot
    <!-- nanobot adds what you tell it about yourself here, with your words. Edit or delete any line; lines you change are yours. -->
    - Prefers: (you said: "I prefer tea.")
    <BLANKLINE>
    """
    have = text.lower()
    new = [ln for ln in lines if _quote(ln).lower() not in have]
    if not new:
        return text
    body = text.splitlines()
    at = next((i for i, ln in enumerate(body) if ln.strip() == HEADING), None)
    if at is None:
        tail = [""] if body and body[-1].strip() else []
        return "\n".join([*body, *tail, HEADING, NOTE, *new[:MAX_NOTES]]) + "\n"
    end = next((j for j in range(at + 1, len(body)) if body[j].startswith("#")), len(body))
    while end > at + 1 and not body[end - 1].strip():
        end -= 1  # new lines go right after the section's last line, before blank lines
    room = MAX_NOTES - sum(1 for ln in body[at + 1:end] if ln.startswith("- "))
    body[end:end] = new[:max(room, 0)]
    return "\n".join(body) + "\n"


def note_user(settings, user_messages: list[str]) -> list[str]:
    """Add the user's statements about themselves in ``user_messages`` to USER.md; the lines added."""
    lines = notes_from(user_messages)
    if not lines:
        return []
    path: Path = settings.workspace / "USER.md"
    old, new = update_user_file(path, lambda text: merge_notes(text, lines))
    if new != old:
        record_written(settings.home, settings.workspace, path)
    return [ln for ln in lines if ln in new and ln not in old]


def _quote(line: str) -> str:
    m = re.search(r'\(you said: "(.*)"\)$', line)
    return m.group(1) if m else line
