"""The ``Change-Id:`` trailer: git's stand-in for jj's change id (it survives amend and rebase,
because both keep the commit message).

>>> msg = with_trailer("Fix the parser\\n\\nDone:\\n- tests", "I0123456789abcdef0123456789abcdef01234567")
>>> msg.splitlines()[-1]
'Change-Id: I0123456789abcdef0123456789abcdef01234567'
>>> ids_in(msg), without_trailer(msg) == "Fix the parser\\n\\nDone:\\n- tests"
(['I0123456789abcdef0123456789abcdef01234567'], True)
"""

from __future__ import annotations

import re
import secrets

TRAILER = "Change-Id"
_LINE = re.compile(rf"^{TRAILER}: (I[0-9a-f]{{40}})\s*$", re.M)


def new_id() -> str:
    """A fresh id in Gerrit's shape: ``I`` and 40 hex digits."""
    return "I" + secrets.token_hex(20)


def ids_in(message: str) -> list[str]:
    """Every Change-Id in ``message`` (a squash keeps both: the root id survives in the result)."""
    return _LINE.findall(message)


def without_trailer(message: str) -> str:
    """The message with its Change-Id lines (and the blank line before them) removed."""
    return _LINE.sub("", message).rstrip()


def with_trailer(message: str, change_id: str) -> str:
    """``message`` (its old Change-Id lines dropped) ending in ``Change-Id: change_id``."""
    body = without_trailer(message)
    return f"{body}\n\n{TRAILER}: {change_id}\n" if body else f"{TRAILER}: {change_id}\n"
