"""The loop guard: stops a streamed reply once it starts repeating itself.

Small models fall into loops (the same paragraph until ``max_tokens``); llama.cpp's DRY sampler
(``chat.dry_*``) makes them expensive, and this guard is the stream-level backstop: it trips when a
finished sentence of at least ``sentence_chars`` characters (words only, case folded) comes a second
time, or a run of ``ngram`` words repeats. ``cut`` is where the repeat began: the reply kept in the
session ends there, reported as ``stopped: repetition``.

Linear in the reply: each piece is scanned once (a sentence's text is joined only when it ends, a
word longer than ``WORD_MAX`` characters counts as several), so a reply delivered as one 1 MB delta,
or a 1 MB "sentence" streamed a character at a time, costs about what reading it costs.

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

_ENDS = re.compile(r"[.!?\n]+")
WORD_MAX = 100
_WORD = re.compile(rf"\w{{1,{WORD_MAX}}}")


class LoopGuard:
    def __init__(self, ngram: int = 12, sentence_chars: int = 24):
        self.ngram, self.sentence_chars = ngram, sentence_chars
        self.cut: int | None = None  # set when tripped: where the repeated part starts
        self._parts: list[str] = []
        self._text: str | None = ""
        self._len = 0
        self._sentences: set[str] = set()
        self._runs: set[tuple[str, ...]] = set()
        self._words: list[tuple[str, int]] = []  # the last ``ngram`` finished words, with offsets
        self._sent: list[str] = []  # the unfinished sentence's pieces
        self._sent_start = 0  # its offset
        self._wcarry, self._wstart = "", 0  # an unfinished word at the end, and its offset

    @classmethod
    def for_chat(cls, chat) -> LoopGuard | None:
        return cls(chat.loop_ngram, chat.loop_sentence_chars) if chat.loop_guard else None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._parts)
            self._parts = [self._text]
        return self._text

    def feed(self, piece: str) -> bool:
        """Add a streamed piece; True once the reply repeats (then ``cut`` is set)."""
        if self.cut is not None:
            return True
        if not piece:
            return False
        base = self._len
        self._parts.append(piece)
        self._text, self._len = None, base + len(piece)
        return self._sentence_repeats(piece, base) or self._run_repeats(piece, base)

    def _sentence_repeats(self, piece: str, base: int) -> bool:
        pos = 0
        for m in _ENDS.finditer(piece):
            body = piece[pos:m.start()]
            if body or self._sent:
                sentence = "".join(self._sent) + body
                start = self._sent_start
                self._sent = []
                key = " ".join(_WORD.findall(sentence.lower()))
                if len(key) >= self.sentence_chars:
                    if key in self._sentences:
                        self.cut = start + len(sentence) - len(sentence.lstrip())
                        return True
                    self._sentences.add(key)
            pos = m.end()
            self._sent_start = base + pos
        if pos < len(piece):
            if not self._sent:
                self._sent_start = base + pos
            self._sent.append(piece[pos:])
        return False

    def _run_repeats(self, piece: str, base: int) -> bool:
        text, offset = self._wcarry + piece, (self._wstart if self._wcarry else base)
        self._wcarry = ""
        for m in _WORD.finditer(text):
            if m.end() == len(text) and len(m.group(0)) < WORD_MAX:  # may go on in the next piece
                self._wcarry, self._wstart = m.group(0), offset + m.start()
                break
            self._words.append((m.group(0).lower(), offset + m.start()))
            if len(self._words) < self.ngram:
                continue
            del self._words[:-self.ngram]
            run = tuple(w for w, _ in self._words)
            if run in self._runs:
                self.cut = self._words[0][1]
                return True
            self._runs.add(run)
        return False
