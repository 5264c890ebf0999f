"""Server-sent events of a streaming ``/v1/chat/completions`` reply: ``data: {json}`` lines up to
``data: [DONE]``.

>>> list(events(iter(['data: {"a": 1}', '', ': ping', 'data: [DONE]', 'data: {"late": 1}'])))
[{'a': 1}]
"""

from __future__ import annotations

import json
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
        if isinstance(payload, dict) and "error" in payload and not payload.get("choices"):
            err = payload["error"]
            raise ServerSaid(err.get("message", str(err)) if isinstance(err, dict) else str(err))
        yield payload


class ServerSaid(RuntimeError):
    """An ``{"error": ...}`` event in the stream (vLLM and llama-server report mid-stream errors so)."""
