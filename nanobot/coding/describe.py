"""The living description: the original task, then ``Done:``, ``Key decisions:``, ``Left to do:``
and ``Open questions:`` lists, and the ``[session: <root id>]`` tag.

``DescriptionDraft`` is what the model fills under a JSON-schema grammar (every string and list
bounded, every key required: the four lists always exist, however small the model). ``render``
and ``parse`` round-trip the text that becomes the change's description.

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

from nanobot.scripts import foreign, scripts_of

LISTS = {"done": "Done", "decisions": "Key decisions", "left": "Left to do", "questions": "Open questions"}
NONE = "(none)"
ITEMS, ITEM_CHARS = 3, 100  # the model's bounds per list and per item
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
        both done and left to do is done), and no item in a script the user never wrote in
        (``user_text``: the user's messages; ``nanobot.scripts``)."""
        allowed = scripts_of(user_text)
        seen: set[str] = set()
        lists: dict[str, list[str]] = {}
        for k in LISTS:
            out = [" ".join(i.split()).lstrip("-*• ").strip() for i in getattr(draft, k)]
            keep = [i for i in out if i and i != NONE and not foreign(i, allowed) and _key(i) not in seen]
            lists[k] = list(dict.fromkeys(keep))[:ITEMS]
            seen |= {_key(i) for i in lists[k]}
        return self.model_copy(update=lists)


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
