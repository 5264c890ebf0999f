"""An observation: what happened in a session, its decisions and open items, as a file.

``GroundedDraft`` is what the model fills in under a JSON-schema grammar (the schema is the
pydantic model's, compiled to GBNF with every string bounded so the output is short and always
closes): every item is ``{"text", "quote"}``, the quote being its evidence from the session.
``ObservationDraft`` is what is kept once the quotes are verified (``observer/evidence.py``): the
items' text, with ``evidence`` (item -> quote). ``Observation`` is the file
``observations/<session id>.md``: a small frontmatter, then one part per trigger (context pressure,
session end), newest last; an item with evidence is written ``text (said: "quote")``.
``render``/``parse`` round-trip.

>>> d = ObservationDraft(summary="Chose csv+serde.", decisions=["use serde"],
...                      evidence={"use serde": "let's use serde"})
>>> obs = Observation(session="20260101-100000-abcd", parts=[ObservationPart.of(d, "quit", 4)])
>>> Observation.parse(obs.render()).parts[0].evidence
{'use serde': "let's use serde"}
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from nanobot.base.shorten import ELLIPSIS, sentences, shorten, whole_words

MAX_ITEMS = 3  # per list when parsing a file
MAX_FACTS = 6  # facts: the user's stated facts (observer/stated.py) come first, then the model's
GRAMMAR_ITEMS = 1  # per list the model may write (the draft must close within observer.max_tokens)
ITEM_CHARS = 48  # the model's bound per item's text (near it, the last word is dropped)
QUOTE_CHARS = 40  # ... and per quote (a copied quote: one of the user's sentences, cut at a word)
MAX_OUTCOMES = 6  # what the session's tool events changed or ran (observer/toolevents.py)
LISTS = {"decisions": "Decisions", "open_items": "Open items", "facts": "Facts"}
WRITTEN = {"outcomes": "Outcomes", **LISTS}  # the lists of a part as written: outcomes first
SCALARS = {"summary": "Summary", "focus": "Focus", "task": "Task", "blocked": "Blocked"}
DRAFT_SCALARS = ("focus", "task", "blocked")  # the model's: the summary is the extractive one


class ObservationDraft(BaseModel):
    """What the model writes (the JSON schema of this model is the grammar)."""

    summary: str = ""
    focus: str = ""
    task: str = ""
    blocked: str = ""  # what the task waits on, if anything
    decisions: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_items: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    facts: list[str] = Field(default_factory=list, max_length=MAX_FACTS)
    outcomes: list[str] = Field(default_factory=list, max_length=MAX_OUTCOMES)  # from tool events
    evidence: dict[str, str] = Field(default_factory=dict)  # item -> the quote that grounds it

    def said(self, item: str) -> str:
        """``item`` as written in a file: with its evidence, if any."""
        quote = self.evidence.get(item, "")
        return f'{item} (said: "{quote}")' if quote else item


class Said(BaseModel):
    """One item as the model writes it: the note and the words of the session it rests on."""

    text: str = ""
    quote: str = ""


class GroundedDraft(BaseModel):
    """What the model writes (the JSON schema of this model is the grammar)."""

    focus: Said = Field(default_factory=Said)
    task: Said = Field(default_factory=Said)
    blocked: Said = Field(default_factory=Said)  # what the task waits on, if anything
    decisions: list[Said] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_items: list[Said] = Field(default_factory=list, max_length=MAX_ITEMS)
    facts: list[Said] = Field(default_factory=list, max_length=MAX_ITEMS)

    def items(self) -> list[tuple[str, Said]]:
        """(field, item) for every item, scalars first."""
        return [*((k, getattr(self, k)) for k in DRAFT_SCALARS),
                *((k, i) for k in LISTS for i in getattr(self, k))]


class ObservationPart(ObservationDraft):
    at: datetime
    trigger: str  # "pressure" | "quit" | "eof" | "interrupt" | "new" | "recovered"
    turns: int = 0
    generator: Literal["model", "fallback"] = "model"

    @classmethod
    def of(cls, draft: ObservationDraft, trigger: str, turns: int, *,
           at: datetime | None = None, generator: str = "model") -> ObservationPart:
        return cls(**draft.model_dump(), trigger=trigger, turns=turns, generator=generator,
                   at=(at or datetime.now().astimezone()).replace(microsecond=0))


class Observation(BaseModel):
    session: str
    started: datetime | None = None
    parts: list[ObservationPart] = Field(default_factory=list)

    def render(self) -> str:
        head = ["---", f"session: {self.session}"]
        if self.started:
            head.append(f"started: {self.started.isoformat()}")
        head += [f"parts: {len(self.parts)}", "---", f"# Observation of session {self.session}"]
        body = [_render_part(i, p) for i, p in enumerate(self.parts, start=1)]
        return "\n".join(head) + "\n\n" + "\n\n".join(body) + "\n"

    @classmethod
    def parse(cls, text: str) -> Observation:
        meta, _, rest = text.partition("\n---\n") if text.startswith("---\n") else ("", "", text)
        fields = dict(_kv(line) for line in meta.splitlines()[1:] if ":" in line)
        started = fields.get("started")
        obs = cls(session=fields.get("session", ""),
                  started=datetime.fromisoformat(started) if started else None)
        for chunk in re.split(r"^## Part \d+ · ", rest, flags=re.M)[1:]:
            part = _parse_part(chunk)
            if part is not None:
                obs.parts.append(part)
        return obs


def _kv(line: str) -> tuple[str, str]:
    k, _, v = line.partition(":")
    return k.strip(), v.strip()


def _render_part(n: int, p: ObservationPart) -> str:
    lines = [f"## Part {n} · {p.at.isoformat(timespec='seconds')} · {p.trigger} · "
             f"{p.turns} turns · {p.generator}"]
    lines += [f"{label}: {p.said(getattr(p, k))}" for k, label in SCALARS.items() if getattr(p, k)]
    for k, label in WRITTEN.items():
        items = getattr(p, k)
        if items:
            lines += ["", f"### {label}", *[f"- {p.said(i)}" for i in items]]
    return "\n".join(lines)


def _parse_part(chunk: str) -> ObservationPart | None:
    head, _, body = chunk.partition("\n")
    bits = [b.strip() for b in head.split(" · ")]
    try:
        at = datetime.fromisoformat(bits[0])
        turns = int(bits[2].split()[0]) if len(bits) > 2 else 0
    except (ValueError, IndexError):
        return None
    data: dict = {k: [] for k in WRITTEN}
    evidence: dict[str, str] = {}
    current: str | None = None
    labels = {v.lower(): k for k, v in WRITTEN.items()}
    scalars = {v.lower(): k for k, v in SCALARS.items()}
    for line in body.splitlines():
        if line.startswith("### "):
            current = labels.get(line[4:].strip().lower())
        elif current and line.lstrip().startswith(("- ", "* ")):
            data[current].append(_unsaid(line.lstrip()[2:].strip(), evidence))
        elif ":" in line and not current:
            k, v = _kv(line)
            if k.lower() in scalars:
                data[scalars[k.lower()]] = _unsaid(v, evidence)
    for k in WRITTEN:
        data[k] = data[k][:{"facts": MAX_FACTS, "outcomes": MAX_OUTCOMES}.get(k, MAX_ITEMS)]
    gen = bits[3] if len(bits) > 3 and bits[3] in ("model", "fallback") else "model"
    return ObservationPart(at=at, trigger=bits[1] if len(bits) > 1 else "", turns=turns,
                           generator=gen, evidence=evidence, **data)


_SAID = re.compile(r'^(.*\S)\s+\(said: "(.*)"\)$')


def _unsaid(text: str, evidence: dict[str, str]) -> str:
    """``text (said: "quote")`` -> ``text``, the quote noted in ``evidence``."""
    m = _SAID.match(text)
    if not m:
        return text
    evidence[m.group(1)] = m.group(2)
    return m.group(1)


FULL_TOKENS = 256  # the draft budget the full bounds are made for
SKELETON_TOKENS = 96  # keys, quotes and brackets of an empty grounded draft


def grammar_scale(max_tokens: int | None) -> float:
    """How much of the full item bounds a ``max_tokens`` budget affords (1.0 = all, >= 0.5).

    >>> grammar_scale(None), grammar_scale(256), grammar_scale(176)
    (1.0, 1.0, 0.5)
    """
    if not max_tokens:
        return 1.0
    return max(0.5, min(1.0, (max_tokens - SKELETON_TOKENS) / (FULL_TOKENS - SKELETON_TOKENS)))


def item_chars(max_tokens: int | None) -> int:
    """The grammar's bound on an item's text for a ``max_tokens`` budget."""
    return max(16, int(ITEM_CHARS * grammar_scale(max_tokens)))


@lru_cache(maxsize=16)
def draft_grammar(spans: tuple[str, ...] = (), max_tokens: int | None = None) -> str:
    """GBNF for ``GroundedDraft`` via llama.cpp's schema converter, every string bounded.

    The schema gets ``maxLength``/``maxItems`` so the draft stays short and always closes within
    ``observer.max_tokens``. With ``spans`` (the user's sentences) a quote can only be one of them,
    or empty: the model copies evidence, it cannot invent it. A smaller ``max_tokens`` (a short
    session's budget) shrinks each item's bound in proportion, so the smaller draft still closes. The converter spells ``maxLength`` N
    as N nested optionals, which makes sampling slow; they are rewritten as the equivalent
    ``char{0,N}``.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    quote = {"type": "string", "maxLength": QUOTE_CHARS}
    said = {"type": "object", "required": ["text", "quote"], "additionalProperties": False,
            "properties": {"text": {"type": "string", "maxLength": item_chars(max_tokens)},
                           "quote": quote}}
    props: dict = {k: said for k in DRAFT_SCALARS}
    props |= {k: {"type": "array", "items": said, "maxItems": GRAMMAR_ITEMS} for k in LISTS}
    schema = {"type": "object", "properties": props, "required": list(GroundedDraft.model_fields),
              "additionalProperties": False}
    gbnf = json_schema_to_gbnf(json.dumps(schema), prop_order=[*GroundedDraft.model_fields, "text", "quote"])
    gbnf = re.sub(r"^char ::= .*$", lambda m: JSON_CHAR, gbnf, flags=re.M)
    if spans:  # every quote: one rule admitting "" or a span, as a JSON string (GBNF-escaped)
        gbnf = re.sub(r"^([\w-]*quote) ::= .*$", r"\1 ::= quote-span", gbnf, flags=re.M)
        gbnf = gbnf.rstrip("\n") + "\nquote-span ::= " + " | ".join(json.dumps(json.dumps(x)) for x in ("", *spans)) + "\n"
    return _NESTED_CHARS.sub(_bounded, gbnf)


def quote_spans(said: list[str], limit: int = 40, chars: int = QUOTE_CHARS) -> tuple[str, ...]:
    """The user's sentences (the last ``limit``), each at most ``chars`` long (cut at a word), as
    the quotes a copy-span grammar admits.

    >>> quote_spans(["My name is Ada. I work on Ferrum!", "ok"])
    ('My name is Ada.', 'I work on Ferrum!', 'ok')
    """
    out: list[str] = []
    for message in said:
        for s in sentences(message):
            s = shorten(s, chars, ellipsis="")  # a quote must occur as said: no ellipsis added
            if len(s) >= 2 and s not in out:
                out.append(s)
    return tuple(out[-limit:])


SENTENCE_CHARS = 200  # a quote as written: the whole sentence its span begins, up to this many characters


def whole_quotes(draft: GroundedDraft, said: list[str], chars: int = SENTENCE_CHARS) -> GroundedDraft:
    """``draft`` with each quote that is a span of ``quote_spans`` (a sentence's first words) widened
    to the user's whole sentence: the grammar copies a short span, which costs the draft few tokens,
    and the observation keeps the sentence it begins, so no quote stops mid-clause and what was said
    in passing ("... paella because Marta is vegetarian") stays with the note that rests on it.

    >>> said = ["We chose the paella because Marta is vegetarian. Fine?"]
    >>> quote_spans(said)[0]
    'We chose the paella because Marta is'
    >>> d = GroundedDraft(focus=Said(text="paella", quote=quote_spans(said)[0]))
    >>> whole_quotes(d, said).focus.quote
    'We chose the paella because Marta is vegetarian.'
    """
    whole: dict[str, str] = {}
    for message in said:
        for s in sentences(message):
            span = shorten(s, QUOTE_CHARS, ellipsis="")
            if span != s and span not in whole:
                whole[span] = shorten(s, chars)
    if not whole:
        return draft

    def widen(item: Said) -> Said:
        return item.model_copy(update={"quote": whole[item.quote]}) if item.quote in whole else item

    update = {k: widen(getattr(draft, k)) for k in DRAFT_SCALARS}
    return draft.model_copy(update=update | {k: [widen(i) for i in getattr(draft, k)] for k in LISTS})


def whole_texts(draft: GroundedDraft, said: list[str], chars: int = SENTENCE_CHARS) -> GroundedDraft:
    """``draft`` with each item's text that copies the user's words (three words or more, from a word's
    start) and stops before their sentence ends, not at a clause, widened to the end of that sentence:
    the grammar's bound on an item stops a copy mid-clause ("The server crashes because port() returns
    a"), and the words as said are what a reader needs.

    >>> said = ["Hi. The server crashes because port() returns a string. Fix it."]
    >>> d = GroundedDraft(focus=Said(text="The server crashes because port() returns a", quote=""))
    >>> whole_texts(d, said).focus.text
    'The server crashes because port() returns a string.'
    >>> whole_texts(GroundedDraft(focus=Said(text="port() returns", quote="")), said).focus.text
    'port() returns'
    >>> whole_texts(GroundedDraft(focus=Said(text="server crashes because port()", quote="")), said).focus.text
    'server crashes because port() returns a string.'
    >>> whole_texts(GroundedDraft(focus=Said(text="Les tests cassent depuis ce matin,", quote="")),
    ...             ["Les tests cassent depuis ce matin, tu peux les lancer ?"]).focus.text
    'Les tests cassent depuis ce matin, tu peux les lancer ?'
    """
    texts = [" ".join(m.split()) for m in said if m.strip()]

    def widen(item: Said) -> Said:
        text = " ".join(item.text.rstrip("…").split())
        if len(text.split()) < 3 or text[-1] in ".!?":  # a comma or colon ends no sentence: it is widened too
            return item
        for message in texts:
            at = message.lower().find(text.lower())
            while at >= 0:
                end = at + len(text)
                if (at == 0 or not message[at - 1].isalnum()) and message[end:end + 1] == " " and end < len(message):
                    rest = message[end:]
                    stop = next((m.end() for m in re.finditer(r"[.!?](?=\s|$)", rest)), len(rest))
                    return item.model_copy(update={"text": shorten(message[at:end] + rest[:stop], chars)})
                at = message.lower().find(text.lower(), at + 1)
        return item

    update = {k: widen(getattr(draft, k)) for k in DRAFT_SCALARS}
    return draft.model_copy(update=update | {k: [widen(i) for i in getattr(draft, k)] for k in LISTS})


# The converter's ``char`` admits raw control characters (a newline inside a string: invalid JSON,
# so the draft was lost); this one is JSON's.
JSON_CHAR = r'char ::= [^"\\\x00-\x1f] | "\\" ["\\/bfnrt]'  # no \uXXXX: one "char", six tokens


_NESTED_CHARS = re.compile(r'"\\"" \(char(?: \(char)*(?:\)\?)+ "\\"" space')


def _bounded(m: re.Match) -> str:
    return f'"\\"" char{{0,{m.group(0).count("char")}}} "\\"" space'


def parse_draft(text: str, bound: int | None = None, known: frozenset[str] = frozenset()) -> GroundedDraft | None:
    """The draft in ``text``, whitespace normalised; a draft cut off by ``max_tokens`` is closed and
    kept if it can be. No text ends in a cut word (``base/shorten.whole_words``): an item's text
    near the grammar's ``bound``, or the item a cut-off draft stopped in, loses its last word unless
    that word is ``known`` (a word of what the model read), goes back to its last clause, and ends in
    "…" (the bound stopped it, not a sentence end).

    >>> parse_draft('{"focus": {"text": "Chose serde", "quote": "use  serde"}, "task": {"text": "add cs').task
    Said(text='add…', quote='')
    """
    for tail in ("", '"', '"}', "}", '"}}', "}}", "]}", '"}]}', "}]}", '"]}', '"]}}'):
        try:
            draft = GroundedDraft.model_validate_json(text + tail)
        except ValidationError:
            continue
        items = [item for _, item in draft.items()]
        for item in items:
            item.text = whole_words(item.text, bound or 1 << 30, known, ellipsis=ELLIPSIS)
            item.quote = " ".join(item.quote.split())
        if tail.startswith('"'):  # the draft stopped inside a string: the last one written
            last = next((i for i in reversed(items) if i.text or i.quote), None)
            if last is not None and last.quote:
                last.quote = whole_words(last.quote, 0, known)
            elif last is not None:
                last.text = whole_words(last.text, 0, known, ellipsis=ELLIPSIS)
        return draft
    return None
