"""Pass B, the reviewer, in code: which suggestions reach the file, and what the file keeps.

1. Each suggestion's quote must occur in the window the model read (``nanobot.core.grounding.check``:
   whitespace, case and edge punctuation normalised; the item must share content with its quote and
   not repeat the instructions), and in a *user's* message: a quote found only in the assistant's
   words drops the item (the team's notes are what people said). A fabricated or paraphrased quote
   drops the item. The item is dated by the newest user message that holds the quote, and credited to
   the speaker who raised it: the earliest user message (of those read this time, up to the window)
   that holds the quote or says the item at least as well as the quote does.
2. An item marked resolved is dropped, and takes the file's matching item with it. A Pending or
   Ongoing item also leaves when a later user message says it is done (``completion.py``), whether
   or not the model marked it.
3. The rest merge with the file: an item the same as one already there (same text, or embedding
   similarity >= ``merge_similarity``) only moves that item's date forward; no duplicates.
4. Items not mentioned for ``prune_days`` days are pruned; Recent Topics keeps the ``topics`` newest.
Every decision is recorded with its reason (``nanobot consolidate --verbose`` shows them).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel, Field

from nanobot.chats import completion
from nanobot.chats.contextfile import ContextFile, Item
from nanobot.chats.messages import ChatMessage
from nanobot.chats.suggester import CATEGORY, INSTRUCTION, Suggestion, Window
from nanobot.core.grounding import check, normalise, quote_found, support

Similarity = Callable[[list[str], list[str]], list[list[float]]]


class Decision(BaseModel):
    category: str
    item: str
    quote: str = ""
    outcome: str  # "added" | "merged" | "dropped" | "removed" | "pruned"
    reason: str = ""


class Review(BaseModel):
    doc: ContextFile
    decisions: list[Decision] = Field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(d.outcome == outcome for d in self.decisions)


def review(doc: ContextFile, windows: list[Window], messages: list[ChatMessage], now: datetime,
           similarity: Similarity, *, merge_similarity: float = 0.85, prune_days: int = 14,
           topics: int = 5) -> Review:
    out = Review(doc=doc.model_copy(update={"items": [i.model_copy() for i in doc.items]}))
    mentioned: dict[int, datetime] = {}  # id(item) -> its newest mention read this time
    for w in windows:
        for s in w.suggestions:
            _one(out, s, w, messages[: w.last + 1], similarity, merge_similarity, mentioned)
    _complete(out, messages, mentioned)
    _prune(out, now, prune_days, topics)
    return out


def _one(out: Review, s: Suggestion, w: Window, upto: list[ChatMessage], sim: Similarity,
         threshold: float, mentioned: dict[int, datetime]) -> None:
    cat = CATEGORY[s.category]
    verdict = check(s.item, s.quote, w.text, INSTRUCTION)
    if not verdict.kept:
        out.decisions.append(Decision(category=cat, item=s.item, quote=s.quote, outcome="dropped",
                                      reason=verdict.reason))
        return
    users = [m for m in upto if m.role == "user"]
    in_window = [m for m in users[::-1] if m.ts >= upto[w.first].ts and quote_found(s.quote, m.line())]
    if not in_window:
        out.decisions.append(Decision(category=cat, item=s.item, quote=s.quote, outcome="dropped",
                                      reason="quote is the assistant's, not a user's"))
        return
    mention = in_window[0]  # the newest user message that holds the quote
    bar = support(s.item, s.quote)
    raised = next(m for m in users if quote_found(s.quote, m.line()) or support(s.item, m.text) >= max(bar, 0.5))
    item = Item(category=cat, text=" ".join(s.item.split()), date=mention.ts.date(), who=raised.speaker)
    same = _same(out.doc, item, sim, threshold)
    if s.resolved:
        for old in same:
            out.doc.items.remove(old)
            out.decisions.append(Decision(category=cat, item=old.text, outcome="removed",
                                          reason=f"resolved: {s.item}"))
        out.decisions.append(Decision(category=cat, item=s.item, quote=s.quote, outcome="dropped",
                                      reason="marked resolved"))
    elif same:
        old = same[0]
        old.date = max(old.date, item.date)
        old.who = old.who or item.who
        mentioned[id(old)] = max(mentioned.get(id(old), mention.ts), mention.ts)
        out.decisions.append(Decision(category=cat, item=s.item, quote=s.quote, outcome="merged",
                                      reason=f"same as {old.text!r}; date {old.date}"))
    else:
        out.doc.items.append(item)
        mentioned[id(item)] = mention.ts
        out.decisions.append(Decision(category=cat, item=s.item, quote=s.quote, outcome="added",
                                      reason=f"quote found, last mentioned {item.date}"))


def _complete(out: Review, messages: list[ChatMessage], mentioned: dict[int, datetime]) -> None:
    """Pending/Ongoing items that a later user message says are done leave the file."""
    for i in [i for i in out.doc.items if i.category in completion.CATEGORIES]:
        m = completion.evidence(i.text, messages, mentioned.get(id(i)))
        if m is not None:
            out.doc.items.remove(i)
            out.decisions.append(Decision(category=i.category, item=i.text, quote=m.text, outcome="removed",
                                          reason=f"completed: {m.who} said {' '.join(m.text.split())[:80]!r}"))


def _same(doc: ContextFile, item: Item, sim: Similarity, threshold: float) -> list[Item]:
    """Items of ``doc`` in ``item``'s section that say the same thing, best match first."""
    peers = [i for i in doc.items if i.category == item.category]
    if not peers:
        return []
    exact = [p for p in peers if normalise(p.text) == normalise(item.text)]
    scores = sim([item.text], [p.text for p in peers])[0]
    close = sorted(((s, p) for s, p in zip(scores, peers) if s >= threshold and p not in exact),
                   key=lambda sp: -sp[0])
    return exact + [p for _, p in close]


def _prune(out: Review, now: datetime, prune_days: int, topics: int) -> None:
    """Drop items not mentioned for ``prune_days`` and topics beyond the newest ``topics`` -- by
    identity, in one pass (``list.remove`` per item compared models pairwise: minutes for a 10 MB file)."""
    today = now.date()
    gone: set[int] = set()
    for i in out.doc.items:
        if (today - i.date).days >= prune_days:
            gone.add(id(i))
            out.decisions.append(Decision(category=i.category, item=i.text, outcome="pruned",
                                          reason=f"not mentioned since {i.date} ({prune_days}+ days)"))
    kept = sorted((i for i in out.doc.items if i.category == "topics" and id(i) not in gone),
                  key=lambda i: i.date, reverse=True)
    for i in kept[topics:]:
        gone.add(id(i))
        out.decisions.append(Decision(category="topics", item=i.text, outcome="pruned",
                                      reason=f"beyond the {topics} newest topics"))
    out.doc.items = [i for i in out.doc.items if id(i) not in gone]
