"""A declined reply as plain prose: no chat-template markup, no code fence that only opened a call.

After a template-tool step declines a call, the reply is sampled with template markup tokens and call
openings masked (``backends/openban.py``) and stops at a call tag; what still slips through as plain
text -- markup spelled out in pieces, a fence opened later in the reply around nothing but a brace -- is
taken out by ``plain`` before the reply is shown whole or kept in the history.

>>> plain("The status is <tool_response>ok</tool_response>.")
'The status is ok.'
>>> plain("```python\\n{\\n    \\n\\n\\nTo fetch the page, run curl.")
'To fetch the page, run curl.'
>>> plain("Use:\\n```python\\nprint(1)\\n```")
'Use:\\n```python\\nprint(1)\\n```'
"""

from __future__ import annotations

import re

from nanobot.backends.openban import MARKUP

_MARKUP = re.compile("|".join(re.escape(m) for m in (*MARKUP, "<|im_end|>")))
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$")
_BRACES = {"", "{", "[", "{}", "[]", "[{", "}", "]"}


def plain(text: str) -> str:
    """``text`` without template markup and without fences that hold only a call's opening."""
    lines = _MARKUP.sub("", text).split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        body = lines[i + 1:end] if end is not None else lines[i + 1:]
        if all(line.strip() in _BRACES for line in body):  # a fence around nothing (or an opening)
            i = len(lines) if end is None else end + 1
        elif end is None and body and body[0].strip() in ("{", "["):  # opened on a brace, then prose
            i += 1
            while i < len(lines) and lines[i].strip() in _BRACES:
                i += 1
        else:
            stop = len(lines) if end is None else end + 1
            out.extend(lines[i:stop])
            i = stop
    return "\n".join(out).strip()
