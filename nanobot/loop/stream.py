"""The reply's text on its way to the user: nanobot's own markup, and the notes it sent echoed back,
scrubbed from the stream (``Scrubber``, ``Echoes``); a reply that starts repeating itself stopped
(``LoopGuard``); a reply cut at the token limit while it copied a look's output finished from that
output (``finished``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import regex

from nanobot.tools.plain import plain

# nanobot's notes to the model, echoed in its reply without their brackets: found and removed.
#
# The notes are the fixed ones a call's result carries ("The call ran; answer the user in plain text from
# its result above") and every note a reply check sent this turn ("[nanobot: you have not looked at
# notes/ this turn. Call list_dir for it now, or say you cannot.]"). A small model copies them into its
# answer as if they were its own words; each sentence of a note (three words or more) is removed
# wherever the reply holds it, in any case and spacing, and ``start`` tells a stream where a sentence
# that may still become one begins, so it is held back until it is known.

# the notes every turn may send (templatecalls.AFTER_CALL/REASK/answer_note, written.run_written)
FIXED = (r"(?:(?:the call(?: the user asked for| you wrote)?|the command your reply proposed) ran; answer the user "
         r"in plain text from its result above(?:, without another call)?\.?|your reply was empty\. answer the user in plain text now\.?"
         r"|answer that from the result above, in plain sentences\.?)")
_NOTE = re.compile(r"^\s*[\[(]nanobot:\s*|[\])]\s*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
ECHO_HOLD_MAX = 240  # how far back a sentence that may become an echo is looked for


def sentences(note: str) -> list[str]:
    """The sentences of ``note`` worth matching in a reply: three words or more, brackets taken off.

    >>> sentences("[nanobot: nothing was changed: no tool ran this turn. Try again.]")
    ['nothing was changed: no tool ran this turn.']
    """
    return [s for s in _SENTENCE.split(_NOTE.sub("", note).strip()) if len(s.split()) >= 3]


class Echoes:
    """The echoes of the fixed notes and of ``notes`` (each as sent, brackets and all).

    >>> Echoes(["[nanobot: you have not looked at notes/ this turn. Call list_dir for it now, or say you cannot.]"]).sub(
    ...     "Here they are. You have not looked at notes/ this turn.  Call list_dir for it now, or say you cannot.")
    'Here they are.'
    >>> Echoes().sub("The call ran; answer the user in plain text from its result above. It holds 3 lines.")
    ' It holds 3 lines.'
    """

    def __init__(self, notes: Iterable[str] = ()) -> None:
        said = [s for n in notes for s in sentences(n)]
        alts = [FIXED, *(r"\s+".join(map(regex.escape, s.split())) for s in said)]
        self._firsts = {"t", "y", "a", *(s[0].lower() for s in said)}  # the letters an echo can begin with
        self._start = regex.compile("(?:" + "|".join(alts) + ")", regex.I)
        self._sub = regex.compile(r"\s*(?:" + "|".join(alts) + ")", regex.I)

    def sub(self, text: str) -> str:
        """``text`` without the echoed sentences."""
        return self._sub.sub("", text)

    def start(self, text: str) -> int:
        """Where, in the last ``ECHO_HOLD_MAX`` characters of ``text``, a word begins that starts what may
        still become an echo by its end; ``len(text)`` when none does."""
        base = max(0, len(text) - ECHO_HOLD_MAX)
        for m in re.finditer(r"(?<![^\s.!?…])\w", text[base:]):  # a word's start: tried where an echo may begin
            if m.group(0).lower() in self._firsts and self._start.fullmatch(text, pos=base + m.start(), partial=True):
                return base + m.start()
        return len(text)


# ``Scrubber`` keeps nanobot's own markup (the memory block's headers, ``(said: "...")`` quotes, source
# references, ``[tool ...]`` notes, ``(nanobot: ...)`` corrections a model copies from its history) from
# reaching the user, holding back only an unclosed bracket.

HEADERS = ("Relevant Memory:", "Related Context:")
_SOURCE = re.compile(r"\s*\((?:said: \"[^\"\n]*\"|[\w./-]+\.(?:md|txt|jsonl?)(?::\d+(?:-\d+)?)?)\)")
_NANOBOT = re.compile(r"\s*(?:\(nanobot: [^()]*\)|\[nanobot: [^\[\]]*\])")
_TOOL_NOTE = re.compile(r"^\s*\[tool [\w.-]+ .*\b(?:result|error)\]\s*$", re.M)
_HEADER_LINE = re.compile(r"^\s*(?:#+\s*)?(?:Relevant Memory|Related Context):\s*$\n?", re.M)
_CUT_SOURCE = re.compile(r"\s*\((?:said:|observations/|knowledge/|MEMORY\.md|USER\.md|[\w./-]+\.md:)[^)]*$")  # cut by max_tokens
HOLD_MAX = 240  # an unclosed "(" or "[" older than this is released as it is
_FIXED = Echoes()


def scrub(text: str, echoes: Echoes | None = None) -> str:
    """``text`` without nanobot's markup (see the module docstring) and without the notes it sent,
    echoed (``Echoes``: the fixed ones, and those of ``echoes``).

    >>> scrub('Your name is Priya. (said: "I am Priya") (observations/20261123-150749-8fbf.md:1)')
    'Your name is Priya.'
    """
    text = _TOOL_NOTE.sub("", _HEADER_LINE.sub("", _CUT_SOURCE.sub("", _SOURCE.sub("", _NANOBOT.sub("", text)))))
    text = (echoes or _FIXED).sub(text)
    return re.sub(r"\n{3,}", "\n\n", text)


class Scrubber:
    """``scrub`` over a stream: ``feed(piece)`` returns what is safe to show now, ``finish()`` the rest."""

    def __init__(self, echoes: Echoes | None = None) -> None:
        self.pending = ""
        self.echoes = echoes or _FIXED

    def feed(self, piece: str) -> str:
        self.pending += piece
        cut = self._hold(self.pending)
        out, self.pending = self.pending[:cut], self.pending[cut:]
        return scrub(out, self.echoes)

    def finish(self) -> str:
        out, self.pending = self.pending, ""
        return scrub(unfenced(out), self.echoes)

    def _hold(self, text: str) -> int:
        cut = len(text)
        for open_, close in (("(", ")"), ("[", "]")):
            i = text.rfind(open_)
            if i >= 0 and close not in text[i:] and len(text) - i < HOLD_MAX:
                cut = min(cut, len(text[:i].rstrip(" ")))  # with the space a removed source takes along
        if (start := self.echoes.start(text)) < len(text):  # a sentence that may be an echoed note
            cut = min(cut, len(text[:start].rstrip()))
        if (fence := _open_fence(text)) >= 0:  # a fence that so far holds only a call's opening
            cut = min(cut, len(text[:fence].rstrip()))
        line = text.rfind("\n") + 1
        tail = text[line:].lstrip(" #")
        if tail and any(h.startswith(tail) for h in HEADERS):
            cut = min(cut, line)
        return cut


_FENCE_START = re.compile(r"^[ \t]*`{1,3}[\w+-]*[ \t]*$")  # a fence line, or its start as it streams
_BRACES = {"", "{", "[", "{}", "[]", "[{", "}", "]"}


def _open_fence(text: str) -> int:
    """Where a code fence starts that is still open and holds nothing but a call's opening so far
    ("```json\\n{"): shown, it is a broken call, not an answer (``tools.plain`` drops it); -1 if none.

    >>> _open_fence("Done.\\n\\n```json\\n{"), _open_fence("Use:\\n```python\\nprint(1)"), _open_fence("ok ``")
    (7, -1, -1)
    >>> _open_fence("```sh\\nls\\n```\\nThen ``"), _open_fence("Run:\\n``")
    (-1, 5)
    """
    lines = text.split("\n")
    at, state = -1, "out"  # out | opening (only braces so far) | code (a real block)
    for i, line in enumerate(lines):
        whole = line.strip().startswith("```")
        fence = bool(_FENCE_START.match(line)) and (whole or i == len(lines) - 1)
        if state == "out" and fence:
            at, state = i, "opening"
        elif state == "code" and fence and whole:
            state = "out"
        elif state == "opening" and not (fence and whole) and line.strip() not in _BRACES:
            state = "code"  # an empty fence that closes stays held: ``plain`` drops it at the end
    if state != "opening":
        return -1
    return sum(len(ln) + 1 for ln in lines[:at])


def unfenced(text: str) -> str:
    """``text`` without a fence that only opened a call (``_open_fence``) and what ``tools.plain``
    drops after it; prose after it stays.

    >>> unfenced("Call edit_file again.\\n\\n```json\\n{"), unfenced("ok")
    ('Call edit_file again.', 'ok')
    """
    at = _open_fence(text)
    if at < 0:
        return text
    rest = plain(text[at:])
    return text[:at].rstrip() + (f"\n\n{rest}" if rest else "")


_ENDS = re.compile(r"[.!?\n]+")
WORD_MAX = 100
_WORD = re.compile(rf"\w{{1,{WORD_MAX}}}")


class LoopGuard:
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


# A reply cut at the token limit while it copied a look's output, finished from that output.
#
# A small model often answers "show me the log" by copying the command's output; with a tight
# ``max_tokens`` the copy stops mid-line ("Date:   Wed"), before the part the user asked for. Whether
# the reply is such a copy is a fact of the two texts, in any language: the generation stopped at its
# length limit, and the reply's last lines occur in the output of a look that succeeded this turn (list
# markers and indentation aside). The rest of the output follows, as it came, up to ``REST_CHARS``.

REST_CHARS = 1500  # of the output, after the copy: what a terminal screen would show
TAIL_MIN = 8  # characters of the reply found in the output, at least, to be a copy
GAP = 40  # characters of the output between the line before last and the cut line, at most
_MARK = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)]\s+)?")


def rest(reply: str, outputs: list[str]) -> str:
    """What follows the reply's copy in the first of ``outputs`` it copies ("" when it copies none): its
    cut last line (a list marker aside) is in the output, within ``GAP`` characters after the end of its
    line before last where that is in the output too (a line too short to tell by itself, "Date:",
    counts only so).

    >>> out = "exit 0\\ncommit 1a2b\\nAuthor: u <u@x>\\nDate:   Wed Nov 25\\n\\n    Fix the parser\\n"
    >>> rest("Here is the log:\\n- commit 1a2b\\n  Author: u <u@x>\\n  Date:   Wed", [out])
    ' Nov 25\\n\\n    Fix the parser'
    >>> rest("The log says the parser was fixed", [out])
    ''
    """
    lines = [_MARK.sub("", line).strip() for line in reply.rstrip().splitlines() if line.strip()]
    if not lines:
        return ""
    tail, before = lines[-1], lines[-2][-TAIL_MIN * 3:] if len(lines) > 1 else ""
    if len(before) < TAIL_MIN and len(tail) < TAIL_MIN:
        return ""
    for output in outputs:
        at = _find(before, output) if len(before) >= TAIL_MIN else None
        start = at.end() if at else 0
        if not at and len(tail) < TAIL_MIN:
            continue
        found = _find(tail, output, start)
        if not found or (at and found.start() - start > GAP):
            continue
        more = output[found.end():].rstrip()
        if len(more) > REST_CHARS:
            more = more[:more.rfind("\n", 0, REST_CHARS) if "\n" in more[:REST_CHARS] else REST_CHARS] + "\n…"
        return more
    return ""


def _find(text: str, output: str, start: int = 0) -> re.Match | None:
    """``text`` in ``output`` from ``start``, any run of whitespace matching any other (a copy joins lines)."""
    return re.compile(r"\s+".join(map(re.escape, text.split()))).search(output, start)


def finished(reply: str, cut: bool, seen: list) -> str:
    """The rest of a tool's output (a look's, as a rule: a change's result is one line) for a reply the
    token limit ``cut`` mid-copy; "" otherwise."""
    if not cut:
        return ""
    outputs = [ev.text for ev in reversed(seen) if getattr(ev, "kind", "") == "tool_result" and ev.ok
               and ev.text.strip()]
    return rest(reply, outputs)
