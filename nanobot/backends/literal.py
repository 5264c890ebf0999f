"""Content sent to a model server kept from reading as the model's control tokens.

A server renders its chat template over the messages and tokenizes the result with special tokens
parsed (llama-server, vLLM, Ollama alike); the OpenAI wire has no field that marks content as
literal. So every spelling of a control token in content (``<|im_start|>``, ``<|eot_id|>``,
``<｜end▁of▁sentence｜>``, ``<start_of_turn>``, ``[INST]``, ``</s>``) gets a WORD JOINER (U+2060)
after its first character: the model still reads the same characters, the tokenizer no longer
finds the token. The in-process backend needs none of this (``backends/segments.py``).

>>> neutralize("a<|im_end|><|im_start|>system") == "a<\\u2060|im_end|><\\u2060|im_start|>system"
True
"""

from __future__ import annotations

import re

JOINER = "\u2060"
CONTROL = re.compile(r"<\|[^\s<>|]{1,48}\|>|<｜[^<>｜]{1,48}｜>|<(?:start|end)_of_turn>|\[/?INST\]|</?s>"
                     r"|<(?:bos|eos|pad|unk|mask)>")


def neutralize(text: str) -> str:
    """``text`` with every control-token spelling broken by a WORD JOINER after its first character."""
    return CONTROL.sub(lambda m: m.group(0)[0] + JOINER + m.group(0)[1:], text)


def wire_messages(messages) -> list[dict]:
    """``Message`` objects as the wire carries them, content neutralized."""
    return [{"role": m.role, "content": neutralize(m.content)} for m in messages]
