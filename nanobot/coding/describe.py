"""The living description: the original task, then ``Done:``, ``Key decisions:``, ``Left to do:``
and ``Open questions:`` lists, and the ``[session: <root id>]`` tag.

``DescriptionDraft`` is what the model fills under a JSON-schema grammar (every string and list
bounded, every key required: the four lists always exist, however small the model). ``render``
and ``parse`` round-trip the text that becomes the change's description.

A long session keeps everything it did: ``with_draft`` adds the draft's ``done`` and ``decisions`` to
the ones already there (``left`` and ``questions`` are the current state and are replaced), and ``fit``
holds the whole description within ``[coding] description`` tokens by merging the oldest items of a
list into one ``Earlier: …`` line (each item cut to its first words) rather than dropping any.

>>> d = Description(task="Add CSV export", done=["parser"], left=["docs"], session="Iabc")
>>> print(render(d))
Add CSV export
<BLANKLINE>
Done:
- parser
Key decisions:
- (none)
Left to do:
- docs
Open questions:
- (none)
<BLANKLINE>
[session: Iabc]
>>> parse(render(d)) == d
True
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from pydantic import BaseModel, Field, ValidationError

from nanobot.base.scripts import foreign, scripts_of

LISTS = {"done": "Done", "decisions": "Key decisions", "left": "Left to do", "questions": "Open questions"}
NONE = "(none)"
ITEMS, ITEM_CHARS = 3, 100  # the model's bounds per list and per item (per rewrite)
KEPT = ("done", "decisions")  # lists that accumulate across rewrites
EARLIER = "Earlier: "  # the line older items are merged into
_TAG = re.compile(r"^\[session: ([^\]\s]+)\]\s*$", re.M)


class DescriptionDraft(BaseModel):
    """What the model writes (its JSON schema, bounded, is the grammar)."""

    done: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    left: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)


class Description(DescriptionDraft):
    task: str
    session: str = ""

    def with_draft(self, draft: DescriptionDraft, user_text: str = "") -> Description:
        """The task and tag kept, the lists from ``draft``: cleaned, no item in two lists (an item
        both done and left to do is done), no item in a script the user never wrote in
        (``user_text``: the user's messages; ``nanobot.base.scripts``); ``done`` and ``decisions`` keep
        the items already there (new ones after)."""
        allowed = scripts_of(user_text)
        seen: set[str] = set()
        update: dict[str, list[str]] = {}
        for k in LISTS:
            out = [" ".join(i.split()).lstrip("-*• ").strip() for i in getattr(draft, k)]
            keep = [i for i in out if i and i != NONE and not foreign(i, allowed) and _key(i) not in seen]
            new = list(dict.fromkeys(keep))[:ITEMS]
            if k in KEPT:
                old = getattr(self, k)
                known = {i.casefold() for i in unmerge(old)}
                new = old + [i for i in new if i.casefold() not in known]
            update[k] = new
            seen |= {_key(i) for i in unmerge(new)}
        return self.model_copy(update=update)


def unmerge(items: list[str]) -> list[str]:
    """Every item of a list, the ``Earlier: a; b`` line split back into its items."""
    out: list[str] = []
    for i in items:
        out += [p.strip() for p in i[len(EARLIER):].split("; ") if p.strip()] if i.startswith(EARLIER) else [i]
    return out


def _short(item: str, words: int) -> str:
    w = item.split()
    return item if len(w) <= words else " ".join(w[:words]) + "…"


def fit(d: Description, budget: int, count) -> Description:
    """``d`` within ``budget`` tokens (rendered), no item dropped: the oldest items of ``done`` and
    ``decisions`` move, one at a time (from the longer list), into an ``Earlier: a; b; c`` line that
    leads the list, each cut to its first 5 words; if all are merged and it is still too long, the
    merged items are cut to fewer words (down to one).

    >>> d = Description(task="t", done=[f"step {i}: the parser reads quoted fields now" for i in range(5)])
    >>> fit(d, 50, lambda t: len(t.split())).done  # doctest: +NORMALIZE_WHITESPACE
    ['Earlier: step 0: the parser reads…; step 1: the parser reads…; step 2: the parser reads…',
     'step 3: the parser reads quoted fields now', 'step 4: the parser reads quoted fields now']
    """
    if count(render(d)) <= budget:
        return d
    lists = {k: unmerge(getattr(d, k)) for k in KEPT}
    merged = {k: 0 for k in KEPT}  # how many of the oldest items are in the Earlier line

    def build(words: int) -> Description:
        update = {}
        for k, items in lists.items():
            m = merged[k]
            head = [EARLIER + "; ".join(_short(i, words) for i in items[:m])] if m else []
            update[k] = head + items[m:]
        return d.model_copy(update=update)

    words = 5
    while True:
        cand = build(words)
        if count(render(cand)) <= budget:
            return cand
        full = {k: len(lists[k]) - merged[k] for k in KEPT}
        k = max(KEPT, key=lambda k: full[k])
        if full[k] > 1 or (full[k] == 1 and merged[k]):
            merged[k] += 1
        elif words > 1:
            words = max(1, words // 2)
        else:
            return cand  # even one word per item does not fit: the nearest there is


def _key(item: str) -> str:
    """An item compared across lists: case, punctuation and spacing aside."""
    return " ".join(re.sub(r"[^\w\s]", " ", item.lower()).split())


def render(d: Description) -> str:
    lines = [d.task.strip(), ""]
    for key, label in LISTS.items():
        lines += [f"{label}:", *[f"- {i}" for i in (getattr(d, key) or [NONE])]]
    if d.session:
        lines += ["", f"[session: {d.session}]"]
    return "\n".join(lines)


def parse(text: str) -> Description:
    """A description back from its text; text without the lists is all task."""
    tag = _TAG.search(text)
    body = _TAG.sub("", text).strip()
    labels = {f"{v}:": k for k, v in LISTS.items()}
    task_lines: list[str] = []
    data: dict[str, list[str]] = {k: [] for k in LISTS}
    current = None
    for line in body.splitlines():
        if line.strip() in labels:
            current = labels[line.strip()]
        elif current and line.lstrip().startswith("- "):
            item = line.lstrip()[2:].strip()
            if item != NONE:
                data[current].append(item)
        elif current is None:
            task_lines.append(line)
    return Description(task="\n".join(task_lines).strip(), session=tag.group(1) if tag else "", **data)


def session_of(text: str) -> str:
    tag = _TAG.search(text)
    return tag.group(1) if tag else ""


@lru_cache(maxsize=1)
def draft_grammar() -> str:
    """GBNF for ``DescriptionDraft``: all four keys required, in order, lists and strings bounded."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from nanobot.observer.observation import _NESTED_CHARS, JSON_CHAR, _bounded

    schema = DescriptionDraft.model_json_schema()
    schema["required"] = list(LISTS)
    for key in LISTS:
        schema["properties"][key]["maxItems"] = ITEMS
        schema["properties"][key]["items"]["maxLength"] = ITEM_CHARS
    gbnf = json_schema_to_gbnf(json.dumps(schema), prop_order=list(LISTS))
    gbnf = re.sub(r"^char ::= .*$", lambda m: JSON_CHAR, gbnf, flags=re.M)
    return _NESTED_CHARS.sub(_bounded, gbnf)


def parse_draft(text: str) -> DescriptionDraft | None:
    """The draft in ``text``; one cut off by ``max_tokens`` is closed if it can be."""
    for tail in ("", '"', "]", '"]', "]}", '"]}', "}"):
        try:
            return DescriptionDraft.model_validate_json(text + tail)
        except ValidationError:
            continue
    return None
