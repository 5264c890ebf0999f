"""``nanobot serve``: one loaded GGUF model shared over llama-cpp-python's OpenAI-compatible app.

The model loads with nanobot's settings for it (n_ctx, threads, batch sizes, flash attention, KV
types, chat format) and the same weight-repacking decision and first-batch check as the in-process
backend (``backends/repack.py``), so the server runs on every CPU the chat runs on, AMX builds
included. Several chats (``[models.NAME] base_url``) and other OpenAI clients can share it: the
model answers one request at a time and the rest wait their turn (never interrupting a stream), behind
the checks of ``backends/serveguard.py`` (a key, a body cap, a bounded queue, one-line errors). A
server reachable from other machines needs a key or an explicit ``--no-auth`` (``needs_key``).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

from nanobot.backends.batchprobe import repack_for
from nanobot.backends.llama import llama_kwargs
from nanobot.backends.repack import amx_build, model_params
from nanobot.backends.serveguard import QUEUE, Guard
from nanobot.base.errors import MissingDependency, ModelError
from nanobot.base.redact import redact_url
from nanobot.models import ResolvedModel


@dataclass
class Served:
    """What ``server_app`` loaded: the app to run and the facts to tell the user."""

    app: object
    alias: str
    n_ctx: int
    n_threads: int
    repack: bool
    amx: bool


def server_settings(model: ResolvedModel, n_threads: int | None = None, verbose: bool = False) -> dict:
    """llama-cpp-python server ``ModelSettings`` fields for ``model`` from nanobot's settings."""
    kw = llama_kwargs(model.settings)
    if n_threads:
        kw["n_threads"] = kw["n_threads_batch"] = n_threads
    fields = {k: v for k, v in kw.items() if v is not None}
    fields |= {"model": str(model.path), "model_alias": model.name, "verbose": verbose,
               "chat_format": model.settings.chat_format}
    return {k: v for k, v in fields.items() if v is not None}


def needs_key(host: str) -> bool:
    """Whether listening on ``host`` lets other machines in: anything but a loopback address (a name
    counts as loopback only if every address it resolves to is one).

    >>> needs_key("127.0.0.1"), needs_key("::1"), needs_key("0.0.0.0"), needs_key("192.168.1.5"), needs_key("")
    (False, False, True, True, True)
    """
    try:
        return not ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)} if host else set()
    except OSError:
        return True
    return not found or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)


def server_app(model: ResolvedModel, n_threads: int | None = None, verbose: bool = False,
               key: str | None = None, queue: int = QUEUE) -> Served:
    """Load ``model`` and build the OpenAI-compatible app that serves it (no socket opened yet);
    with ``key``, every request needs ``Authorization: Bearer <key>``."""
    if model.path is None:
        raise ModelError(f"model '{model.name}' is itself a model server ({redact_url(model.settings.base_url)}); "
                         "serve a GGUF model (a name with a path, or a .gguf path)")
    try:
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError:
        raise MissingDependency("nanobot serve needs llama-cpp-python's server extra; run: "
                                "pip install 'llama-cpp-python[server]==0.3.36'") from None
    fields = server_settings(model, n_threads, verbose)
    repack = repack_for(model)
    # the key is checked by the guard (in constant time); a request waits its turn, never cutting the
    # stream being answered; llama-cpp-python's own API_KEY, INTERRUPT_REQUESTS and CONFIG_FILE
    # variables of the environment have no say
    server = ServerSettings(api_key=None, interrupt_requests=False)
    config_file = os.environ.pop("CONFIG_FILE", None)
    try:
        with model_params(repack):
            app = create_app(server_settings=server, model_settings=[ModelSettings(**fields)])
    except (ValueError, RuntimeError) as e:
        raise ModelError(f"llama.cpp could not load {model.path}: {e}; check the file and its settings") from None
    finally:
        if config_file is not None:
            os.environ["CONFIG_FILE"] = config_file
    return Served(Guard(app, key, queue=queue, alias=model.name, fits=_fits()), model.name, fields["n_ctx"], fields["n_threads"], repack, amx_build())


def _fits():
    """The checks of a request against the served model's vocabulary (``Guard``'s ``fits``): a GBNF
    grammar llama.cpp cannot parse becomes a null sampler that crashes the server mid-request, and a
    ``logit_bias`` token id past the vocabulary fails inside the sampler."""
    import llama_cpp
    from llama_cpp.server import app as served

    model = served._llama_proxy()._model
    n_vocab = model.n_vocab()

    def fits(request) -> str | None:
        grammar = vars(request).get("grammar")  # llama.cpp's request model: a field, set or None
        if grammar:
            sampler = llama_cpp.llama_sampler_init_grammar(model.vocab, grammar.encode("utf-8"), b"root")
            if not sampler:
                return "bad parameter grammar: llama.cpp cannot parse it as GBNF with a root rule; the server's log says where"
            llama_cpp.llama_sampler_free(sampler)
        bias = getattr(request, "logit_bias", None) or {}
        if getattr(request, "logit_bias_type", None) != "tokens":
            bad = [k for k in bias if not (k.isdigit() and int(k) < n_vocab)]
            if bad:
                return f"bad parameter logit_bias: {bad[0][:40]!r} is not a token id of this model (0 to {n_vocab - 1})"
        return None
    return fits
