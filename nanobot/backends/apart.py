"""Prompts scored or generated apart from the conversation (a classifier's few-shot prompt, a file's
rewrite): the conversation's KV state is set aside and put back, so the turn's next step reuses all of it.
Each classifier prompt's own state is kept too, in memory (the last ``APART_SLOTS``) and, where the KV
cache handed one over, in a disk store (``kvcache.apart``). A mixin of ``LlamaBackend``: it uses the
backend's ``llm``, ``yes_no`` and ``stream``.
"""

from __future__ import annotations

import contextlib
from typing import Any

from nanobot.backends.base import Message
from nanobot.base.errors import ModelError

APART_SLOTS = 11  # system prompts whose KV state ``yes_no_apart`` keeps (the judge's 10 classifiers and the
# fit check: ~12 MB each on a 1.5B), so a turn's judgements never evaluate their examples twice
ANSWERED = 16  # prompts whose yes/no ``yes_no_apart`` keeps (a prompt's answer is a fact of its text)


class Apart:
    """``yes_no_apart`` and ``generate_apart`` for a llama.cpp backend."""

    llm: Any
    _apart: dict[tuple[str, str], tuple[list[int], bytes]]  # ``yes_no_apart``'s prompts and states, by system prompt and lead
    _answered: dict[tuple, tuple[float, float]]  # ``yes_no_apart``'s answers, by the prompt's messages
    apart_store: Any  # the disk's states of those prompts (``kvcache.apart``), set by the KV cache
    last_read: bool  # the last judgement was answered from ``_answered``, with no evaluation

    def keep_apart(self, store: Any) -> None:
        """Keep the states of ``yes_no_apart``'s prompts in ``store`` too (``kvcache.apart``: on disk)."""
        self.apart_store = store

    def yes_no_apart(self, messages: list[Message], lead: str = "") -> tuple[float, float]:
        """``yes_no`` of a prompt of its own (a classifier's few-shot prompt), the conversation's KV
        state set aside and put back (``_set_aside``): the next turn reuses it as if nothing was asked. The
        prompt's own state is kept too, one per system prompt (the last ``APART_SLOTS``), so the next
        judgement of the same classifier evaluates only what differs (the message, the tool it is asked
        about) even when another classifier was asked in between. ``lead``: how the last message opens
        whatever is judged (the fit check's tool line): the disk keeps a state per lead; in memory the
        last lead's state serves the others too. A
        prompt asked before is answered from ``_answered`` (the last ``ANSWERED``), with no evaluation."""
        from nanobot.backends.kvstate import StateError, restore, seq_state

        answered = tuple((m.role, m.content) for m in messages)
        if answered in self._answered:  # asked already (on the draft, while the person paused)
            self.last_read = True
            return self._answered[answered]
        llm = self.llm
        key = (messages[0].content if messages else "", lead)
        with self._set_aside():
            try:
                if key in self._apart:
                    restore(llm, *self._apart.pop(key))
                elif self.apart_store is not None and self.apart_store.restore(self, messages, lead):
                    pass  # another process evaluated the examples: from disk
                elif (near := next((k for k in reversed(self._apart) if k[0] == key[0]), None)) is not None:
                    restore(llm, *self._apart[near])  # the same examples after another lead: only what
                    # differs from there (the lead, the message) is evaluated
                answer = self.yes_no(messages)
                for other in [k for k in self._apart if k[0] == key[0]]:
                    del self._apart[other]  # one state per system prompt: another lead starts from it
                self._apart[key] = (list(llm.input_ids[:llm.n_tokens]), seq_state(llm, llm.n_tokens))
                if self.apart_store is not None:
                    self.apart_store.keep(self, messages, lead)
            except StateError:
                self._apart.clear()
                raise ModelError("llama.cpp could not set the conversation's state aside for a judgement") from None
            while len(self._apart) > APART_SLOTS:
                self._apart.pop(next(iter(self._apart)))
            self._answered[answered] = answer
            while len(self._answered) > ANSWERED:
                self._answered.pop(next(iter(self._answered)))
            self.last_read = False
            return answer

    def generate_apart(self, messages: list[Message], *, prefill: str = "", **sample: Any) -> str:
        """The text ``stream`` generates from a prompt of its own (a file's rewrite, ``tools.rewrite``),
        the conversation's KV state set aside and put back, so the turn's next step reuses all of it."""
        with self._set_aside():
            return "".join(self.stream(messages, prefill=prefill, **sample))

    @contextlib.contextmanager
    def _set_aside(self):
        """The conversation's KV state (what the context holds now) saved, and put back on leaving."""
        from nanobot.backends.kvstate import StateError, restore, seq_state

        llm = self.llm
        n = llm.n_tokens
        try:
            kept = (list(llm.input_ids[:n]), seq_state(llm, n)) if n else None
        except StateError:
            raise ModelError("llama.cpp could not set the conversation's state aside") from None
        try:
            yield
        finally:
            if kept is not None:
                try:
                    restore(llm, *kept)
                except StateError:  # the next turn evaluates the conversation again
                    llm.reset()
                    llm._ctx.kv_cache_clear()
