"""Grounding: does a written item rest on what was actually said? One verifier, shared by the observer
(CONTEXT.md / observations), the reflector (MEMORY.md) and per-chat consolidation's reviewer.

An item is kept only when its quote occurs in the transcript (whitespace, case, quote marks and
punctuation at the edges normalised), the item shares content words with the quote (at least one, and at
least ``MIN_SUPPORT`` of the item's own: measured on the bundled model's drafts, bench/grounding_bench.py,
where items sharing one word with a real quote and saying more were paraphrases the conversation did not
support), and the item does not mostly repeat the instructions the model was given (a general n-gram
rule, not a phrase list: on the same drafts it caught 79 parroted items and dropped no real one).

>>> said = "User: My name is Ada and I work on Ferrum.\\nAssistant: Nice to meet you."
>>> check("User's name is Ada", "my name is  ADA", said).kept
True
>>> check("User likes Go", "I love Go", said).reason
'quote not in transcript'
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_WORD = re.compile(r"[a-z0-9][a-z0-9'_-]*")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "`": "'"})
STOP = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being am do does did "
    "i me my we our you your he she it its they them their this that these those there here what which who "
    "whom how why when where so not no yes can could will would should shall may might must have has had "
    "just also very too about into over under than then now up out all any some more most such only own "
    "user assistant".split())
MIN_QUOTE_CHARS = 3
MIN_SUPPORT = 0.5  # share of an item's content words its quote must have (bench/grounding_bench.py)


class Verdict(BaseModel):
    kept: bool
    reason: str = ""


def normalise(text: str) -> str:
    """Lower case, one space between words, typographic quotes made plain, edge punctuation gone."""
    text = " ".join(text.translate(_QUOTES).lower().split())
    return text.strip(" \"'.,;:!?()[]")


def words(text: str) -> list[str]:
    return _WORD.findall(text.translate(_QUOTES).lower())


def content_words(text: str) -> set[str]:
    """Words that carry content: not stop words, possessive 's dropped ("user's" is "user")."""
    out = set()
    for w in words(text):
        w = w.strip("'")
        w = w[:-2] if w.endswith("'s") else w
        if w not in STOP and len(w) > 1:
            out.add(w)
    return out


def quote_found(quote: str, transcript: str) -> bool:
    q = normalise(quote)
    return len(q) >= MIN_QUOTE_CHARS and q in normalise(transcript)


def _meets(x: str, y: str) -> bool:
    return x == y or (min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x)))


def support(item: str, quote: str) -> float:
    """The share of the item's content words that the quote has (prefix-matched, so 'prefers' meets
    'prefer'); 0 for an item without content words."""
    a, b = content_words(item), content_words(quote)
    return sum(any(_meets(x, y) for y in b) for x in a) / len(a) if a else 0.0


def shares_content(item: str, quote: str, min_support: float = MIN_SUPPORT) -> bool:
    """The item says something the quote says: at least one content word in common, and at least
    ``min_support`` of the item's content words."""
    s = support(item, quote)
    return s > 0 and s >= min_support


def repeats_instructions(item: str, instructions: str, share: float = 0.4, spoken: str = "") -> bool:
    """Much of the item's word pairs (those with a content word) appear in the instructions: the model
    parroted its prompt. Pairs the user said (``spoken``) are the user's words, not the prompt's, even
    where the prompt quotes them (CONTEXT.md's Task, USER.md's notes): they never count.

    >>> ctx = "Take notes. Now: the task is to add a --name option to greet.py"
    >>> repeats_instructions("add a --name option to greet.py", ctx)
    True
    >>> repeats_instructions("add a --name option to greet.py", ctx, spoken="I need to add a --name option to greet.py")
    False
    """
    iw, pw = words(item), words(instructions)
    pairs = [p for p in zip(iw, iw[1:]) if not (p[0] in STOP and p[1] in STOP)]
    if not pairs or not pw:
        return False
    sw = words(spoken)
    known = set(zip(pw, pw[1:])) - set(zip(sw, sw[1:]))
    return sum(p in known for p in pairs) / len(pairs) >= share


def check(item: str, quote: str, transcript: str, instructions: str = "", spoken: str = "") -> Verdict:
    """Keep ``item`` only if ``quote`` backs it (see the module docstring); the reason says why not.
    ``spoken``: what only the user said (not the assistant), whose words never count as the
    instructions' (``repeats_instructions``)."""
    if not item.strip():
        return Verdict(kept=False, reason="empty item")
    if instructions and repeats_instructions(item, instructions, spoken=spoken):
        return Verdict(kept=False, reason="repeats the instructions")
    if not quote_found(quote, transcript):
        return Verdict(kept=False, reason="quote not in transcript")
    if instructions and repeats_instructions(quote, instructions, spoken=spoken):
        return Verdict(kept=False, reason="quote is the instructions")
    if not shares_content(item, quote):
        return Verdict(kept=False, reason="item does not share content with its quote")
    return Verdict(kept=True)
