"""An edit the user spelled out: a file, the text to replace and its replacement, both quoted.

"In todo.md replace 'buy milk' with 'buy oat milk'", "replace `DEBUG = False` with `DEBUG = True` in
settings.py", "in notes.txt, change "5pm" to "6pm"": the message holds a whole ``edit_file`` call,
which a small model may send elsewhere (todo.md read as the task board). ``nanobot.loop.explicit``
makes such a call first, as it does "read X" and "run X"; the edit
still goes through the call policy and the tool (the old text must be in the file).

>>> spelled_edit("In todo.md replace 'buy milk' with 'buy oat milk'")
{'path': 'todo.md', 'old': 'buy milk', 'new': 'buy oat milk'}
>>> spelled_edit('bob: please change "5pm" to "6pm" in notes.txt.')
{'path': 'notes.txt', 'old': '5pm', 'new': '6pm'}
>>> spelled_edit("replace milk with oat milk in todo.md"), spelled_edit("In todo.md, what should replace 'a'?")
(None, None)
"""

from __future__ import annotations

import re

_FILE = r"[`'\"]?(?P<path>(?:~?/|\./)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5})[`'\"]?"
_SWAP = (r"(?:replace|change|substitute)\s+(?P<q>['\"`])(?P<old>.+?)(?P=q)\s+(?:with|to|by)\s+"
         r"(?P<r>['\"`])(?P<new>.*?)(?P=r)")
_LEAD = r"^(?:[\w.-]+:\s+)?(?:please\s+)?"  # a team chat's "alice: "
_END = r"(?:\s+please)?\s*[.!]?\s*$"
_FORMS = (re.compile(rf"{_LEAD}in\s+(?:the\s+file\s+)?{_FILE},?\s+(?:please\s+)?{_SWAP}{_END}", re.I | re.S),
          re.compile(rf"{_LEAD}{_SWAP}\s+in\s+(?:the\s+file\s+)?{_FILE}{_END}", re.I | re.S))


def spelled_edit(user_text: str) -> dict | None:
    """edit_file's arguments when the whole message spells out one replacement in one file; else None."""
    for form in _FORMS:
        if m := form.match(user_text.strip()):
            return {"path": m.group("path"), "old": m.group("old"), "new": m.group("new")}
    return None
