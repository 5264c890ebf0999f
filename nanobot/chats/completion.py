"""Evidence of completion: a Pending or Ongoing item leaves the file when a later user message says it
is done, whether or not the model marked it ``resolved`` (small models rarely do).

A message is evidence for an item when (1) it is a user's message (never the assistant's), (2) it is
later than the item's newest mention (items already in the file: any message read this time, which all
came after it), (3) it says something is finished -- a completion word (done, finished, sent, fixed,
paid, booked, ...) -- and does not say it is still to come (not, yet, still, need to, will, ...), and
(4) it is about the item: it shares at least a third of the item's content words (``grounding.support``,
prefix-matched, so "invoices" meets "invoice"), and at least one.

>>> m = ChatMessage(ts=datetime(2026, 11, 20, 9), role="user", speaker="bob", text="Invoice for ACME sent!")
>>> evidence("Send the invoice to ACME", [m], None).text
'Invoice for ACME sent!'
>>> evidence("Send the invoice to ACME", [m.model_copy(update={"text": "I have not sent the invoice"})], None)
"""

from __future__ import annotations

import re
from datetime import datetime

from nanobot.chats.messages import ChatMessage
from nanobot.core.grounding import content_words, support

DONE = re.compile(r"\b(done|finished|completed|complete|sent|shipped|fixed|merged|resolved|closed|paid|"
                  r"submitted|booked|delivered|deployed|released|published|cancell?ed|canceled|handled|"
                  r"sorted|signed|returned|renewed|scheduled|ordered|replied|answered|called|emailed)\b",
                  re.IGNORECASE)
STILL = re.compile(r"n't\b|\b(not|never|yet|still|need|needs|must|should|will|going to|have to|has to|"
                   r"to be|todo|to do|remind|later|tomorrow|soon|almost|nearly|half)\b", re.IGNORECASE)
MIN_SHARE = 1 / 3  # of the item's content words the message must have
CATEGORIES = ("pending", "ongoing")


def says_done(text: str) -> bool:
    return bool(DONE.search(text)) and not STILL.search(text)


def evidence(item: str, messages: list[ChatMessage], after: datetime | None) -> ChatMessage | None:
    """The first user message after ``after`` (any, when None) that says ``item`` is done; else None."""
    if not content_words(item):
        return None
    for m in messages:
        if m.role != "user" or (after is not None and m.ts <= after):
            continue
        if says_done(m.text) and support(item, m.text) >= MIN_SHARE:
            return m
    return None
