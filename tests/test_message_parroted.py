"""A reply that is the user's own message again, word for word, is no answer (``loop/claims.py``): asked
again with what the call returned, then corrected with it; a restatement in the model's words stands."""

from __future__ import annotations

from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult, TurnDone
from nanobot.loop.replycheck import check
from nanobot.memory.tools import MemoryAdd
from nanobot.runtime import build_agent
from tests.test_templatecalls import ToolTemplateModel, body

ASK = "My cat is called Pixel, keep that in mind."
KEPT = [ToolCall(name="memory_add", arguments={"text": "My cat is called Pixel."}),
        ToolResult(name="memory_add", ok=True, text="remembered (observations/notes-2026-12-01.md:1)")]
TOOLS = {"memory_add": MemoryAdd()}


def test_the_message_said_back_word_for_word_is_asked_again_with_the_result():
    result = check(ASK, ASK, KEPT, asked_change=True, tools=TOOLS)
    assert result.problem == "the reply repeats the user's message"
    assert "memory_add returned: remembered (observations/notes-2026-12-01.md:1)" in result.note
    assert "memory_add returned" in result.correction


def test_a_restatement_in_the_models_words_stands():
    assert not check(ASK, "Got it: your cat is called Pixel.", KEPT, asked_change=True, tools=TOOLS).problem
    assert not check(ASK, "I remember that your cat is called Pixel.", KEPT, asked_change=True, tools=TOOLS).problem
    assert not check("thanks", "thanks", [], tools=TOOLS).problem  # short: it may come back as sent


def test_a_turn_whose_reply_parrots_the_message_gets_the_models_own_answer(home):
    model = ToolTemplateModel([body("memory_add", {"text": "My cat is called Pixel."}), ASK,
                               "Got it, your cat is called Pixel."], [0.99] + [0.01] * 8)
    settings = load_settings(home, tools={"enabled": ["memory_add"], "listing": "full"}, observer={"enabled": False},
                             kv_cache={"enabled": False})
    agent = build_agent(settings, model)
    events = list(agent.turn(ASK))
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["memory_add"]
    done = [e for e in events if isinstance(e, TurnDone)][-1]
    assert done.reply == "Got it, your cat is called Pixel."
    assert "Pixel" in (settings.workspace / "MEMORY.md").read_text()
