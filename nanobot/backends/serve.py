"""``nanobot serve``: one loaded GGUF model shared over llama-cpp-python's OpenAI-compatible app.

The model loads with nanobot's settings for it (n_ctx, threads, batch sizes, flash attention, KV
types, chat format) and the same weight-repacking decision and first-batch check as the in-process
backend (``backends/repack.py``), so the server runs on every CPU the chat runs on, AMX builds
included. Several chats (``[models.NAME] base_url``) and other OpenAI clients can share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from nanobot.backends.batchprobe import repack_for
from nanobot.backends.llama import llama_kwargs
from nanobot.backends.repack import amx_build, model_params
from nanobot.base.errors import MissingDependency, ModelError
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


def server_app(model: ResolvedModel, n_threads: int | None = None, verbose: bool = False) -> Served:
    """Load ``model`` and build the OpenAI-compatible app that serves it (no socket opened yet)."""
    if model.path is None:
        raise ModelError(f"model '{model.name}' is itself a model server ({model.settings.base_url}); "
                         "serve a GGUF model (a name with a path, or a .gguf path)")
    try:
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError:
        raise MissingDependency("nanobot serve needs llama-cpp-python's server extra; run: "
                                "pip install 'llama-cpp-python[server]==0.3.36'") from None
    fields = server_settings(model, n_threads, verbose)
    repack = repack_for(model)
    try:
        with model_params(repack):
            app = create_app(server_settings=ServerSettings(), model_settings=[ModelSettings(**fields)])
    except (ValueError, RuntimeError) as e:
        raise ModelError(f"llama.cpp could not load {model.path}: {e}; check the file and its settings") from None
    return Served(app, model.name, fields["n_ctx"], fields["n_threads"], repack, amx_build())
