"""The per-turn memory block: what the Agent puts in front of the user's message.

``MemoryRetriever(service, count_tokens, settings)(query, history)`` searches with the message (a
short follow-up also borrows the previous user message, for the vector side), keeps hits whose
cosine similarity clears ``memory.min_score``, drops duplicates and anything already in the recent
conversation, and fits what is left, best first, into ``prompt.memory`` tokens: observations as
"Related Context:" with ``memory.observations_share`` of it, earlier sessions' turns as "Past
Conversations:" with ``memory.transcripts_share`` (never the current session's own turns; the lines
kept are then put in the order they were said), the rest as "Relevant Memory:", unused room flowing
across (``shares.py``)::

    Relevant Memory:
    - Family: Wife is Ana, birthday 12 May (MEMORY.md:4)
    - Project Zephyr deploys with `make ship` (knowledge/zephyr.md:10)

    Related Context:
    - Chose csv+serde for the parser (observations/20260301-100000-abcd.md:7)

    Past Conversations:
    - 1 March 2026, User: the flat in Porto has two rooms

Nothing clears the floor -> "" and nothing is injected.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nanobot.backends.base import Message
from nanobot.config import Settings
from nanobot.core.prompt import trim_to_budget
from nanobot.memory.service import MemoryService
from nanobot.memory.shares import (
    MEMORY_HEADER,
    PAST_HEADER,
    RELATED_HEADER,
    is_observation,
    split_fit,
)
from nanobot.memory.store import Hit
from nanobot.memory.transcripts import is_transcript

HEADER = MEMORY_HEADER
SHORT_QUERY_WORDS = 6  # a message this short borrows the previous user message as context
RECENT_MESSAGES = 4  # hits already shown in the last few messages are not repeated


class MemoryRetriever:
    def __init__(self, service: MemoryService, count_tokens: Callable[[str], int], settings: Settings):
        self.service = service
        self.count_tokens = count_tokens
        self.settings = settings

    def __call__(self, query: str, history: list[Message], session_id: str | None = None) -> str:
        budget = self.settings.prompt.memory
        if budget <= 0 or not query.strip():
            return ""
        hits = self.service.search(query, self.settings.memory.k, context=_context(query, history),
                                   exclude_session=session_id)
        kept = select(hits, self.settings.memory.min_score, history, query)
        said_when = {format_past(h): (h.source, h.line) for h in kept if is_transcript(h.source)}
        kept = [h for h in kept if not is_transcript(h.source)]
        memory = [format_hit(h) for h in kept if not is_observation(h.source)]
        related = [format_hit(h) for h in kept if is_observation(h.source)]
        return in_order(split_fit(memory, related, budget, self.settings.memory.observations_share,
                                  self.count_tokens, fit, past=list(said_when),
                                  past_share=self.settings.memory.transcripts_share), said_when)


def in_order(block: str, said_when: dict[str, tuple[str, int]]) -> str:
    """``block`` with its past conversations' lines in the order they were said (a transcript is named
    by its start time, a line by its place): which lines come in is the search's choice, best first,
    and they are then read as the conversation went, so "yesterday" sits under its own day and
    what was said later comes later.

    >>> in_order("Past Conversations:\\n- b\\n- a", {"- a": ("sessions/1.jsonl", 2), "- b": ("sessions/2.jsonl", 1)})
    'Past Conversations:\\n- a\\n- b'
    """
    head, sep, past = block.partition(f"{PAST_HEADER}\n")
    if not sep:
        return block
    return head + sep + "\n".join(sorted(past.split("\n"), key=lambda line: said_when.get(line, ("", 0))))


def _context(query: str, history: list[Message]) -> str:
    if len(query.split()) >= SHORT_QUERY_WORDS:
        return ""
    prev = next((m.content for m in reversed(history) if m.role == "user"), "")
    for header in (HEADER, RELATED_HEADER, PAST_HEADER):  # a previous turn's block is not context
        prev = prev.split(f"{header}\n", 1)[-1]
    return prev.rsplit("\n\n", 1)[-1][-300:]


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def select(hits: list[Hit], floor: float, history: list[Message], query: str = "") -> list[Hit]:
    """Hits above the floor, without duplicates, what the recent conversation already holds, or a hit
    with no word the message ``query`` lacks (an earlier session's "User: hi" for "hi": the closest
    match there is, and nothing to know; the speaker's label aside).

    Of lines with the same words (a question asked in several sessions), the best one's place is
    kept and the newest copy is cited (the greatest source, line): the block then reads the same
    whichever copy a draft's query happened to rank first, so what the prefill evaluated while the
    person typed is still the block after Enter (``nanobot.core.prefill``)."""
    recent = _norm(" ".join(m.content for m in history[-RECENT_MESSAGES:]))
    asked = set(_norm(query).split())
    newest: dict[str, Hit] = {}
    for h in hits:
        n = _norm(h.text)
        if h.score >= floor and (n not in newest or (h.source, h.line) > (newest[n].source, newest[n].line)):
            newest[n] = h
    seen: list[str] = []
    out: list[Hit] = []
    for h in hits:
        n = _norm(h.text)
        if h.score < floor or not n or n in recent or set(_norm(said(h)).split()) <= asked:
            continue
        if any(n in s or s in n for s in seen):
            continue
        seen.append(n)
        out.append(newest[n])
    return out


def said(h: Hit) -> str:
    """A hit's words without a past conversation's speaker label ("User: hi" -> "hi")."""
    return h.text.split(": ", 1)[-1] if is_transcript(h.source) else h.text


def format_past(h: Hit) -> str:
    """A past conversation's line: its day, then who said what. Its source (``sessions/<id>.jsonl:LINE``)
    is left out: the day and the speaker say where it came from; a small model reads a file reference
    as a path to open, and a question asked in several sessions would cite a different copy at every
    word typed, changing the block the prefill had evaluated (``memory search`` shows the source)."""
    return f"- {h.heading}, {' '.join(h.text.split())}"


def format_hit(h: Hit) -> str:
    text = " ".join(h.text.split())
    topic = h.heading.split(" > ")[-1] if h.heading else ""
    return f"- {topic + ': ' if topic else ''}{text} ({h.where})"


def fit(lines: list[str], budget: int, count: Callable[[str], int], header: str = HEADER) -> str:
    """``header`` plus as many lines (best first) as fit in ``budget`` tokens; "" if none.

    >>> fit(["- a b", "- c d e f"], 6, lambda t: len(t.split()))
    'Relevant Memory:\\n- a b'
    """
    if not lines:
        return ""
    kept: list[str] = []
    for line in lines:
        if count("\n".join([header, *kept, line])) <= budget:
            kept.append(line)
    if not kept:  # even the best one is too long: cut it at a word boundary
        room = budget - count(header) - 1
        first = trim_to_budget(lines[0], room, count) if room > 0 else ""
        return f"{header}\n{first}" if first.strip("- ") else ""
    return "\n".join([header, *kept])
