"""The living description, rewritten in the background after each agent turn.

After the reply, ``Rewriter.start`` asks the model (the session's own system prompt and history,
so the KV cache already holds all but the instruction) for a ``DescriptionDraft`` under its
grammar, and writes task + lists + session tag as the current change's description: earlier
``done`` and ``decisions`` items are kept, the whole within ``[coding] description`` tokens
(``describe.fit`` merges the oldest into one line). It runs on a
tracked background thread, so the next prompt is shown at once; the Agent calls ``wait`` (through
``Feature.release_model``) before it uses the model again. A failed rewrite (no valid draft, a model
or VCS error) keeps the last good description and is reported once, at the next turn.
"""

from __future__ import annotations

import threading

from nanobot.backends.base import Message
from nanobot.base import background
from nanobot.coding.describe import draft_grammar, fit, parse, parse_draft, render
from nanobot.coding.session import CodingSession
from nanobot.core.fitting import trim_oldest

INSTRUCTION = ("Update the description of this code change. Current description:\n{current}\n\n"
               "Reply as JSON with four short lists: done (what was done), decisions (key decisions), "
               "left (what is left to do), questions (open questions).")


def rewrite_messages(model, system: str, history: list[Message], current: str, max_tokens: int) -> list[Message]:
    """System prompt + history + the instruction; the oldest exchanges go if it would not fit."""
    head, ask = Message(role="system", content=system), Message(role="user", content=INSTRUCTION.format(current=current))
    hist, _ = trim_oldest(history, lambda h: model.prompt_tokens([head, *h, ask]), model.n_ctx - max_tokens,
                          cost=lambda m: model.count_tokens(m.content))
    return [head, *hist, ask]


class Rewriter:
    def __init__(self, session: CodingSession, max_tokens: int):
        self.session = session
        self.max_tokens = max_tokens
        self._thread: threading.Thread | None = None
        self.rewrites = 0
        self.error = ""  # the last failure, until reported

    def start(self, model, system: str, history: list[Message], said: str = "") -> None:
        self.wait()
        self._thread = background.start(self.run, "nanobot-describe", (model, system, list(history), said))

    def run(self, model, system: str, history: list[Message], said: str = "") -> bool:
        """One rewrite (the thread's body; tests call it directly). True when written. ``said``: the
        turn's own message, which the history lacks when the reply checks corrected the turn."""
        try:
            current = self.session.description()
            msgs = rewrite_messages(model, system, history, current, self.max_tokens)
            text = "".join(model.stream(msgs, max_tokens=self.max_tokens, temperature=0.0,
                                        grammar=draft_grammar()))
            draft = parse_draft(text)
            if draft is None:
                self.error = "the model's description was not valid JSON"
                return False
            said = "\n".join([*(m.content for m in history if m.role == "user"), said])
            merged = parse(current).with_draft(draft, said)  # done and decisions accumulate
            budget = self.session.settings.coding.description
            self.session.describe(render(fit(merged, budget, model.count_tokens)))
            self.rewrites += 1
            return True
        except Exception as e:  # never the session's problem: the last good description stays
            self.error = f"{type(e).__name__}: {e}"
            return False

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def take_error(self) -> str:
        err, self.error = self.error, ""
        return err
