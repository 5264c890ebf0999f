"""Which import format a file is in, and its sessions: JSONL, JSON (``importjson``) or text (``importfmt``).

The one entry point of ``nanobot import``'s parsing; the formats themselves live in their modules.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.importing.formats import ImportedSession, ImportFormatError, parse_text
from nanobot.importing.jsonformats import parse_json, parse_jsonl


def parse_file(path: Path) -> list[ImportedSession]:
    """Every session in ``path``; raises ImportFormatError at the first problem."""
    try:
        raw = read_regular(path)  # a FIFO or device: a one-line error, never a hang
    except OSError as e:
        raise ImportFormatError(f"cannot read {path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ImportFormatError(f"{path}:{line}: not UTF-8; save the file as UTF-8") from None
    fallback = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
    first = text.lstrip()[:1]
    if path.suffix.lower() == ".jsonl" or (first == "{" and "\n{" in text.strip()):
        sessions = parse_jsonl(text, str(path), fallback)
    elif first in "[{":
        sessions = parse_json(text, str(path), fallback)
    else:
        sessions = parse_text(text, str(path), fallback)
    sessions = [s for s in sessions if s.messages]
    if not sessions:
        raise ImportFormatError(f"{path}: no user or assistant messages found; see `nanobot import --help` "
                                "for the formats")
    return sessions
