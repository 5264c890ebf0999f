"""Input that is not UTF-8 (the one decoding policy): bytes that are not UTF-8 are replaced by U+FFFD
and reported once, never a crash and never a dropped message.

Input is read with ``errors="surrogateescape"`` (piped stdin; ``sys.argv`` already is), so a bad byte
arrives as a lone surrogate; ``scrub`` turns those into U+FFFD (also for anything else that cannot be
written as UTF-8) and says whether it did::

    >>> scrub("caf\\udce9")
    ('caf\\ufffd', True)
"""

from __future__ import annotations

NOTICE = "input held bytes that are not UTF-8; they were replaced with \ufffd (U+FFFD)"


def scrub(text: str) -> tuple[str, bool]:
    """(text with every lone surrogate replaced by U+FFFD, whether any was)."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text), True
