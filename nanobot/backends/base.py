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
    drafted_tokens: int = 0  # tokens drafted from the context (``backends/lookup.py``)
    accepted_tokens: int = 0  # of those, drawn as drafted
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


class Abilities(BaseModel):
    """What a backend can do beyond the ``ChatModel`` contract, typed: each backend declares them as
    its ``abilities``; callers read them through ``abilities(model)``, never by probing attributes."""

    sampling: bool = False  # takes the [chat] sampling extras: top_p, repeat_penalty, dry
    first_token: bool = False  # prefix_probability: how likely the reply starts with given text
    tool_template: bool = False  # its chat template declares tool support (call_format "auto")
    exact_tokens: bool = True  # count_tokens is the model's own tokenizer, not an approximation
    token_counting: str = "the model's own tokenizer (llama.cpp, in process)"
    state_save: bool = False  # llama.cpp state save/restore (the disk KV cache)
    prefill: bool = False  # evaluates a known prefix while the user types (nanobot.core.prefill)
    server: bool = False  # a model server: ``detect()`` probes what it can do (nanobot.remote.feature)


def abilities(model: object) -> Abilities:
    """``model``'s declared abilities; a model that declares none (a test double, a wrapper's
    inner model seen through ``__getattr__``) has those its methods show, read here and nowhere else."""
    declared = getattr(model, "abilities", None)
    if isinstance(declared, Abilities):
        return declared
    return Abilities(sampling=hasattr(model, "settings"),
                     first_token=callable(getattr(model, "prefix_probability", None)),
                     tool_template=bool(getattr(model, "tool_template", False)),
                     state_save=hasattr(model, "llm"),
                     prefill=callable(getattr(model, "prefill", None)),
                     server=callable(getattr(model, "detect", None)))


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
