"""Which import format a file is in, and its sessions, one at a time: the one entry point of
``nanobot import``'s parsing (the formats themselves live in their modules).

A file whose first character is ``[`` is a JSON list, streamed item by item (``jsonstream``): its first
item says what the list holds -- ChatGPT conversations (``mapping``), Claude conversations
(``chat_messages``), OpenAI-style conversations (``messages``) or one conversation's messages
(``role``). Anything else starting with ``{`` is one JSON conversation or JSONL, and the rest is the
text format; those are read whole (``jsonformats``, ``formats``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from nanobot.base.regular import open_regular
from nanobot.importing.chatgpt import Skipped, chatgpt_session, is_chatgpt
from nanobot.importing.claude import claude_session, is_claude
from nanobot.importing.formats import ImportedSession, ImportFormatError, parse_text
from nanobot.importing.jsonformats import conversation, message, next_ts, parse_json, parse_jsonl
from nanobot.importing.jsonstream import Counted, items

__all__ = ["Skipped", "parse_file", "read_sessions"]
KINDS = "a ChatGPT export's conversations ('mapping'), a Claude export's ('chat_messages'), " \
        "OpenAI-style conversations ('messages') or messages ('role')"
# keys that say which export a conversation lacking its messages' field came from
LOOKS = (("ChatGPT export", ("current_node", "conversation_id", "create_time"), "mapping"),
         ("Claude export", ("uuid", "created_at", "account"), "chat_messages"))


def parse_file(path: Path) -> list[ImportedSession]:
    """Every session in ``path``; raises ImportFormatError at the first problem."""
    return list(read_sessions(path))


def read_sessions(path: Path, skipped: Skipped | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Iterator[ImportedSession]:
    """The sessions of ``path`` as they are read (memory holds one); ``skipped`` counts what was left out
    on purpose, ``progress(bytes read, file size)`` follows the read. ImportFormatError at any problem,
    also when the file holds no message at all (after the last session)."""
    try:
        f = os.fdopen(open_regular(path), "rb")  # a FIFO or device: a one-line error, never a hang
    except OSError as e:
        raise ImportFormatError(f"cannot read {path}: {e.strerror}") from None
    with f:
        size = os.fstat(f.fileno()).st_size
        fallback = datetime.fromtimestamp(os.fstat(f.fileno()).st_mtime).astimezone()
        head = f.read(4096).removeprefix(b"\xef\xbb\xbf").lstrip()
        f.seek(0)
        report = None if progress is None else (lambda done: progress(done, size))
        if head[:1] == b"[" and path.suffix.lower() != ".jsonl":
            sessions = _json_list(Counted(f, report), str(path), fallback, skipped or Skipped())
        else:
            sessions = iter(_whole(f.read(), path, fallback))
        found = False
        for s in sessions:
            if s.messages:
                found = True
                yield s
    if not found:
        raise ImportFormatError(f"{path}: no user or assistant messages found; see `nanobot import --help` "
                                "for the formats")


def _json_list(f: Counted, name: str, fallback: datetime, skipped: Skipped) -> Iterator[ImportedSession]:
    kind = ""
    messages = ImportedSession(started=fallback, messages=[])  # a list of messages is one session
    for n, item in items(f, name):
        kind = kind or _kind(item, f"{name}: item {n}")
        where = f"{name}: conversation {n}"
        if kind == "chatgpt" and is_chatgpt(item):
            yield chatgpt_session(item, where, fallback, skipped)
        elif kind == "claude" and is_claude(item):
            yield claude_session(item, where, fallback)
        elif kind == "openai" and isinstance(item, dict) and "messages" in item:
            yield conversation(item, where, fallback)
        elif kind == "message":
            if (m := message(item, f"{name}: message {n}", next_ts(messages, fallback))) is not None:
                messages.messages.append(m)
        else:
            raise ImportFormatError(f"{name}: item {n} is not like item 1 ({kind}); "
                                    "use one kind of item per file")
    if messages.messages:
        messages.started = min(fallback, messages.messages[0].ts)
        yield messages


def _kind(item: Any, where: str) -> str:
    if is_chatgpt(item):
        return "chatgpt"
    if is_claude(item):
        return "claude"
    if isinstance(item, dict) and "messages" in item:
        return "openai"
    if isinstance(item, dict) and "role" in item:
        return "message"
    keys = ", ".join(str(k)[:20] for k in list(item)[:6]) if isinstance(item, dict) else type(item).__name__
    for fmt, marks, need in LOOKS:
        if isinstance(item, dict) and any(k in item for k in marks):
            raise ImportFormatError(f"{where}: a {fmt}'s conversation needs '{need}', and this one "
                                    f"has none (it has {keys}); export it again or fix the file")
    raise ImportFormatError(f"{where} ({keys}) is none of {KINDS}; see `nanobot import --help`")


def _whole(raw: bytes, path: Path, fallback: datetime) -> list[ImportedSession]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ImportFormatError(f"{path}:{line}: not UTF-8; save the file as UTF-8") from None
    first = text.lstrip()[:1]
    if path.suffix.lower() == ".jsonl" or (first == "{" and "\n{" in text.strip()):
        return parse_jsonl(text, str(path), fallback)
    if first in "[{":
        return parse_json(text, str(path), fallback)
    return parse_text(text, str(path), fallback)
