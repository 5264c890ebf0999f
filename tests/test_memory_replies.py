"""In a conversation the reply to a question holds its answer: when a retrieved chunk asks a question,
the chunk after it (its reply) is lifted more than an ordinary neighbour (real embedder, real
sqlite-vec; ``fusion.spread``'s ``replies``)."""

from __future__ import annotations

import pytest

from nanobot.config import load_settings
from nanobot.memory import fusion
from nanobot.memory.service import MemoryService
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow

TURNS = [
    "Melanie: We went camping at the lake last weekend, the kids loved the campfire.",
    "Caroline: That sounds lovely! I finally finished my painting of the sunset.",
    "Melanie: Wow, what an amazing family picture from the wedding! How long have you two been married?",
    "Caroline: 5 years already! Time flies, feels like yesterday I put on that dress.",
    "Melanie: My husband and I are planning a trip to the mountains for our anniversary.",
    "Caroline: I joined a mentorship program for LGBTQ youth, it is really rewarding.",
    "Melanie: I started running again, it is great for my mental health.",
    "Caroline: My friends and family have been my rocks through everything.",
    "Melanie: The kids were scared after the accident but they are tough.",
    "Caroline: I have known my friends for 4 years, since I moved from my home country.",
    "Melanie: We got another cat named Bailey, and Oliver the dog is doing well.",
    "Caroline: I am reading Becoming Nicole, a book about a trans girl and her family.",
    "Caroline: My brother got married last spring, it was a long ceremony.",
    "Melanie: Caroline, how long is the drive to the lake house?",
    "Caroline: It took a long time to finish the portrait of my grandmother.",
    "Caroline: Married life suits my cousin, she has been so happy.",
]


@pytest.fixture
def svc(home, embedder):
    settings = load_settings()
    init_workspace(settings.workspace)
    lines = ["# Chat", "## 2023-05-08"] + [f"- {t}" for t in TURNS]
    (settings.workspace / "observations").mkdir(exist_ok=True)
    (settings.workspace / "observations" / "chat.md").write_text("\n".join(lines) + "\n")
    service = MemoryService(settings, embedder=embedder)
    service.refresh()
    yield service
    service.close()


def rank_of_reply(svc) -> int:
    hits = svc.search("How long has Caroline been married?", 5)
    texts = [h.text for h in hits]
    return next((i for i, t in enumerate(texts, 1) if t.startswith("Caroline: 5 years already")), 99)


def test_the_reply_to_a_retrieved_question_is_lifted(svc, monkeypatch):
    with_replies = rank_of_reply(svc)
    real = fusion.spread
    monkeypatch.setattr(fusion, "spread", lambda *a, replies=None, **kw: real(*a, **kw))
    without = rank_of_reply(svc)
    print(f"\nthe reply's rank: {with_replies} (without the reply rule: {without})")
    assert with_replies <= 5 < without  # retrieved only through the reply rule
