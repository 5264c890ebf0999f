"""What ``nanobot serve`` sends back when something goes wrong: one line, and a stream that ends with a
finish_reason.

An error answer (status 400 and up, not a stream) is rewritten to ``{"error": {"message": ...}}`` with
one line and no file paths: llama-cpp-python answers some bad requests with a 500 carrying the raw
exception text, and FastAPI with a 422 listing every field. A stream (``text/event-stream``) that
would end without a finish_reason (the model failed mid-reply, the server is shutting down, a
``[DONE]`` before any finish) ends with an ``error`` event, a chunk whose ``finish_reason`` is
``"error"`` and ``[DONE]``, so no client takes a cut reply for a whole one. The request side is
``backends/serveguard.py``.
"""

from __future__ import annotations

import json
import logging
import re

FINISH = re.compile(rb'"finish_reason":\s*"')
DONE = b"data: [DONE]"
_PATH = re.compile(r"(?<![\w:/.])(?:/[\w.+~@-]+){2,}/?")
_TYPES = {401: "authentication_error", 413: "invalid_request_error", 429: "rate_limit_error"}


def one_line(text: str) -> str:
    """An error's text shown to a client: its first line, file paths hidden, at most 300 characters.

    >>> one_line("Model path does not exist: /home/me/models/x.gguf\\nTraceback (most recent call last):")
    'Model path does not exist: <path>'
    """
    lines = str(text).strip().splitlines() or ["error"]
    return _PATH.sub("<path>", lines[0])[:300]


async def error_body(send, status: int, message: str, headers: list | tuple = ()) -> None:
    """Answer ``status`` with an OpenAI-style error object carrying ``message`` (one line)."""
    kind = _TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    body = json.dumps({"error": {"message": one_line(message), "type": kind, "code": status}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


async def replying(app, scope, receive, send) -> None:
    """Run ``app`` for one request with its errors kept to one line and its stream ended properly."""
    reply = _Reply(send, scope["path"])
    try:
        await app(scope, receive, reply.send)
    except Exception:  # the model or the app failed: logged in full here, one line to the client
        logging.getLogger("uvicorn.error").exception("request to %s failed", scope["path"])
        await reply.close("the server failed answering this request; see the server's log")
        return
    await reply.close("the reply stopped before its end (the server stopped or the model failed)")


class _Reply:
    def __init__(self, send, path: str):
        self._send, self.path = send, path
        self.mode = ""  # "" (nothing sent), "error" (held back), "stream", "plain"
        self.start: dict = {}
        self.held: list[bytes] = []
        self.finished = self.closed = False
        self.tail = b""

    async def send(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            ctype = dict(message.get("headers") or []).get(b"content-type", b"")
            stream = ctype.startswith(b"text/event-stream")
            self.mode = "stream" if stream else "error" if message["status"] >= 400 else "plain"
            self.start = message
            if self.mode != "error":
                await self._send(message)
            return
        more = message.get("more_body", False)
        data = message.get("body", b"")
        if self.mode == "error":
            self.held.append(data[: 65536])
            if not more:
                await self._rewrite()
            return
        if self.mode == "stream" and not self.finished:
            if FINISH.search(self.tail + data):
                self.finished = True
            elif DONE in data:  # a [DONE] before any finish: the ending goes in front of it
                data = data.replace(DONE, self._ending("the reply was cut before its end", done=False) + DONE, 1)
                self.finished = True
            elif not more:
                data += self._ending("the reply stopped before its end")
                self.finished = True
            self.tail = (self.tail + data)[-64:]
        self.closed = not more
        await self._send({**message, "body": data})

    async def close(self, why: str) -> None:
        """The app returned or failed: say ``why`` where nothing was answered or a stream is open."""
        if self.mode in ("", "error") and not self.closed:
            self.closed = True
            await error_body(self._send, 500 if self.mode == "" else self.start["status"],
                             why if self.mode == "" else self._message())
        elif self.mode == "stream" and not self.closed:
            self.closed = True
            body = b"" if self.finished else self._ending(why)
            await self._send({"type": "http.response.body", "body": body, "more_body": False})

    async def _rewrite(self) -> None:
        self.closed = True
        status = self.start["status"]
        await error_body(self._send, 400 if status == 422 else status, self._message())

    def _message(self) -> str:
        raw = b"".join(self.held).decode("utf-8", "replace")
        try:
            data = json.loads(raw)
        except ValueError:
            return raw or f"HTTP {self.start.get('status')}"
        err = data.get("error", data.get("detail", data)) if isinstance(data, dict) else data
        if isinstance(err, list) and err and isinstance(err[0], dict):  # FastAPI's 422: the first field
            where = ".".join(str(p) for p in err[0].get("loc", ()) if p != "body")
            return f"bad parameter {where}: {err[0].get('msg', '')}"
        return str(err.get("message", err)) if isinstance(err, dict) else str(err)

    def _ending(self, why: str, done: bool = True) -> bytes:
        error = {"error": {"message": one_line(why), "type": "server_error"}}
        chat = self.path.endswith("/chat/completions")
        choice = {"index": 0, "finish_reason": "error", **({"delta": {}} if chat else {"text": ""})}
        last = {"object": "chat.completion.chunk" if chat else "text_completion", "choices": [choice]}
        out = f"data: {json.dumps(error)}\n\ndata: {json.dumps(last)}\n\n".encode()
        return out + (DONE + b"\n\n" if done else b"")
