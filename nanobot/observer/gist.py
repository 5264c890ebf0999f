"""The gist of a session in the user's own words: the sentence that says what the session was about,
for CONTEXT.md's Focus and Recent when the model's draft cannot be used (the extractive fallback) and
as the summary beside a model draft that has no focus of its own.

Not the first message (a greeting, a name, a preference): each sentence of the user's is scored by
how much of the rest of the session it shares content words with (what the session kept coming back
to), plus a bonus for a task's wording ("I need to", "let's", "fix", "add", ...); greetings, thanks,
statements about the user (``observer/usernotes.py`` keeps those) and sentences with fewer than two
content words do not compete; ties go to the later sentence (the current work).

>>> gist(["Hi! My name is Priya.", "I prefer short answers.",
...       "Today I need to add a --name option to greet.py.", "Use argparse for the option in greet.py."])
'Today I need to add a --name option to greet.py.'
>>> gist(["hello"])
'hello'
"""

from __future__ import annotations

import re

from nanobot.base.shorten import sentences, shorten
from nanobot.core.grounding import content_words
from nanobot.observer.usernotes import kind_of

_TASK = re.compile(r"\b(?:i need to|i want to|i'm trying to|i am trying to|let's|help me|how do i|"
                   r"fix|add|write|implement|debug|update|refactor|create|build|plan|explain|change|"
                   r"remove|rename|test|deploy|migrate|port)\b", re.I)
_CHATTER = re.compile(r"^\W*(?:hi|hello|hey|thanks|thank you|ok|okay|great|cool|bye|good (?:morning|night))\b"
                      r"[\W\w]{0,12}$", re.I)
CHARS = 100


def gist(user_messages: list[str], chars: int = CHARS) -> str:
    """The session's gist (see the module docstring), at most ``chars`` long; "" for no messages."""
    said = [s for msg in user_messages for s in sentences(msg)]
    if not said:
        return ""
    words = [content_words(s) for s in said]
    best, best_score = "", -1.0
    for i, s in enumerate(said):
        if len(words[i]) < 2 or _CHATTER.match(s) or kind_of(s) is not None:
            continue
        others = set().union(*(w for j, w in enumerate(words) if j != i)) if len(words) > 1 else set()
        score = len(words[i] & others) + (2 if _TASK.search(s) else 0)
        if score >= best_score:
            best, best_score = s, score
    return shorten(best or said[0], chars)
