"""A small model that copies the observer's instruction into its notes must not pollute CONTEXT.md."""

import json

from nanobot.backends.base import Message
from nanobot.backends.scripted import ScriptedModel
from nanobot.observer.observer import generate_draft


def test_parroted_instruction_is_dropped_real_content_kept():
    reply = json.dumps({
        "summary": "Take notes on our conversation so far as JSON: a one-sentence summary, topic, or",
        "focus": "Rust CLI for log analysis", "task": "", "decisions": [], "open_items": [],
        "facts": ["the user's current task, decisions made, open questions", "User's name is Ada"],
    })
    draft = generate_draft(ScriptedModel([reply]), [Message(role="user", content="x")], 200)
    assert draft is not None
    assert draft.summary == ""
    assert draft.focus == "Rust CLI for log analysis"
    assert draft.facts == ["User's name is Ada"]
