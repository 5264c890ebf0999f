"""The wire to an OpenAI-compatible model server: what it can do (probed once per session) and the
``/v1/chat/completions`` request body nanobot sends it.

Servers differ in what nanobot needs beyond plain chat:

| server | constrain output | count tokens | assistant prefill | prompt cache |
|---|---|---|---|---|
| llama.cpp ``llama-server`` | ``grammar`` (GBNF) | ``/tokenize``, ``/apply-template`` | continued | ``cache_prompt``; ``timings.cache_n`` |
| llama-cpp-python server | ``grammar`` (GBNF) | ``/extras/tokenize/count`` | a closed turn | in-process prefix reuse, not reported |
| vLLM | ``structured_outputs`` (``guided_*`` before 0.10.2) | ``/tokenize`` (messages) | ``continue_final_message`` | automatic prefix caching; ``cached_tokens`` |
| Ollama / other | ``response_format`` json_schema (``structured`` setting) | approximation | continued | server's own |

Detection: GET ``/props`` (llama-server), ``/openapi.json`` naming ``/extras/tokenize`` (llama-cpp-python),
``/version`` (vLLM), ``/api/version`` (Ollama), else a generic server that nanobot cannot constrain unless
``structured = "json_schema"`` says it honours ``response_format``.
"""

from __future__ import annotations

from typing import Literal

import httpx
from pydantic import BaseModel

from nanobot.config import ModelSettings

Structured = Literal["grammar", "vllm", "json_schema", "none"]
DECISION_KEY = "step"  # json_schema servers: the decision travels as {"step": "Tool: NAME"}


class Capabilities(BaseModel):
    flavor: Literal["llama-server", "llama-cpp-python", "vllm", "ollama", "openai", "unreachable"]
    structured: Structured = "none"
    tokenize: str = ""  # path of the tokenizer endpoint ("" = approximation)
    apply_template: bool = False  # llama-server renders its chat template for us
    prefill: Literal["continue", "vllm", "message"] = "continue"
    n_ctx: int | None = None
    version: str = ""
    error: str = ""  # why the probe got no answer

    @property
    def token_counting(self) -> str:
        if self.tokenize:
            return f"server tokenizer ({self.tokenize})"
        return "approximation: 1 token per 4 bytes of UTF-8, +4 per message (the server has no tokenizer endpoint)"


def roots(ms: ModelSettings) -> tuple[str, str]:
    """(the /v1 base for OpenAI routes, the server root for its own routes)."""
    base = (ms.base_url or "").rstrip("/")
    return base, base.removesuffix("/v1")


def _get_json(client: httpx.Client, url: str) -> dict | None:
    """The JSON object a GET answers with; None for anything else (an error, a list, not JSON)."""
    try:
        r = client.get(url)
        data = r.json() if r.status_code == 200 else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def count(value) -> int | None:
    """A server-reported count if it is one (a non-negative integer), else None: a malformed field
    (``"n_ctx": "lots"``, ``-1``, ``true``) is ignored, never trusted or raised on.

    >>> count(4096), count("4096"), count("lots"), count(-1), count(True), count(2.5)
    (4096, 4096, None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        n = int(value)
    except ValueError:
        return None
    return n if 0 <= n < 2**31 else None


def probe(client: httpx.Client, ms: ModelSettings) -> Capabilities:
    """Ask the server what it is (a few GETs); a server that does not answer is ``unreachable``."""
    base, root = roots(ms)
    try:
        props = _get_json(client, f"{root}/props")
        if props and ("default_generation_settings" in props or "chat_template" in props):
            gen = props.get("default_generation_settings")
            gen = gen if isinstance(gen, dict) else {}
            caps = Capabilities(flavor="llama-server", structured="grammar", tokenize="/tokenize",
                                apply_template=True, n_ctx=count(gen.get("n_ctx")) or count(props.get("n_ctx")),
                                version=str(props.get("build_info", "")))
        elif isinstance(paths := (_get_json(client, f"{root}/openapi.json") or {}).get("paths"), dict) \
                and "/extras/tokenize/count" in paths:
            caps = Capabilities(flavor="llama-cpp-python", structured="grammar",
                                tokenize="/extras/tokenize/count", prefill="message")
        elif (v := _get_json(client, f"{root}/version")) and "version" in v:
            caps = Capabilities(flavor="vllm", structured="vllm", tokenize="/tokenize", prefill="vllm",
                                version=str(v["version"]))
            models = _get_json(client, f"{base}/models") or {}
            data = models.get("data")
            lens = [count(m.get("max_model_len")) for m in data if isinstance(m, dict)] if isinstance(data, list) else []
            lens = [n for n in lens if n]
            caps.n_ctx = lens[0] if lens else None
        elif (v := _get_json(client, f"{root}/api/version")) and "version" in v:
            caps = Capabilities(flavor="ollama", structured="json_schema", version=str(v["version"]))
        else:
            client.get(f"{base}/models")  # answers at all?
            caps = Capabilities(flavor="openai")
    except httpx.HTTPError as e:
        return Capabilities(flavor="unreachable", error=describe_transport(e))
    if ms.structured != "auto":
        caps.structured = ms.structured
    return caps


def describe_transport(e: Exception) -> str:
    if isinstance(e, httpx.ConnectError):
        return "connection refused or host unknown"
    if isinstance(e, httpx.TimeoutException):
        return "no answer in time (timeout)"
    return f"{type(e).__name__}: {e}".splitlines()[0][:160]


def probe_line(ms: ModelSettings, timeout: float) -> tuple[bool, str]:
    """(answers, one line) for ``nanobot models``: what the server is, or why it is not answering."""
    with httpx.Client(timeout=timeout) as client:
        caps = probe(client, ms)
    if caps.flavor == "unreachable":
        return False, f"not answering: {caps.error}"
    return True, f"{caps.flavor} · structured output: {caps.structured} · tokens: {caps.token_counting.split(' (')[0]}"


def _vllm_new(version: str) -> bool:
    try:
        parts = tuple(int(p) for p in version.split("+")[0].split(".")[:3])
    except ValueError:
        return True
    return parts >= (0, 10, 2)


def constraint(caps: Capabilities, grammar: str | None) -> tuple[dict, bool]:
    """Request fields that constrain the reply to ``grammar``, and whether the reply comes wrapped as
    ``{"step": ...}`` (a json_schema server's decision). ``({}, False)`` when nothing can constrain it."""
    if not grammar:
        return {}, False
    schema, choices = getattr(grammar, "json_schema", None), getattr(grammar, "choices", None)
    if caps.structured == "grammar":
        return {"grammar": str(grammar)}, False
    if caps.structured == "vllm":
        new = _vllm_new(caps.version)
        if choices:
            return ({"structured_outputs": {"choice": choices}} if new else {"guided_choice": choices}), False
        if schema:
            return ({"structured_outputs": {"json": schema}} if new else {"guided_json": schema}), False
        return ({"structured_outputs": {"grammar": str(grammar)}} if new else {"guided_grammar": str(grammar)}), False
    if caps.structured == "json_schema":
        if choices:
            schema = {"type": "object", "properties": {DECISION_KEY: {"type": "string", "enum": choices}},
                      "required": [DECISION_KEY], "additionalProperties": False}
        if schema:
            fmt = {"type": "json_schema", "json_schema": {"name": "nanobot", "schema": schema}}
            return {"response_format": fmt}, bool(choices)
    return {}, False


def chat_body(caps: Capabilities, served: str, messages: list[dict], *, max_tokens: int,
              temperature: float, top_p: float | None, repeat_penalty: float | None,
              grammar: str | None, prefill: str, stop: list[str] | None) -> tuple[dict, bool]:
    """The streaming request body; the stable prefix (system prompt, history) goes first, byte for
    byte as the agent built it, so the server's prefix cache can reuse it."""
    msgs = list(messages)
    body: dict = {"model": served, "stream": True, "max_tokens": max_tokens, "temperature": temperature,
                  "stream_options": {"include_usage": True}}
    if prefill:
        msgs.append({"role": "assistant", "content": prefill})
        if caps.prefill == "vllm":
            body |= {"continue_final_message": True, "add_generation_prompt": False}
    body["messages"] = msgs
    if top_p is not None:
        body["top_p"] = top_p
    if stop:
        body["stop"] = stop
    if repeat_penalty is not None:
        if caps.flavor in ("llama-server", "llama-cpp-python"):
            body["repeat_penalty"] = repeat_penalty
        elif caps.flavor == "vllm":
            body["repetition_penalty"] = repeat_penalty
    if caps.flavor == "llama-server":
        body["cache_prompt"] = True  # reuse the KV cache of the longest common prefix
    fields, wrapped = constraint(caps, grammar)
    return body | fields, wrapped
