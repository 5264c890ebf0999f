"""Server-sent events of a streaming ``/v1/chat/completions`` reply: ``data: {json}`` lines up to
``data: [DONE]``.

>>> list(events(iter(['data: {"a": 1}', '', ': ping', 'data: [DONE]', 'data: {"late": 1}'])))
[{'a': 1}]
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator


class NotJSON(ValueError):
    """A data line that is not JSON (the server is not speaking the OpenAI streaming format)."""


class Unfinished(ConnectionError):
    """The stream ended before ``[DONE]`` and before any finish_reason: the server went away."""


def events(lines: Iterable[str]) -> Iterator[dict]:
    """Yield each ``data:`` payload as a dict; stop at ``[DONE]``.

    Raises ``NotJSON`` for a payload that does not parse; comments (``: ping``), ``event:``/``id:``
    fields and blank lines are skipped.
    """
    for line in lines:
        if not line.startswith("data:"):
            if line and not line.startswith((":", "event:", "id:", "retry:")):
                raise NotJSON(line[:80])
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            payload = json.loads(data)
        except json.JSONDecodeError:
            raise NotJSON(data[:80]) from None
        if not isinstance(payload, dict):
            raise NotJSON(data[:80])
        if "error" in payload and not payload.get("choices"):
            err = payload["error"]
            raise ServerSaid(err.get("message", str(err)) if isinstance(err, dict) else str(err))
        yield payload


class Stalled(TimeoutError):
    """Bytes kept coming (keep-alive comments, empty deltas) but no text and no finish."""


MAX_LINE = 8 << 20  # characters: an SSE line longer than this is not a reply


def watched(chunks: Iterable[str], progress: list[float], timeout: float,
            clock=time.monotonic) -> Iterator[str]:
    """The lines of a text stream given in ``chunks``, raising ``Stalled`` once ``timeout`` seconds
    pass without progress (the caller sets ``progress[0] = clock()`` when text or a finish
    arrives). The check runs on every chunk, not every line: the read timeout of a socket counts
    bytes, so a server that sends only ``: ping`` forever, or one endless line, would otherwise
    never time out.

    >>> list(watched(iter(["a\\nb", "\\n"]), [0.0], 10, clock=iter([1, 2]).__next__))
    ['a', 'b']
    >>> list(watched(iter([": ping\\n"] * 2), [0.0], 10, clock=iter([1, 11]).__next__))
    Traceback (most recent call last):
    nanobot.backends.sse.Stalled: no progress for 10 s
    """
    parts: list[str] = []  # the unfinished line (joined only when it ends: linear)
    size = 0
    for chunk in chunks:
        if clock() - progress[0] > timeout:
            raise Stalled(f"no progress for {timeout:g} s")
        if "\n" in chunk or "\r" in chunk:
            text = "".join(parts) + chunk
            *lines, rest = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            yield from lines
            parts, size = [rest], len(rest)
        else:
            parts.append(chunk)
            size += len(chunk)
        if size > MAX_LINE:
            raise NotJSON(f"an event line longer than {MAX_LINE} characters")
    if rest := "".join(parts):
        yield rest


class ServerSaid(RuntimeError):
    """An ``{"error": ...}`` event in the stream (vLLM and llama-server report mid-stream errors so)."""
