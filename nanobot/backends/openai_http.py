"""A model behind an OpenAI-compatible server (llama-server, llama-cpp-python, vLLM, Ollama), driven
through the same ``ChatModel`` contract as the in-process llama.cpp backend.

Selected by ``base_url`` under ``[models.NAME]`` (see models/README.md). What the server can do is
probed once per session (``detect``; ``nanobot.backends.wire``): grammars travel as GBNF, vLLM
structured outputs or a ``response_format`` JSON schema; a server that can constrain nothing gets the
text unconstrained and the tool runner parses, validates and retries (``RemoteModelFeature`` says so
once). Every failure is a one-line ``ServerError``; a reply cut off mid-stream leaves its text in
``last.text`` with ``finish_reason = "interrupted"`` so the agent keeps it as a partial reply.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator

import httpx

from nanobot.backends import sse
from nanobot.backends.base import Abilities, Generation, Message
from nanobot.backends.literal import wire_messages
from nanobot.backends.servertok import ServerTokenizer
from nanobot.backends.wire import (
    DECISION_KEY,
    Capabilities,
    chat_body,
    count,
    describe_transport,
    probe,
    roots,
)
from nanobot.base.errors import ModelError, ServerError
from nanobot.base.redact import redact
from nanobot.models import ResolvedModel


class OpenAIHTTPBackend:
    def __init__(self, model: ResolvedModel, client: httpx.Client | None = None):
        ms = model.settings
        self.resolved, self.name, self.settings = model, model.name, ms
        self.base, self.root = roots(ms)
        self.served = ms.served_model or model.name
        headers = {}
        if ms.api_key_env:
            key = os.environ.get(ms.api_key_env)
            if not key:
                raise ModelError(f"model '{model.name}' reads its API key from ${ms.api_key_env}, which is not set; export it")
            headers["Authorization"] = f"Bearer {key}"
        timeout = httpx.Timeout(connect=ms.connect_timeout, read=ms.read_timeout, write=ms.read_timeout,
                                pool=ms.connect_timeout)
        self.client = client or httpx.Client(timeout=timeout, headers=headers)
        self.last = Generation()
        self._caps: Capabilities | None = None
        self._tok: ServerTokenizer | None = None

    # -- what the server can do (once per session) ------------------------------------------
    def detect(self) -> Capabilities:
        """Probe the server again (a session start); later calls reuse the answer."""
        self._caps = probe(self.client, self.settings)
        self._tok = ServerTokenizer(self.client, self.root, self.served, self._caps)
        return self._caps

    @property
    def caps(self) -> Capabilities:
        if self._caps is None or self._caps.flavor == "unreachable":
            self.detect()
        return self._caps

    @property
    def tokenizer(self) -> ServerTokenizer:
        if self._tok is None or self._caps is None or self._caps.flavor == "unreachable":
            self.detect()
        return self._tok

    @property
    def n_ctx(self) -> int:
        return self.caps.n_ctx or self.settings.n_ctx

    @property
    def token_counting(self) -> str:
        return self.caps.token_counting

    @property
    def abilities(self) -> Abilities:
        """Token counting as the last probe found it (``detect``: each session start); no probe here."""
        caps = self._caps
        known = caps is not None and caps.flavor != "unreachable"
        return Abilities(sampling=True, server=True, exact_tokens=bool(known and caps.tokenize),
                         token_counting=caps.token_counting if known else "unknown until the server answers")

    def _fail(self, what: str) -> ServerError:
        return ServerError(redact(f"model server '{self.name}' at {self.base} {what}"))  # no secret shown or kept

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except httpx.HTTPStatusError as e:
            raise self._fail(f"answered HTTP {e.response.status_code} to {e.request.url.path}: "
                             f"{_reason(e.response)}; check the server and served_model") from None
        except httpx.HTTPError as e:
            raise self._fail(f"is not answering ({describe_transport(e)}); start it or fix base_url in config.toml") from None
        except (ValueError, KeyError) as e:
            raise self._fail(f"sent an unexpected tokenizer answer ({e}); set structured/tokenizer off or check the server") from None

    # -- the ChatModel contract --------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return self._guard(self.tokenizer.count, text)

    def render(self, messages: list[Message], add_generation_prompt: bool = True) -> str:
        return self._guard(self.tokenizer.render, wire_messages(messages), add_generation_prompt)

    def prompt_tokens(self, messages: list[Message], prefill: str = "") -> int:
        return self._guard(self.tokenizer.prompt, wire_messages(messages), prefill)

    def stream(self, messages: list[Message], *, max_tokens: int = 512, temperature: float = 0.3,
               grammar: str | None = None, prefill: str = "", stop: list[str] | None = None,
               top_p: float | None = None, repeat_penalty: float | None = None,
               dry: object = None) -> Iterator[str]:
        # ``dry``: llama.cpp's in-process DRY sampler; a server samples with its own settings (the
        # stream-level loop guard still applies)
        body, wrapped = chat_body(self.caps, self.served, wire_messages(messages),
                                  max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                                  repeat_penalty=repeat_penalty, grammar=grammar, prefill=prefill, stop=stop)
        gen = Generation(reuse_known=False)
        self.last = gen
        start = time.perf_counter()
        usage: dict = {}
        pieces = self._pieces(body, gen, usage, start)
        try:
            if wrapped:  # a json_schema server's decision: {"step": "Tool: NAME"} -> the text itself
                raw = "".join(pieces)
                gen.text = _unwrap(raw)
                if gen.text:
                    yield gen.text
            else:
                for piece in pieces:
                    gen.text += piece
                    yield piece
        except GeneratorExit:
            gen.finish_reason = "interrupted"
            pieces.close()  # closes the HTTP response: the server stops generating
            raise
        finally:
            gen.total_s = time.perf_counter() - start
            if not gen.ttft_s:
                gen.ttft_s = gen.total_s
        self._figures(gen, usage, messages, prefill)

    # -- streaming ---------------------------------------------------------------------------
    def _pieces(self, body: dict, gen: Generation, usage: dict, start: float) -> Iterator[str]:
        finished, chars, cap = False, 0, int(body.get("max_tokens") or 0)
        try:
            with self.client.stream("POST", f"{self.base}/chat/completions", json=body) as resp:
                if resp.status_code >= 400:
                    resp.read()
                    raise self._fail(f"answered HTTP {resp.status_code}: {_reason(resp)}; check the server log, served_model and the request limits")
                progress = [time.monotonic()]  # time out on progress, not on bytes
                lines = sse.watched(resp.iter_text(), progress, self.settings.read_timeout)
                for event in sse.events(lines):
                    usage.update({k: event[k] for k in ("usage", "timings") if event.get(k)})
                    for choice in _dicts(event.get("choices")):
                        delta = choice.get("delta")
                        piece = delta.get("content") if isinstance(delta, dict) else ""
                        piece = piece if isinstance(piece, str) else ""
                        if piece or choice.get("finish_reason"):
                            progress[0] = time.monotonic()
                        if piece:
                            if not gen.completion_tokens:
                                gen.ttft_s = time.perf_counter() - start
                            gen.completion_tokens += 1
                            chars += len(piece)
                            if over_cap(gen.completion_tokens, chars, cap):
                                raise self._fail(f"kept streaming past max_tokens={cap} ({gen.completion_tokens} "
                                                 f"pieces, {chars} characters): cut there; the partial reply is kept")
                            yield piece
                        if choice.get("finish_reason"):
                            gen.finish_reason = "length" if choice["finish_reason"] == "length" else "stop"
                            finished = True
                if not finished:
                    raise sse.Unfinished("stream ended without a finish")
        except ServerError:
            gen.finish_reason = "interrupted"
            raise
        except sse.NotJSON as e:
            gen.finish_reason = "interrupted"
            raise self._fail(f"sent something that is not OpenAI-style JSON ({str(e)[:60]!r}); is base_url the server's /v1 endpoint?") from None
        except sse.ServerSaid as e:
            gen.finish_reason = "interrupted"
            raise self._fail(f"reported an error mid-reply: {str(e)[:160]}") from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            gen.finish_reason = "interrupted"
            raise self._fail(f"is not answering ({describe_transport(e)}); start it or fix base_url in config.toml") from None
        except sse.Stalled:
            gen.finish_reason = "interrupted"
            raise self._fail(f"sent no text for {self.settings.read_timeout:g} s (only keep-alives or empty "
                             f"deltas; read_timeout) after {gen.completion_tokens} tokens; the partial reply "
                             "is kept; check the server or raise read_timeout") from None
        except httpx.ReadTimeout:
            gen.finish_reason = "interrupted"
            raise self._fail(f"sent nothing for {self.settings.read_timeout:g} s (read_timeout) after {gen.completion_tokens} tokens; "
                             "the partial reply is kept; raise read_timeout or check the server") from None
        except (httpx.HTTPError, sse.Unfinished) as e:
            gen.finish_reason = "interrupted"
            raise self._fail(f"closed the connection mid-reply after {gen.completion_tokens} tokens "
                             f"({type(e).__name__}); the partial reply is kept") from None

    def _figures(self, gen: Generation, usage: dict, messages: list[Message], prefill: str) -> None:
        """Prompt / cached / evaluated tokens from what the server reported (usage, llama.cpp
        timings), else counted here with nothing known about reuse."""
        u, t = usage.get("usage"), usage.get("timings")
        u, t = u if isinstance(u, dict) else {}, t if isinstance(t, dict) else {}  # a malformed field: unknown
        if count(u.get("completion_tokens")):
            gen.completion_tokens = count(u["completion_tokens"])
        details = u.get("prompt_tokens_details")
        cached = count(details.get("cached_tokens")) if isinstance(details, dict) else None
        if count(t.get("cache_n")) is not None:
            cached = count(t["cache_n"])
            gen.prompt_tokens = (count(t.get("prompt_n")) or 0) + cached
        elif count(u.get("prompt_tokens")):
            gen.prompt_tokens = count(u["prompt_tokens"])
        else:
            try:
                gen.prompt_tokens = self.prompt_tokens(messages, prefill)
            except ServerError:
                gen.prompt_tokens = 0
        if cached is not None:
            gen.reuse_known = True
            gen.reused_tokens = cached
        gen.evaluated_tokens = max(0, gen.prompt_tokens - gen.reused_tokens)


def over_cap(pieces: int, chars: int, cap: int) -> bool:
    """Whether a stream asked for ``cap`` tokens has clearly gone past it: more deltas than tokens
    (each delta holds at least one token on llama-server, vLLM and Ollama) or more characters than
    any ``cap`` tokens spell; a server that ignores ``max_tokens`` is cut here, not never.

    >>> over_cap(512, 2000, 512), over_cap(529, 2000, 512), over_cap(10, 40_000, 512)
    (False, True, True)
    """
    return bool(cap) and (pieces > cap + 16 or chars > 64 * cap + 4096)


def _dicts(value) -> list[dict]:
    """The objects of a JSON list, each malformed item an empty object (a server's odd field is ignored)."""
    return [v if isinstance(v, dict) else {} for v in value] if isinstance(value, list) else []


def _unwrap(raw: str) -> str:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return str(value.get(DECISION_KEY, "")) if isinstance(value, dict) else str(value)


def _reason(resp: httpx.Response) -> str:
    """The server's own words, one line: ``error.message``, ``detail``, or the body's first line."""
    try:
        data = resp.json()
        err = data.get("error", data.get("detail", data)) if isinstance(data, dict) else data
        text = err.get("message", json.dumps(err)) if isinstance(err, dict) else str(err)
    except ValueError:
        text = resp.text.strip() or resp.reason_phrase
    return " ".join(text.split())[:200] or resp.reason_phrase
