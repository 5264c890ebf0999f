"""The minimal contract for "a chat model" that everything else is written against."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

Role = Literal["system", "user", "assistant", "tool"]


class Message(BaseModel):
    role: Role
    content: str

    def as_dict(self) -> dict:
        return {"role": self.role, "content": self.content}


class Generation(BaseModel):
    """Figures of the last call to ``ChatModel.stream``."""

    text: str = ""
    prompt_tokens: int = 0  # tokens in the rendered prompt
    reused_tokens: int = 0  # prompt tokens already in the KV cache (prefix reuse)
    evaluated_tokens: int = 0  # prompt tokens evaluated by this call
    completion_tokens: int = 0
    ttft_s: float = 0.0  # call start -> first generated token
    total_s: float = 0.0
    finish_reason: Literal["stop", "length", "interrupted", "repetition", ""] = ""  # repetition: loop guard
    reuse_known: bool = True  # False: the backend (a model server) did not report its cached tokens


class Grammar(str):
    """GBNF text that also carries what a model server without GBNF needs to constrain the same
    output: the JSON schema of an object (tool arguments), or the literal ``choices`` (the decision).
    It *is* a ``str``, so every backend that takes GBNF uses it unchanged.

    >>> g = Grammar('root ::= "a" | "b"', choices=["a", "b"])
    >>> g == 'root ::= "a" | "b"', g.choices
    (True, ['a', 'b'])
    """

    json_schema: dict | None
    choices: list[str] | None

    def __new__(cls, gbnf: str, *, json_schema: dict | None = None, choices: list[str] | None = None):
        obj = super().__new__(cls, gbnf)
        obj.json_schema, obj.choices = json_schema, choices
        return obj


@runtime_checkable
class ChatModel(Protocol):
    name: str
    n_ctx: int
    last: Generation

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by this model's own tokenizer (no BOS, no special parsing)."""

    def render(self, messages: list[Message], add_generation_prompt: bool = True) -> str:
        """The prompt text the chat template makes of ``messages``."""

    def prompt_tokens(self, messages: list[Message], prefill: str = "") -> int:
        """Tokens the rendered prompt (plus assistant ``prefill``) would take."""

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.3,
        grammar: str | None = None,
        prefill: str = "",
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        """Yield the reply in text pieces; ``last`` holds the figures once exhausted or closed.

        ``grammar`` is GBNF that constrains the reply; ``prefill`` is text placed after the
        assistant header that the model continues from (not yielded).
        """
