"""Token counts for a model server: its tokenizer endpoint when it has one (llama-server ``/tokenize``
and ``/apply-template``, llama-cpp-python ``/extras/tokenize/count``, vLLM ``/tokenize``), else the
stated approximation (``Capabilities.token_counting``). Counts are cached: the prompt builder asks
for the same texts many times while it trims.
"""

from __future__ import annotations

import httpx

from nanobot.backends.wire import Capabilities

PER_MESSAGE = 4  # approximation: role header and end-of-turn tokens of a typical chat template


def approx(text: str) -> int:
    """Tokens in ``text`` where the server cannot count them: one per four UTF-8 bytes, rounded up.

    >>> approx("four"), approx("")
    (1, 0)
    """
    return (len(text.encode("utf-8")) + 3) // 4


class ServerTokenizer:
    def __init__(self, client: httpx.Client, root: str, served: str, caps: Capabilities):
        self.client, self.root, self.served, self.caps = client, root, served, caps
        self._cache: dict[str, int] = {}
        self._offset: int | None = None  # llama-cpp-python counts a BOS for "" on some models

    def _post(self, path: str, body: dict) -> dict:
        r = self.client.post(f"{self.root}{path}", json=body)
        r.raise_for_status()
        return r.json()

    def _remote(self, text: str, special: bool = False) -> int:
        c = self.caps
        if c.flavor == "llama-server":
            out = self._post("/tokenize", {"content": text, "add_special": False, "parse_special": special})
            return len(out.get("tokens", []))
        if c.flavor == "llama-cpp-python":
            if self._offset is None:
                self._offset = int(self._post(c.tokenize, {"input": ""}).get("count", 0))
            return max(0, int(self._post(c.tokenize, {"input": text}).get("count", 0)) - self._offset)
        out = self._post("/tokenize", {"model": self.served, "prompt": text, "add_special_tokens": False})
        return int(out.get("count", len(out.get("tokens", []))))

    def count(self, text: str) -> int:
        if not text:
            return 0
        if not self.caps.tokenize:
            return approx(text)
        if text not in self._cache:
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[text] = self._remote(text)
        return self._cache[text]

    def render(self, messages: list[dict], add_generation_prompt: bool = True) -> str:
        """The server's own chat template (llama-server), else a ChatML-like stand-in."""
        if self.caps.apply_template:
            return self._post("/apply-template", {"messages": messages})["prompt"]
        out = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return out + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def prompt(self, messages: list[dict], prefill: str = "") -> int:
        """Tokens of the rendered prompt: exact where the server renders its template, else the sum
        of the messages plus ``PER_MESSAGE`` each."""
        if self.caps.apply_template:
            text = self.render(messages) + prefill
            return self._cached(text, lambda: self._remote(text, special=True))
        if self.caps.flavor == "vllm":
            key = repr(messages) + prefill
            return self._cached(key, lambda: int(self._post("/tokenize", {
                "model": self.served, "messages": messages, "add_generation_prompt": True,
            })["count"]) + self.count(prefill))
        return sum(self.count(m["content"]) + PER_MESSAGE for m in messages) + 3 + self.count(prefill)

    def _cached(self, key: str, fn) -> int:
        if key not in self._cache:
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = fn()
        return self._cache[key]
