"""The loop guard: stops a streamed reply once it starts repeating itself.

Small models fall into loops (the same paragraph until ``max_tokens``). llama.cpp's DRY sampler
(``chat.dry_*``) makes loops expensive; this guard is the stream-level backstop. It reads the reply
as it streams and trips when a finished sentence of at least ``sentence_chars`` characters (words
only, case folded) comes a second time, or when a run of ``ngram`` words repeats. ``cut`` is where
the repeat began: the reply kept in the session ends there. The agent reports a tripped guard as
``stopped: repetition`` (``-v`` and the transcript).

>>> g = LoopGuard()
>>> g.feed("I am sure you mean the Fizzbong project. ")
False
>>> g.feed("It is great. I am sure you mean the Fizzbong project. More")
True
>>> g.text[:g.cut]
'I am sure you mean the Fizzbong project. It is great. '
"""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"[^.!?\n]+[.!?\n]+")
_WORD = re.compile(r"\w+")


class LoopGuard:
    def __init__(self, ngram: int = 12, sentence_chars: int = 24):
        self.ngram, self.sentence_chars = ngram, sentence_chars
        self.text = ""
        self.cut: int | None = None  # set when tripped: where the repeated part starts
        self._sentences: set[str] = set()
        self._runs: set[tuple[str, ...]] = set()
        self._words: list[tuple[str, int]] = []  # (word, offset) of finished words
        self._spos = 0  # text before this is split into sentences

    @classmethod
    def for_chat(cls, chat) -> LoopGuard | None:
        return cls(chat.loop_ngram, chat.loop_sentence_chars) if chat.loop_guard else None

    def feed(self, piece: str) -> bool:
        """Add a streamed piece; True once the reply repeats (then ``cut`` is set)."""
        if self.cut is not None:
            return True
        self.text += piece
        return self._sentence_repeats() or self._run_repeats()

    def _sentence_repeats(self) -> bool:
        for m in _SENTENCE.finditer(self.text, self._spos):
            self._spos = m.end()
            key = " ".join(_WORD.findall(m.group(0).lower()))
            if len(key) < self.sentence_chars:
                continue
            if key in self._sentences:
                self.cut = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
                return True
            self._sentences.add(key)
        return False

    def _run_repeats(self) -> bool:
        start = self._words[-1][1] + len(self._words[-1][0]) if self._words else 0
        for m in _WORD.finditer(self.text, start):
            if m.end() == len(self.text):  # the word may go on in the next piece
                break
            self._words.append((m.group(0).lower(), m.start()))
            if len(self._words) < self.ngram:
                continue
            run = tuple(w for w, _ in self._words[-self.ngram:])
            if run in self._runs:
                self.cut = self._words[-self.ngram][1]
                return True
            self._runs.add(run)
        return False
