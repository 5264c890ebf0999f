"""What a reply that opens a tool call looks like: the openings a text reply may not begin with
(``NO_OPENING``), and a reply that is nothing but a call's opening (``opening_only``), or could still
grow into one (``may_open``), which the template tool step holds back, then makes into a call or asks
for again in plain text (``tools.templatecalls``).
"""

from __future__ import annotations

import regex

from nanobot.tools.callgrammar import OPEN

# How the model opens a call when left alone: a small model rarely writes <tool_call> first, but
# ```json or a bare {"name": ...}; any of them counts as a call.
STARTS = (OPEN, "{", "```json")
# what a text reply may not begin with (``backends/openban.py``): every call opening, a fenced bare one
# (```` ```python\n{ ```` then prose is a call abandoned, the opening a model picks when ```` ```json ```` is masked)
FENCED = tuple(f"```{lang}{nl}{brace}" for lang in ("", "python", "py", "javascript", "js", "tool_code", "text")
               for nl in ("\n", " ") for brace in ("{", "[")) + ("```\n\n{", "```python\n\n{")
NO_OPENING = (*STARTS, *FENCED, "[{")
# a reply that is only a call's opening ("json: {", "<tool_call>", "```json\n{", "tools: exec\n```json\n{"):
# the model meant to call. ``regex`` (not ``re``) for its partial matches: a reply is held back only
# while it could still become one ("t", "tools: ex", "```js"), so "The capital..." shows at once.
OPENING_ONLY = regex.compile(r"\s*(?:(?:tools?|functions?|call)\s*:\s*[\w.-]*\s*)?(?:json\s*:?\s*)?"
                             r"(?:<tool_call>\s*)?(?:`{1,3}[\w+-]*\s*)?\[?\s*\{?\s*", regex.I)
# ... or a short label of the model's own before the brace ("tools> {", "json object: {", "tools {{"): any
# one or two words, then ":" or ">" or nothing, then opening braces. Held back only while the reply opens
# lower case (a label), so prose ("The capital ...") shows at once. "tools {{" too: the label, then braces.
LABELLED = regex.compile(r"\s*<?[\w.-]+(?:\s+[\w.-]+)?\s*[:>]?\s*(?:<tool_call>\s*)?(?:`{1,3}[\w+-]*\s*)?\[?\s*(?:\{\s*)+")
HOLD = 48  # at most this many characters are held back while the reply could still be only an opening


def opening_only(text: str) -> bool:
    """Whether ``text`` is nothing but a call's opening.

    >>> opening_only("json: {"), opening_only("```json"), opening_only("Paris."), opening_only("")
    (True, True, False, False)
    >>> opening_only("tools> {"), opening_only("json object: {"), opening_only("tools {{"), opening_only("Yes: the file holds {}")
    (True, True, True, False)
    >>> opening_only("`\\n{"), opening_only("`ls` lists files.")
    (True, False)
    """
    return bool(text.strip()) and (OPENING_ONLY.fullmatch(text) is not None or LABELLED.fullmatch(text) is not None)


def may_open(text: str) -> bool:
    """Whether ``text`` is, or could still grow into, nothing but a call's opening.

    >>> may_open("tools: ex"), may_open("```js"), may_open("The"), may_open("Paris"), may_open("tools>"), may_open("json object")
    (True, True, False, False, True, True)
    """
    if OPENING_ONLY.fullmatch(text, partial=True) is not None:
        return True
    head = text.lstrip()[:1]
    return not head.isupper() and LABELLED.fullmatch(text, partial=True) is not None
