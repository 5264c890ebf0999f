"""Keep a reply from opening with given strings (a tool call written as text): a logits processor.

After a template-tool step declines a call (``tools.templatecalls``) the reply must be text, yet the
model's likeliest opening may still be ``<tool_call>``, ``{`` or ```` ```json ````: the decision sums the
probability of every call opening while sampling takes one token at a time. ``OpeningBan`` masks, for
as long as the reply so far (leading whitespace aside) could still become one of ``starts``, every
token after which it would begin with one; once the reply has gone another way it costs nothing. The
masks are computed over the whole vocabulary once per reply-so-far and kept (``masks``), so the
151k-token vocabulary of Qwen is scanned a handful of times per model, not per token.

Tokens holding a chat template's own markup (``MARKUP``: ``<tool_call>``, ``<tool_response>``,
``<|im_start|>``) are masked for the whole reply: a text reply is prose, never a piece of the template.

>>> ban = OpeningBan(["{", "Hi", "``", "`json", " ", "<tool_response>"], ("{", "```json"), prompt_len=0)
>>> ban.mask("").tolist()                 # "{" opens a call
[0]
>>> ban.mask("``").tolist()              # "``" + "`json" would
[3]
>>> ban.never().tolist()                 # template markup, anywhere in the reply
[5]
"""

from __future__ import annotations

import numpy as np

MARKUP = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<|im_start|>", "<tools>",
          "</tools>")


class OpeningBan:
    """``__call__(input_ids, scores)``: llama-cpp-python's logits-processor signature."""

    def __init__(self, texts: list[str], starts: tuple[str, ...], prompt_len: int,
                 masks: dict[str, np.ndarray] | None = None):
        self.texts, self.starts, self.prompt_len = texts, starts, prompt_len
        self.masks = {} if masks is None else masks  # reply so far -> banned token ids (shared per model)
        self.done = False
        self.never()  # built once per model (a session start builds it with the opening's mask)

    def open(self, text: str) -> bool:
        """Whether ``text`` may still become (or already is) one of the starts."""
        head = text.lstrip()
        return any(s.startswith(head) or head.startswith(s) for s in self.starts)

    def mask(self, before: str) -> np.ndarray:
        if before not in self.masks:
            starts = self.starts
            self.masks[before] = np.array([i for i, t in enumerate(self.texts)
                                           if (before + t).lstrip().startswith(starts)], dtype=np.int64)
        return self.masks[before]

    def never(self) -> np.ndarray:
        """Tokens whose text holds template markup (``MARKUP``), banned from every position."""
        if "\0markup" not in self.masks:
            self.masks["\0markup"] = np.array([i for i, t in enumerate(self.texts)
                                                if "<" in t and any(m in t for m in MARKUP)], dtype=np.int64)
        return self.masks["\0markup"]

    def __call__(self, input_ids, scores):
        scores[self.never()] = -np.inf
        if self.done:
            return scores
        before = "".join(self.texts[int(t)] for t in input_ids[self.prompt_len:])
        if not self.open(before):
            self.done = True
            return scores
        scores[self.mask(before)] = -np.inf
        return scores
