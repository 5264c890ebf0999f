"""An observation: what happened in a session, its decisions and open items, as a file.

``ObservationDraft`` is what the model fills in under a JSON-schema grammar (the schema is the
pydantic model's, compiled to GBNF with every string bounded so the output is short and always
closes). ``Observation`` is the file ``observations/<session id>.md``: a small frontmatter, then one
part per trigger (context pressure, session end), newest last. ``render``/``parse`` round-trip.

>>> d = ObservationDraft(summary="Chose csv+serde.", decisions=["use serde"])
>>> obs = Observation(session="20260101-100000-abcd", parts=[ObservationPart.of(d, "quit", 4)])
>>> Observation.parse(obs.render()).parts[0].decisions
['use serde']
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

MAX_ITEMS = 3  # per list when parsing a file
GRAMMAR_ITEMS = 2  # per list the model may write
GRAMMAR_CHARS = {"summary": 160, "focus": 60, "task": 80, "blocked": 80}  # the model's bound per field
ITEM_CHARS = 80  # ... and per list item: ~800 characters in all, ~200 tokens
LISTS = {"decisions": "Decisions", "open_items": "Open items", "facts": "Facts"}
SCALARS = {"summary": "Summary", "focus": "Focus", "task": "Task", "blocked": "Blocked"}


class ObservationDraft(BaseModel):
    """What the model writes (the JSON schema of this model is the grammar)."""

    summary: str = ""
    focus: str = ""
    task: str = ""
    blocked: str = ""  # what the task waits on, if anything
    decisions: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_items: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    facts: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)

    def cleaned(self) -> ObservationDraft:
        """Strip list numbering, drop empties and repeats (small models repeat themselves)."""
        seen: set[str] = set()

        def keep(item: str) -> str:
            item = re.sub(r"^\s*(\d+[.)]|[-*•])\s*", "", " ".join(item.split())).strip()
            key = item.lower().rstrip(".")
            if not item or key in seen:
                return ""
            seen.add(key)
            return item

        out = {k: keep(getattr(self, k)) for k in SCALARS}
        for k in LISTS:
            out[k] = [x for x in (keep(i) for i in getattr(self, k)) if x]
        return ObservationDraft(**out)


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
    lines += [f"{label}: {getattr(p, k)}" for k, label in SCALARS.items() if getattr(p, k)]
    for k, label in LISTS.items():
        items = getattr(p, k)
        if items:
            lines += ["", f"### {label}", *[f"- {i}" for i in items]]
    return "\n".join(lines)


def _parse_part(chunk: str) -> ObservationPart | None:
    head, _, body = chunk.partition("\n")
    bits = [b.strip() for b in head.split(" · ")]
    try:
        at = datetime.fromisoformat(bits[0])
        turns = int(bits[2].split()[0]) if len(bits) > 2 else 0
    except (ValueError, IndexError):
        return None
    data: dict = {k: [] for k in LISTS}
    current: str | None = None
    labels = {v.lower(): k for k, v in LISTS.items()}
    scalars = {v.lower(): k for k, v in SCALARS.items()}
    for line in body.splitlines():
        if line.startswith("### "):
            current = labels.get(line[4:].strip().lower())
        elif current and line.lstrip().startswith(("- ", "* ")):
            data[current].append(line.lstrip()[2:].strip())
        elif ":" in line and not current:
            k, v = _kv(line)
            if k.lower() in scalars:
                data[scalars[k.lower()]] = v
    for k in LISTS:
        data[k] = data[k][:MAX_ITEMS]
    gen = bits[3] if len(bits) > 3 and bits[3] in ("model", "fallback") else "model"
    return ObservationPart(at=at, trigger=bits[1] if len(bits) > 1 else "", turns=turns,
                           generator=gen, **data)


FULL_TOKENS = 256  # the draft budget the full bounds are made for
SKELETON_TOKENS = 48  # keys, quotes and brackets of an empty draft


def grammar_scale(max_tokens: int | None) -> float:
    """How much of the full string bounds a ``max_tokens`` budget affords (1.0 = all, >= 0.25).

    >>> grammar_scale(None), grammar_scale(256), grammar_scale(152)
    (1.0, 1.0, 0.5)
    """
    if not max_tokens:
        return 1.0
    return max(0.25, min(1.0, (max_tokens - SKELETON_TOKENS) / (FULL_TOKENS - SKELETON_TOKENS)))


@lru_cache(maxsize=8)
def draft_grammar(max_tokens: int | None = None) -> str:
    """GBNF for ``ObservationDraft`` via llama.cpp's schema converter, every string bounded.

    The schema gets ``maxLength``/``maxItems`` so the whole draft stays ~200 tokens and always
    closes within ``observer.max_tokens``; a smaller ``max_tokens`` (a short session's budget)
    shrinks every string bound in proportion, so the smaller draft still closes. The converter
    spells ``maxLength`` N as N nested optionals, which makes sampling slow; they are rewritten as
    the equivalent ``char{0,N}``.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    scale = grammar_scale(max_tokens)
    schema = ObservationDraft.model_json_schema()
    schema["required"] = list(ObservationDraft.model_fields)  # every key, in this order
    for key, n in GRAMMAR_CHARS.items():
        schema["properties"][key]["maxLength"] = max(16, int(n * scale))
    for key in LISTS:
        schema["properties"][key]["maxItems"] = GRAMMAR_ITEMS
        schema["properties"][key]["items"]["maxLength"] = max(16, int(ITEM_CHARS * scale))
    gbnf = json_schema_to_gbnf(json.dumps(schema), prop_order=list(ObservationDraft.model_fields))
    gbnf = re.sub(r"^char ::= .*$", lambda m: JSON_CHAR, gbnf, flags=re.M)
    return _NESTED_CHARS.sub(_bounded, gbnf)


# The converter's ``char`` admits raw control characters (a newline inside a string: invalid JSON,
# so the draft was lost); this one is JSON's.
JSON_CHAR = r'char ::= [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'


_NESTED_CHARS = re.compile(r'"\\"" \(char(?: \(char)*(?:\)\?)+ "\\"" space')


def _bounded(m: re.Match) -> str:
    return f'"\\"" char{{0,{m.group(0).count("char")}}} "\\"" space'


def parse_draft(text: str) -> ObservationDraft | None:
    """The draft in ``text``; a draft cut off by ``max_tokens`` is closed and kept if it can be.

    >>> parse_draft('{"summary": "Chose serde", "focus": "cs').focus
    'cs'
    """
    for tail in ("", '"', "}", '"}', "]}", '"]}', '"]}}'):
        try:
            return ObservationDraft.model_validate_json(text + tail).cleaned()
        except ValidationError:
            continue
    return None
