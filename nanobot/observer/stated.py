"""Stated facts: what the user says about themselves, or asks to be remembered, kept word for word.

The extractive floor under the model's draft: whatever the model writes (or fails to write), a
sentence of the user's that states something about them ("my name is ...", "I prefer ...",
"I work on ...", "call me ...") or asks to be remembered ("remember that ...") becomes a fact
``User said: "<the sentence>"`` whose evidence is the sentence itself. Questions are not statements.
It depends on the user's words only, never on the model's.

>>> stated_facts(["Hi! My name is Ada and I work on Ferrum. What is Rust?",
...               "Please remember that the demo is on Friday."])
[('User said: "My name is Ada and I work on Ferrum."', 'My name is Ada and I work on Ferrum.'), ('User said: "the demo is on Friday."', 'the demo is on Friday.')]
"""

from __future__ import annotations

import re

from nanobot.base.shorten import sentences

_SELF = re.compile(
    r"\b(my \w+(?: \w+)? (?:is|are|was)\b|call me\b|i(?:'m| am) (?!sure|not sure|sorry|glad|wondering)"
    r"|i (?:prefer|like|love|hate|dislike|enjoy|use|work|live|study|own|have (?:a|an|two|three)\b|speak|need to))",
    re.I)
_REMEMBER = re.compile(r"^\W*(?:please\s+|can you\s+|could you\s+)?(?:always\s+)?remember(?:\s+that)?\s*:?\s*", re.I)
MAX_CHARS = 200


def stated_facts(user_messages: list[str], limit: int = 6) -> list[tuple[str, str]]:
    """(fact, quote) for the user's statements about themselves, first said first, at most ``limit``."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for message in user_messages:
        for sentence in sentences(message):  # "utils.py" is one word, not a sentence end
            if sentence.endswith("?") or len(sentence) > MAX_CHARS or '"' in sentence:
                continue
            rest = _REMEMBER.sub("", sentence, count=1)
            if rest == sentence and not _SELF.search(sentence):
                continue
            quote = rest.strip()
            if len(re.findall(r"\w", quote)) < 3 or quote.lower() in seen:
                continue
            seen.add(quote.lower())
            out.append((f'User said: "{quote}"', quote))
    return out[:limit]
