"""The lean tools block of a template-tool model, and the chosen tool's schema for its argument step.

The template renders the tools it is given into its own tools slot (Qwen2.5: ``<tools>`` in the first
system message). Every schema there costs ~130 tokens a tool (13 built-ins: 1,724 tokens), yet the
decision -- answer in text or call -- and the choice of a tool need only each tool's name and purpose.
So the decision sees ``lean_specs`` (name + one line, no parameters) in place of the prompt's tool
index (``ToolRunner.listed_by_template``), and the step that writes a call:

1. picks the tool under ``name_grammar`` (one of the offered names) after ``<tool_call>\\n``, on the
   same prompt as the decision, so the KV cache holds all of it already;
2. writes the arguments with that tool's full spec in a system message (``schema_message``), under
   that tool's argument grammar: on a turn's first call right before the user's message, so the request
   is what the model read last (``with_schema``), on a later step after the conversation; the message is
   dropped afterwards, so the tools block and everything before the call stay one prefix from turn to turn.

>>> lean_specs({"f": type("T", (), {"description": "Do f. Then more."})()})
[{'name': 'f', 'description': 'Do f.'}]
"""

from __future__ import annotations

import json
import re

from nanobot.backends.base import Grammar, Message
from nanobot.tools.grammar import literal

_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)", re.S)


def purpose(description: str) -> str:
    """The first sentence (or line) of a tool's description.

    >>> purpose("Find tools by what they do: the 5 closest. One line each."), purpose("no stop\\nsecond")
    ('Find tools by what they do: the 5 closest.', 'no stop')
    """
    text = (description or "").strip().split("\n", 1)[0].strip()
    found = _SENTENCE.match(text)
    return found.group(1) if found else text


def lean_specs(tools: dict) -> list[dict]:
    """The offered tools as the decision sees them: name and what it is for (the tool index's
    ``intent`` line when the tool has one, else its description's first sentence), no parameters and
    no ``{"type": "function"}`` wrapper (a quarter fewer tokens than wrapped)."""
    return [{"name": n, "description": getattr(t, "intent", "") or purpose(t.description)} for n, t in tools.items()]


NAME_OPENING = '{"name": "'  # what a call's JSON opens with, up to the name: given, not generated


def name_grammar(names: list[str]) -> Grammar:
    """The name after ``<tool_call>\\n`` + ``NAME_OPENING``: one of ``names``, then its closing quote."""
    return Grammar("root ::= " + " | ".join(literal(n + '"') for n in names))


def named(text: str, names: list[str]) -> str | None:
    """The one name of ``names`` that the generated ``text`` can still become, once only one can (the
    pick stops there: the rest of the name is the same whatever the model would say); else None.

    >>> named("read", ["read_file", "list_dir"]), named("knowledge_", ["knowledge_read", "knowledge_search"])
    ('read_file', None)
    """
    left = [n for n in names if (n + '"').startswith(text) or text.startswith(n + '"')]
    return left[0] if len(left) == 1 else None


def with_schema(msgs: list[Message], spec: dict) -> list[Message]:
    """``msgs`` with the chosen tool's spec for the argument step: right before the user's message
    when that message ends the conversation (a turn's first call: the model writes the arguments with
    the request the last thing it read; only the message is evaluated again), else after it (a later
    step: the KV cache holds everything before). Before the message, more arguments come out right
    (docs/tools.md)."""
    if msgs and msgs[-1].role == "user":
        return [*msgs[:-1], schema_message(spec), msgs[-1]]
    return [*msgs, schema_message(spec)]


def schema_message(spec: dict) -> Message:
    """The chosen tool's full spec, as the template would list it, for the argument step only."""
    name = spec["function"]["name"]  # an OpenAI spec (``callgrammar.tool_specs``)
    return Message(role="system", content=f"Call {name} with arguments for these parameters:\n"
                                          f"<tools>\n{json.dumps(spec)}\n</tools>")
