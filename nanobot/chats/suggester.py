"""Pass A, the suggester: the model reads the chat's new messages and proposes items, each with a quote.

Messages are packed, in order, into windows that fit ``n_ctx`` (with room for the instruction and the
reply); each message lands in exactly one window, so a chat is read once, never re-read window after
window. Per window the model writes ``{"items": [...]}`` under a GBNF grammar built from the
``Suggestion`` schema (1-4 items, every string bounded), at temperature 0 with a bounded ``max_tokens``.
Nothing here judges the items: that is the reviewer's job (``reviewer.py``).

>>> parse_suggestions('{"items": [{"category": "pending", "item": "Send invoice", "quote": "send the inv')
[]
>>> parse_suggestions('{"items": [{"category": "topic", "item": "Tea", "quote": "tea", "resolved": false}, {"cat')[0].item
'Tea'
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from nanobot.backends.base import ChatModel, Message
from nanobot.chats.messages import ChatMessage
from nanobot.tools.grammar import args_grammar

CATEGORY = {"ongoing": "ongoing", "pending": "pending", "topic": "topics", "preference": "preferences"}
ITEM_CHARS, QUOTE_CHARS, MAX_ITEMS = 80, 120, 4
USER_CLIP, ASSISTANT_CLIP = 600, 240  # characters of one message the suggester reads
SYSTEM = "You keep short notes about a chat, backed by exact quotes."
INSTRUCTION = (
    "List what this chat is about as JSON items. category: ongoing (a project in progress), pending "
    "(a follow-up still to do), topic (something discussed) or preference (how the user likes things). "
    "item: a short note. quote: words copied exactly from the chat that show it. resolved: true if it "
    "is finished or no longer wanted. Example: "
    '{"items": [{"category": "pending", "item": "Call the bank", "quote": "I need to call the bank", '
    '"resolved": false}]}')


# A note's or a quote's characters: JSON string characters less braces and brackets, so the model
# cannot wander into writing JSON inside a string ('... emojis. }, {').
TEXT_CHAR = r'tchar ::= [^"\\{}\[\]\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'


class Suggestion(BaseModel):
    category: Literal["ongoing", "pending", "topic", "preference"]
    item: str = Field(max_length=ITEM_CHARS)
    quote: str = Field(max_length=QUOTE_CHARS)
    resolved: bool = False


class Window(BaseModel):
    """Messages ``first..last`` (indexes into the chat's messages) as the model reads them."""

    first: int
    last: int
    text: str
    prompt_tokens: int = 0
    output: str = ""
    suggestions: list[Suggestion] = Field(default_factory=list)


@lru_cache(maxsize=1)
def suggestions_grammar() -> str:
    schema = Suggestion.model_json_schema()
    schema["required"] = list(Suggestion.model_fields)
    item = re.sub(r"^root ::=", "suggestion ::=", args_grammar(schema), count=1, flags=re.M)
    item = item.replace("char{", "tchar{")  # notes and quotes: no JSON punctuation inside
    root = (r'root ::= "{" space "\"items\"" space ":" space "[" space suggestion '
            rf'("," space suggestion){{0,{MAX_ITEMS - 1}}} "]" space "}}" space')
    return f"{root}\n{item}\n{TEXT_CHAR}"


def parse_suggestions(text: str) -> list[Suggestion]:
    """The complete items in ``text``; an item cut off by ``max_tokens`` is left out."""
    try:
        raw = json.loads(text).get("items", [])
    except (json.JSONDecodeError, AttributeError):
        cut = text.rfind("}")
        raw = []
        while cut > 0:
            try:
                raw = json.loads(text[: cut + 1] + "]}").get("items", [])
                break
            except (json.JSONDecodeError, AttributeError):
                cut = text.rfind("}", 0, cut)
    out = []
    for r in raw if isinstance(raw, list) else []:
        try:
            out.append(Suggestion.model_validate(r))
        except ValidationError:
            continue
    return out


def window_messages(text: str) -> list[Message]:
    return [Message(role="system", content=SYSTEM),
            Message(role="user", content=f"Chat:\n{text}\n\n{INSTRUCTION}")]


def make_windows(model: ChatModel, messages: list[ChatMessage], max_tokens: int) -> list[Window]:
    """Pack ``messages`` in order into windows whose prompt fits ``n_ctx - max_tokens``."""
    budget = model.n_ctx - max_tokens - model.prompt_tokens(window_messages("")) - 16
    windows: list[Window] = []
    lines: list[str] = []
    used, first = 0, 0
    for i, m in enumerate(messages):
        line = m.line(USER_CLIP if m.role == "user" else ASSISTANT_CLIP)
        cost = model.count_tokens(line) + 1
        if cost > budget:  # one message longer than a window: its start, cut to fit
            line, cost = line[: max(40, len(line) * budget // cost)], budget
        if lines and used + cost > budget:
            windows.append(Window(first=first, last=i - 1, text="\n".join(lines)))
            lines, used, first = [], 0, i
        lines.append(line)
        used += cost
    if lines:
        windows.append(Window(first=first, last=len(messages) - 1, text="\n".join(lines)))
    return windows


def suggest(model: ChatModel, window: Window, max_tokens: int) -> Window:
    """Run the model over one window (grammar-constrained); fills ``output`` and ``suggestions``."""
    msgs = window_messages(window.text)
    text = "".join(model.stream(msgs, max_tokens=max_tokens, temperature=0.0, grammar=suggestions_grammar()))
    window.prompt_tokens = model.last.prompt_tokens or model.prompt_tokens(msgs)
    window.output = text
    window.suggestions = parse_suggestions(text)
    return window
