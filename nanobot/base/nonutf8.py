"""Input that is not UTF-8 (the one decoding policy): bytes that are not UTF-8 are replaced by U+FFFD
and reported once, never a crash and never a dropped message.

Input is read with ``errors="surrogateescape"`` (piped stdin; ``sys.argv`` already is), so a bad byte
arrives as a lone surrogate; ``scrub`` turns those into U+FFFD (also for anything else that cannot be
written as UTF-8) and says whether it did::

    >>> scrub("caf\\udce9")
    ('caf\\ufffd', True)

A file that is read whole (config.toml, SOUL.md, USER.md, MEMORY.md) is reported by where its first
bad byte is, so the user can find it in an editor (``where_not_utf8``)::

    >>> where_not_utf8(b"# notes\\n- caf\\xe9 au lait\\n")
    'line 2, column 6: byte 0xe9'
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


def where_not_utf8(raw: bytes) -> str:
    """'' when ``raw`` is UTF-8, else where its first byte that is not: its line, its column (in
    characters, from 1) and the byte. A multi-byte character cut at the end is reported too."""
    try:
        raw.decode("utf-8")
        return ""
    except UnicodeDecodeError as e:
        start = raw.rfind(b"\n", 0, e.start) + 1
        line, column = raw.count(b"\n", 0, e.start) + 1, len(raw[start:e.start].decode("utf-8", errors="replace")) + 1
        return f"line {line}, column {column}: byte 0x{raw[e.start]:02x}"
