"""The lean system prompt: sections with token budgets and a hard cap.

Sections arrive in order, stable ones first (SOUL, USER, tool names, CONTEXT) and volatile ones last
(time), so the KV-cache prefix survives from turn to turn and from session to session. Per-turn material
(retrieved memory) never enters the system prompt: it travels with the user message.

Trim rule (stated, and reported in ``BuiltPrompt.trims``):
1. A section over its own budget keeps whole lines from the top while they fit; if even its first line
   does not fit, that line is cut at a word boundary. What was dropped is reported.
2. If the whole prompt is still over the cap, sections are trimmed further from the last (most volatile)
   towards the first until it fits. The cap is never exceeded.

Token counts come from the loaded model's own tokenizer (any ``count(text) -> int``). A section longer
than ``CHARS_PER_TOKEN_MAX`` characters per budget token is cut to whole lines first, so a huge file
costs what its budget shows, never a tokenizer pass over megabytes.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from nanobot.core.fitting import most_that_fits

Counter = Callable[[str], int]
SEPARATOR = "\n\n"


class RawSection(BaseModel):
    """A section before budgeting: its name, its text (already without template guidance)."""

    name: str
    text: str
    budget: int
    stable: bool = True
    header: str = ""  # e.g. "## About the user"; counted as part of the section
    order: int = 50  # position in the prompt (lower first); see nanobot.core.sections for the core's
    replace: bool = False  # merging: take over a same-name section instead of adding lines to it


class Section(BaseModel):
    name: str
    text: str
    tokens: int
    budget: int
    stable: bool
    trimmed_tokens: int = 0  # tokens removed by the trim rule


class BuiltPrompt(BaseModel):
    sections: list[Section]
    total_tokens: int
    cap: int
    trims: list[str] = Field(default_factory=list)  # human-readable trim reports
    omitted: list[str] = Field(default_factory=list)  # sections with nothing to send

    @property
    def text(self) -> str:
        return SEPARATOR.join(s.text for s in self.sections if s.text)

    @property
    def stable_text(self) -> str:
        """The stable prefix (every section before the first volatile one)."""
        out = []
        for s in self.sections:
            if not s.stable:
                break
            if s.text:
                out.append(s.text)
        return SEPARATOR.join(out)


def trim_to_budget(text: str, budget: int, count: Counter) -> str:
    """Keep whole lines from the top while within ``budget`` tokens.

    >>> trim_to_budget("a b\\nc d\\ne f", 4, lambda t: len(t.split()))
    'a b\\nc d'
    """
    if count(text) <= budget:
        return text
    if budget <= 0:
        return ""
    lines = text.splitlines()
    lo = most_that_fits(len(lines), lambda n: count("\n".join(lines[:n])) <= budget)
    if lo > 0:
        return "\n".join(lines[:lo]).rstrip()
    words = lines[0].split(" ")  # first line alone is too long: cut it at a word boundary
    lo = most_that_fits(len(words), lambda n: count(" ".join(words[:n])) <= budget)
    return " ".join(words[:lo]).rstrip()


CHARS_PER_TOKEN_MAX = 16  # no tokenizer packs more characters into a token on average


def _cut_lines(text: str, chars: int) -> str:
    """The whole lines of ``text`` within its first ``chars`` characters (at least that cut)."""
    head = text[:chars]
    return head[: head.rfind("\n")] if "\n" in head else head


def build_prompt(raw: list[RawSection], cap: int, count: Counter) -> BuiltPrompt:
    """Budget each section, then enforce the cap; see the module docstring for the rule."""
    sections: list[Section] = []
    trims: list[str] = []
    omitted: list[str] = []
    for r in raw:
        body = r.text.strip()
        if not body:
            omitted.append(r.name)
            continue
        full = f"{r.header}\n{body}" if r.header else body
        if len(full) > r.budget * CHARS_PER_TOKEN_MAX:  # bounded before counting: a 10 MB file
            full = _cut_lines(full, r.budget * CHARS_PER_TOKEN_MAX)  # costs what its budget shows
        n = count(full)
        text = trim_to_budget(full, r.budget, count)
        kept = count(text) if text != full else n
        if text != full:
            trims.append(f"{r.name}: {n} tokens over its budget of {r.budget}; kept the first {kept} tokens (whole lines from the top), dropped {n - kept}")
        sections.append(Section(name=r.name, text=text, tokens=kept, budget=r.budget,
                                stable=r.stable, trimmed_tokens=n - kept))

    def total() -> int:
        return count(SEPARATOR.join(s.text for s in sections if s.text))

    t = total()
    for s in reversed(sections):
        if t <= cap:
            break
        over = t - cap
        before = s.tokens
        s.text = trim_to_budget(s.text, max(0, s.tokens - over - 2), count)
        s.tokens = count(s.text) if s.text else 0
        s.trimmed_tokens += before - s.tokens
        trims.append(f"{s.name}: trimmed {before - s.tokens} more tokens to keep the prompt under its cap of {cap}")
        t = total()
    sections = [s for s in sections if s.text]
    return BuiltPrompt(sections=sections, total_tokens=t, cap=cap, trims=trims, omitted=omitted)
