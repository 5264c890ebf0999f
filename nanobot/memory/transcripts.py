"""Past conversations as a memory source: a session transcript -> chunks.

Each user message and each assistant reply of ``sessions/<id>.jsonl`` becomes one chunk (long ones
split at sentence ends), under the session day as its heading and said by its speaker (the
``speaker`` an import or ``--as`` recorded, else "User" / "Assistant"). Replies carry
``ASSISTANT_WEIGHT``: what the user said ranks above what the assistant answered. Tool output,
events, the session header and a reply nanobot had to correct are not indexed. A chunk's ``line`` is its record's line in the
file, so a hit names ``sessions/<id>.jsonl:LINE``.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
>>> _ = p.write_text("\\n".join(json.dumps(r) for r in [
...     {"ts": "2026-03-01T10:00:00", "role": "session"},
...     {"ts": "2026-03-01T10:00:05", "role": "user", "content": "The flat in Porto has two rooms"},
...     {"ts": "2026-03-01T10:00:09", "role": "assistant", "content": "Noted."}]))
>>> [(c.embed_text, c.line, c.weight) for c in transcript_chunks(p)]
[('1 March 2026: User: The flat in Porto has two rooms', 2, 1.0), ('1 March 2026: Assistant: Noted.', 3, 0.8)]
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from nanobot.base.regular import read_regular
from nanobot.core.transcript import Record
from nanobot.memory.chunker import Chunk, split_long

PREFIX = "sessions/"  # a transcript's source name in the index: sessions/<id>.jsonl
ASSISTANT_WEIGHT = 0.8
# a reply the reply checks corrected (``loop/replycheck.py``): known wrong, kept out of the index as out of the
# model's history, so a retrieved block never offers it as an answer
CORRECTED = "\n\n(nanobot: "
ROLES = {"user": "User", "assistant": "Assistant"}


def is_transcript(source: str) -> bool:
    return source.replace("\\", "/").startswith(PREFIX)


def source_name(session_id: str) -> str:
    return f"{PREFIX}{session_id}.jsonl"


def day(rec: Record) -> str:
    return f"{rec.ts.day} {rec.ts:%B %Y}"


def transcript_chunks(path: Path, raw: bytes | None = None) -> list[Chunk]:
    """The chunks of one transcript; torn or corrupt lines are skipped (the session module
    reports them). NUL bytes split a line: a power cut leaves a run of them after the last whole
    record (a cut one before them, perhaps), and a record appended after them is whole."""
    raw = read_regular(path) if raw is None else raw
    out: list[Chunk] = []
    for i, line in enumerate(raw.split(b"\n"), start=1):
        for piece in line.split(b"\x00") if b"\x00" in line else (line,):
            if piece.strip():
                out += _record_chunks(piece, i)
    return out


def _record_chunks(line: bytes, i: int) -> list[Chunk]:
    try:
        rec = Record.model_validate(json.loads(line.decode("utf-8", errors="replace")))
    except (json.JSONDecodeError, ValidationError, ValueError):
        return []
    if rec.role not in ROLES or not rec.content.strip() or (
            rec.role == "assistant" and (CORRECTED in rec.content or rec.meta.get("shown"))):  # (loop/spelled.py)
        return []
    speaker = str(rec.meta.get("speaker") or ROLES[rec.role])
    body = f"{speaker}: {' '.join(rec.content.split())}"
    weight = ASSISTANT_WEIGHT if rec.role == "assistant" else 1.0
    out = split_long(body, day(rec), i)
    for c in out:
        c.weight = weight
    return out
