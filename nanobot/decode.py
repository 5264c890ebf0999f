"""The input decoding policy: bytes that are not UTF-8 are replaced by U+FFFD and reported once,
never a crash and never a dropped message.

``decode_bytes`` is for raw input (piped stdin); ``scrub`` for text that already holds lone surrogates
(``sys.argv`` under ``surrogateescape``, or anything else that cannot be written as UTF-8)::

    >>> decode_bytes(b"caf\\xe9")
    ('caf\\ufffd', True)
    >>> scrub("caf\\udce9")
    ('caf\\ufffd', True)
"""

from __future__ import annotations

NOTICE = "input held bytes that are not UTF-8; they were replaced with \ufffd (U+FFFD)"


def decode_bytes(raw: bytes) -> tuple[str, bool]:
    """(text, whether anything was replaced)."""
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def scrub(text: str) -> tuple[str, bool]:
    """(text with every lone surrogate replaced by U+FFFD, whether any was)."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text), True
