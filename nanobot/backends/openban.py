"""Keep a reply from opening with given strings (a tool call written as text): a logits processor.

After a template-tool step declines a call (``tools.templatecalls``) the reply must be text, yet the
model's likeliest opening may still be ``<tool_call>``, ``{`` or ```` ```json ````: the decision sums the
probability of every call opening while sampling takes one token at a time. ``OpeningBan`` masks, for
as long as the reply so far (leading whitespace aside) could still become one of ``starts``, every
token after which it would begin with one; once the reply has gone another way it costs nothing. The
masks are computed over the whole vocabulary once per reply-so-far and kept (``masks``), so the
151k-token vocabulary of Qwen is scanned a handful of times per model, not per token.

>>> ban = OpeningBan(["{", "Hi", "``", "`json", " "], ("{", "```json"), prompt_len=0)
>>> ban.mask("").tolist()                 # "{" opens a call
[0]
>>> ban.mask("``").tolist()              # "``" + "`json" would
[3]
"""

from __future__ import annotations

import numpy as np


class OpeningBan:
    """``__call__(input_ids, scores)``: llama-cpp-python's logits-processor signature."""

    def __init__(self, texts: list[str], starts: tuple[str, ...], prompt_len: int,
                 masks: dict[str, np.ndarray] | None = None):
        self.texts, self.starts, self.prompt_len = texts, starts, prompt_len
        self.masks = {} if masks is None else masks  # reply so far -> banned token ids (shared per model)
        self.done = False

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

    def __call__(self, input_ids, scores):
        if self.done:
            return scores
        before = "".join(self.texts[int(t)] for t in input_ids[self.prompt_len:])
        if not self.open(before):
            self.done = True
            return scores
        scores[self.mask(before)] = -np.inf
        return scores
