"""A scripted chat model for unit-testing loop logic (never the only test of a feature)."""

from __future__ import annotations

from collections.abc import Iterator

from nanobot.backends.base import Generation, Message


class ScriptedModel:
    """Replies with the next scripted string each call; counts tokens as whitespace words.

    >>> m = ScriptedModel(["hi there"])
    >>> "".join(m.stream([Message(role="user", content="hello")]))
    'hi there'
    """

    def __init__(self, replies: list[str], n_ctx: int = 4096, name: str = "scripted"):
        self.replies = list(replies)
        self.n_ctx = n_ctx
        self.name = name
        self.last = Generation()
        self.calls: list[dict] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def render(self, messages: list[Message], add_generation_prompt: bool = True) -> str:
        out = "".join(f"<{m.role}>{m.content}\n" for m in messages)
        return out + ("<assistant>" if add_generation_prompt else "")

    def prompt_tokens(self, messages: list[Message], prefill: str = "") -> int:
        return self.count_tokens(self.render(messages) + prefill)

    def stream(self, messages, *, max_tokens=512, temperature=0.3, grammar=None, prefill="",
               stop=None) -> Iterator[str]:
        self.calls.append({"messages": list(messages), "grammar": grammar, "prefill": prefill})
        reply = self.replies.pop(0) if self.replies else ""
        n = self.prompt_tokens(messages, prefill)
        self.last = Generation(prompt_tokens=n, evaluated_tokens=n)
        for word in reply.split(" "):
            if self.last.completion_tokens == max_tokens:  # cut at the limit, as a real model's reply is
                self.last.finish_reason = "length"
                return
            piece = word if not self.last.text else " " + word
            self.last.text += piece
            self.last.completion_tokens += 1
            yield piece
        self.last.finish_reason = "stop"
