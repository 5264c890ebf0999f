"""The door of ``nanobot serve``: an ASGI layer in front of llama-cpp-python's app that turns a hostile
or careless request into one clear answer before it reaches the model.

In order: a server with a key answers 401 to a request without ``Authorization: Bearer <key>``
(compared in constant time); a POST beyond the one being answered and ``queue`` waiting gets 429 with
``Retry-After`` (the model answers one request at a time, the rest wait their turn: a second client
never cuts the first one's stream); a body over ``max_body`` gets 413 (at once when Content-Length
says so, else after reading no more than the cap), so memory stays bounded; a body that is not a JSON
object, a parameter of the wrong type or range, or one the served model cannot take (a grammar
llama.cpp cannot parse, which would crash the server; a token id it does not have) gets 400 with one
line. A request that names no model is given the served name, so no reply carries the GGUF's path. The reply side
(``backends/servereply.py``) keeps errors to one line and ends every stream with a finish_reason.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable

from pydantic import BaseModel, ValidationError

from nanobot.backends.servereply import error_body, replying

MAX_BODY = 8 << 20  # bytes: ~2M tokens of text, beyond every context nanobot serves
QUEUE = 4  # requests that may wait while one is answered
RETRY_AFTER_S = 5


class Guard:
    def __init__(self, app, key: str | None = None, max_body: int = MAX_BODY, queue: int = QUEUE,
                 alias: str = "", fits: Callable[[BaseModel], str | None] | None = None):
        self.app, self.key, self.max_body, self.queue = app, key, max_body, queue
        self.alias, self.fits = alias, fits
        self.busy = 0  # POSTs admitted and not yet answered (one event loop: no lock needed)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.key and scope["method"] != "OPTIONS" and not self._authorized(scope):
            return await error_body(send, 401, "missing or wrong API key: send the header "
                                    "'Authorization: Bearer <key>' with the key the server was started with",
                                    [(b"www-authenticate", b"Bearer")])
        if scope["method"] != "POST":
            return await self.app(scope, receive, send)
        if self.busy > self.queue:
            return await error_body(send, 429, f"the model is busy (1 request answered, {self.queue} waiting); "
                                    f"retry in {RETRY_AFTER_S} s", [(b"retry-after", str(RETRY_AFTER_S).encode())])
        self.busy += 1
        try:
            body, problem = await self._read(scope, receive)
            if problem:
                return await error_body(send, *problem)
            if body is None:  # the client went away
                return
            if problem := check_body(scope["path"], body, self.fits):
                return await error_body(send, 400, problem)
            if self.alias and scope["path"] in REQUESTS:
                body = _named(body, self.alias)
            await replying(self.app, scope, _replay(body, receive), send)
        finally:
            self.busy -= 1

    def _authorized(self, scope) -> bool:
        given = dict(scope["headers"]).get(b"authorization", b"")
        scheme, _, token = given.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self.key.encode())

    async def _read(self, scope, receive) -> tuple[bytes | None, tuple | None]:
        """The body, read only up to ``max_body``; or the (status, message) that refuses it."""
        too_big = (413, f"request body over {self.max_body:,} bytes; send a smaller request")
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                return None, (400, "Content-Length is not a number")
            if int(length) > self.max_body:
                return None, too_big  # refused before a byte of it is read
        parts, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None, None
            parts.append(message.get("body", b""))
            size += len(parts[-1])
            if size > self.max_body:
                return None, too_big
            if not message.get("more_body"):
                return b"".join(parts), None


def _replay(body: bytes, receive):
    """A ``receive`` that gives the app the body already read, then waits on the client (disconnects)."""
    sent = False

    async def again():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return again


def _named(body: bytes, alias: str) -> bytes:
    data = json.loads(body)
    if isinstance(data.get("model"), str) and data["model"]:
        return body
    return json.dumps(data | {"model": alias}).encode()


def check_body(path: str, body: bytes, fits: Callable[[BaseModel], str | None] | None = None) -> str | None:
    """Why a request body is refused (one line), or None: not JSON, not an object, a parameter of the
    wrong type or range for llama-cpp-python's request model of ``path``, or what ``fits`` (the served
    model's own checks) says of the request.

    >>> check_body("/v1/chat/completions", b'{"messages": [], "max_tokens": -1}')
    'bad parameter max_tokens: must be at least 1 (or null: up to the context size)'
    """
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        where = f" at line {e.lineno} column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        return f"request body is not valid JSON{where}; send a JSON object"
    if not isinstance(data, dict):
        return f"request body is a JSON {type(data).__name__}, not an object; send a JSON object"
    model = _request_models().get(path)
    if model is None:
        return None
    try:
        request = model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "body"
        return f"bad parameter {where}: {err['msg']}"[:300]
    tokens = getattr(request, "max_tokens", None)
    if tokens is not None and tokens < 1:
        return "bad parameter max_tokens: must be at least 1 (or null: up to the context size)"
    return fits(request) if fits is not None else None


REQUESTS = ("/v1/chat/completions", "/v1/completions", "/v1/engines/copilot-codex/completions", "/v1/embeddings")


def _request_models() -> dict[str, type[BaseModel]]:
    """llama-cpp-python's pydantic model of each request body it reads, by path."""
    from llama_cpp.server import types

    return {"/v1/chat/completions": types.CreateChatCompletionRequest,
            "/v1/completions": types.CreateCompletionRequest,
            "/v1/engines/copilot-codex/completions": types.CreateCompletionRequest,
            "/v1/embeddings": types.CreateEmbeddingRequest,
            "/extras/tokenize": types.TokenizeInputRequest,
            "/extras/tokenize/count": types.TokenizeInputRequest,
            "/extras/detokenize": types.DetokenizeInputRequest}
