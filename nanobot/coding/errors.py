"""The coding session's one error type: an operation that cannot proceed (message names the fix).

Its own module so the VCS interface (``vcs.py``) and its backends (``gitvcs.py``, ``jjvcs.py``)
all import it without importing each other.
"""

from __future__ import annotations

from nanobot.base.errors import NanobotError


class CodingError(NanobotError):
    """A coding-session operation cannot proceed; the message names the cause and the fix."""
