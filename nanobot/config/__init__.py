"""Configuration: pydantic models for every setting, loaded env > config.toml > defaults.

The core's sections (``[models.NAME]``, ``[prompt]``, ``[chat]``, ``[tools]``) are here; each feature's
section is a module of its own beside this one, named for the feature (``config/vault.py``:
``[vault]``, ``config/chats.py``: ``[consolidation]``, ...), on ``config.strict.Strict``. They sit in
this layer, not in the feature packages, because every layer above reads ``Settings`` and the
settings import no feature (``tests/test_imports.py``). Adding a feature's settings: one module here
and one field in ``Settings``.

``$NANOBOT_HOME`` (default ``~/.nanobot``) holds ``config.toml`` and ``workspace/``. Environment
variables override the file: ``NANOBOT_MODEL`` picks the model, nested keys use ``__``
(``NANOBOT_PROMPT__CAP=1500``, ``NANOBOT_MODELS__SMOLLM2__N_CTX=2048``).

Example config.toml -- swapping the model is one line::

    model = "llama3b"                 # a name below, or a path to any .gguf

    [models.llama3b]
    path = "~/models/Llama-3.2-3B-Instruct-Q4_K_M.gguf"
    n_ctx = 8192
    flash_attn = true
    type_k = "q8_0"
    type_v = "q8_0"
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from nanobot.base.errors import ConfigError
from nanobot.base.redact import redact_url
from nanobot.config.chats import ConsolidationSettings
from nanobot.config.coding import CodingSettings
from nanobot.config.kvcache import KVCacheSettings
from nanobot.config.mcp import McpSettings
from nanobot.config.memory import MemorySettings
from nanobot.config.observer import ObserverSettings
from nanobot.config.strict import MANY, SECONDS, THREADS, TOKENS, Strict, allowed_range
from nanobot.config.tomlread import read_toml
from nanobot.config.vault import VaultSettings

DEFAULT_MODEL = "smollm2"

# llama.cpp's ggml_type ids for the KV cache types that llama.cpp accepts.
KV_TYPES: dict[str, int] = {
    "f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8,
    "iq4_nl": 20, "bf16": 30,
}
KVType = Literal["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"]
_UNQUANTIZED = {"f32", "f16", "bf16"}


class ModelSettings(Strict):
    """One chat model: a GGUF path plus the llama.cpp settings that matter."""

    path: Path | None = None  # None only for the bundled default
    n_ctx: int = Field(4096, ge=256, le=TOKENS)
    n_threads: int | None = Field(None, ge=1, le=THREADS)  # None = physical cores
    n_threads_batch: int | None = Field(None, ge=1, le=THREADS)
    n_gpu_layers: int = Field(0, ge=-1, le=MANY)  # -1 = offload everything
    n_batch: int = Field(512, ge=1, le=TOKENS)
    n_ubatch: int = Field(512, ge=1, le=TOKENS)
    flash_attn: bool = False  # measure with `nanobot bench`: on this 2-core CPU it slows generation
    type_k: KVType | None = None  # KV cache type; None = llama.cpp default (f16)
    type_v: KVType | None = None
    use_mmap: bool = True
    use_mlock: bool = False
    chat_format: str | None = None  # None = the GGUF's own chat template
    repack: bool | None = None  # weight repacking (extra buffer types); None = auto
    seed: int = Field(0, ge=-1, le=2**32 - 1)  # -1: llama.cpp's random seed
    draft_tokens: int = Field(8, ge=0, le=64)  # tokens drafted per step from the context; 0: none
    # An OpenAI-compatible model server instead of a GGUF file (nanobot/backends/openai_http.py):
    base_url: str | None = None  # e.g. "http://127.0.0.1:8080/v1"
    served_model: str | None = None  # the server's name for the model (default: the config name)
    api_key_env: str | None = None  # NAME of an environment variable holding the key (never the key)
    connect_timeout: float = Field(3.0, gt=0, le=SECONDS)  # seconds to reach the server
    read_timeout: float = Field(120.0, gt=0, le=SECONDS)  # most seconds the server may stay silent mid-request
    structured: Literal["auto", "grammar", "vllm", "json_schema", "none"] = "auto"  # how to constrain

    @model_validator(mode="after")
    def _check_combinations(self) -> ModelSettings:
        if self.base_url and self.path:
            raise ValueError("a model has either path (a GGUF file) or base_url (a model server), not both; remove one")
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https:// (got {redact_url(self.base_url)!r})")
        if self.api_key_env and not self.api_key_env.replace("_", "a").isalnum():
            raise ValueError("api_key_env is the NAME of an environment variable (e.g. VLLM_API_KEY), never the key itself")
        if self.type_v and self.type_v not in _UNQUANTIZED and not self.flash_attn:
            raise ValueError(
                f"type_v = '{self.type_v}' (a quantized V cache) needs flash_attn = true; "
                "set flash_attn = true or type_v = 'f16'"
            )
        if self.n_batch > self.n_ctx and "n_batch" in self.model_fields_set:
            raise ValueError(f"n_batch ({self.n_batch}) must not exceed n_ctx ({self.n_ctx}); lower n_batch")
        if self.n_ubatch > self.n_batch:
            raise ValueError(
                f"n_ubatch ({self.n_ubatch}) must not exceed n_batch ({self.n_batch}); "
                "lower n_ubatch or raise n_batch"
            )
        return self


class PromptSettings(Strict):
    """Token budgets, counted with the loaded model's own tokenizer."""

    cap: int = Field(2000, ge=64, le=TOKENS)  # hard cap on the whole system prompt
    soul: int = Field(200, ge=0, le=TOKENS)
    user: int = Field(200, ge=0, le=TOKENS)
    tools: int = Field(200, ge=0, le=TOKENS)  # the tool index: intent lines + names
    context: int = Field(500, ge=0, le=TOKENS)
    time: int = Field(80, ge=0, le=TOKENS)
    repo: int = Field(40, ge=0, le=TOKENS)  # the repository's branch, last commit, changed files (0: left out)
    memory: int = Field(250, ge=0, le=TOKENS)  # per-turn retrieved memory (goes with the user message)


class ChatSettings(Strict):
    temperature: float = Field(0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(512, ge=1, le=TOKENS)  # reply reserve: history is trimmed to n_ctx - this
    top_p: float = Field(0.95, gt=0.0, le=1.0)
    repeat_penalty: float = Field(1.1, ge=0.0, le=10.0)
    prefill: bool = True  # interactive chat: evaluate the next turn's known prefix while you type
    pressure_threshold: float = Field(0.8, gt=0.0, le=1.0)  # share of n_ctx at which the pressure hooks run (observation, checkpoint)
    # loops (bench/loop_bench.py): llama.cpp's DRY sampler, then a guard that stops a repeating reply
    dry_multiplier: float = Field(0.8, ge=0.0, le=100.0)  # 0 turns DRY off; llama.cpp's recommended 0.8
    dry_base: float = Field(1.75, ge=1.0, le=100.0)
    dry_allowed_length: int = Field(2, ge=1, le=TOKENS)  # repeats up to this many tokens are free
    dry_penalty_last_n: int = Field(-1, ge=-1, le=TOKENS)  # tokens looked back over; -1 = the whole context
    dry_seq_breakers: list[str] = Field(default_factory=lambda: ["\n", ":", '"', "*"])  # llama.cpp's
    loop_guard: bool = True  # stop a reply when a sentence or a long word run repeats
    loop_ngram: int = Field(12, ge=4, le=MANY)  # words in a run whose repeat counts as a loop
    loop_sentence_chars: int = Field(24, ge=8, le=TOKENS)  # a repeated sentence at least this long is a loop
    # one budget per turn (nanobot.loop.budget): every model evaluation of a turn (reply, tool steps,
    # judgements, rewrites, check retries) draws one; spent, the turn ends with its best reply and a line
    turn_evaluations: int = Field(16, ge=1, le=MANY)  # model evaluations one turn may spend: reply, tool steps, judgements, a retry
    turn_seconds: float = Field(60.0, gt=0, le=SECONDS)  # from Enter; checked before each evaluation and during a call or rewrite


THRESHOLDS = {"lean": 0.3, "full": 0.4}  # P(call) to call, per ``tools.listing`` (BFCL development items)


class ToolSettings(Strict):
    enabled: list[str] | None = None  # None = every registered tool
    roots: list[Path] = Field(default_factory=list)  # extra roots the file tools may touch
    exec_allow: list[str] = Field(default_factory=list)  # commands exec may run without asking
    # reading a repository inside the roots is what read_file may do there; false: only exec_allow runs
    git_reads: bool = True  # read-only git inside the roots (status, log, diff, show, ...) runs without asking
    exec_timeout: float = Field(30.0, gt=0, le=SECONDS)
    output_tokens: int = Field(400, ge=32, le=TOKENS)  # tool results are truncated to this (room for the note)
    max_steps: int = Field(4, ge=1, le=MANY)  # tool calls per turn
    max_retries: int = Field(2, ge=0, le=MANY)  # retries after a validation error
    args_tokens: int = Field(256, ge=16, le=TOKENS)  # most tokens a tool call's JSON arguments may take
    web_search_url: str | None = None  # e.g. a SearxNG instance
    web_timeout: float = Field(10.0, gt=0, le=SECONDS)
    web_allow_hosts: list[str] = Field(default_factory=list)  # local hosts web_fetch may reach: "name" or "name:port"
    index_max: int = Field(20, ge=1, le=MANY)  # more tools than this: the prompt lists groups and tool_search
    # "auto": the model's own <tool_call> format when its chat template declares tool support
    # (nanobot.tools.templatecalls), else names + schema on demand; "names" / "template" force one
    call_format: Literal["auto", "names", "template"] = "auto"
    # template format: P(the reply opens a call) needed to call; unset: the listing's own (``THRESHOLDS``,
    # chosen on BFCL development items: bench/bfcl_report.py, bench/bfcl_lean_report.py)
    call_threshold: float | None = Field(None, ge=0.0, le=1.0)
    # template format: the tools block the decision sees -- "lean": names + one-line purposes, the chosen
    # tool's schema only for its argument step (nanobot.tools.leancalls); "full": every schema
    listing: Literal["lean", "full"] = "lean"
    # lean listing: a turn's first call only when the model judges that the tool it picked does what the
    # message asks (nanobot.tools.fitcheck); then P(call) needs only fitcheck.FIT_FLOOR, not the threshold
    fit_check: bool = True

    @property
    def threshold(self) -> float:
        """``call_threshold``, or the listing's default: a lean block gives every P(call) less."""
        return self.call_threshold if self.call_threshold is not None else THRESHOLDS[self.listing]


def default_home() -> Path:
    return Path(os.environ.get("NANOBOT_HOME") or Path.home() / ".nanobot").expanduser()


_toml_data: dict[str, Any] | None = None  # config.toml as read by load_settings() (``tomlread``), the TOML source


class Settings(BaseSettings):
    """Everything nanobot reads from config.toml and NANOBOT_* variables."""

    model_config = SettingsConfigDict(
        env_prefix="NANOBOT_", env_nested_delimiter="__", extra="forbid",
        validate_assignment=True,
    )

    home: Path = Field(default_factory=default_home)
    model: str = DEFAULT_MODEL  # a configured name or a path to a .gguf
    models: dict[str, ModelSettings] = Field(default_factory=dict)
    prompt: PromptSettings = Field(default_factory=PromptSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    observer: ObserverSettings = Field(default_factory=ObserverSettings)
    kv_cache: KVCacheSettings = Field(default_factory=KVCacheSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    consolidation: ConsolidationSettings = Field(default_factory=ConsolidationSettings)
    coding: CodingSettings = Field(default_factory=CodingSettings)
    vault: VaultSettings = Field(default_factory=VaultSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if _toml_data is not None:
            sources.append(InitSettingsSource(settings_cls, init_kwargs=_toml_data))
        return tuple(sources)

    @model_validator(mode="after")
    def _pressure_alias(self) -> Settings:
        """``[observer] threshold`` (the old name) sets ``[chat] pressure_threshold`` unless [chat] does."""
        old = self.observer.threshold
        if old is not None and "pressure_threshold" not in self.chat.model_fields_set:
            self.chat.pressure_threshold = old
        return self

    @property
    def workspace(self) -> Path:
        return self.home / "workspace"

    @property
    def config_path(self) -> Path:
        return self.home / "config.toml"

    @property
    def sessions_dir(self) -> Path:
        return self.home / "sessions"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"


def load_settings(home: Path | None = None, **overrides: Any) -> Settings:
    """Load settings for ``home`` (default ``$NANOBOT_HOME`` or ``~/.nanobot``).

    Raises ConfigError with a one-line message naming the file, the key and the fix.
    """
    global _toml_data
    home = (home or default_home()).expanduser()
    path = home / "config.toml"
    _toml_data = read_toml(path) if path.exists() else None  # a byte-order mark, bad bytes, depth: tomlread
    try:
        return Settings(home=home, **overrides)
    except ValidationError as e:
        raise ConfigError(_describe(e, path)) from None
    finally:
        _toml_data = None


_BOUND_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _describe(err: ValidationError, path: Path) -> str:
    parts = []
    for item in err.errors()[:3]:
        key = ".".join(str(p) for p in item["loc"]) or "(top level)"
        if item["type"] == "extra_forbidden":
            parts.append(f"unknown key '{key}' (typo?) - remove or rename it")
        else:
            msg = item["msg"].removeprefix("Value error, ")
            got = item.get("input")
            got_s = f" (got {got!r})" if got is not None and not isinstance(got, dict) else ""
            span = allowed_range(Settings, item["loc"]) if item["type"] in _BOUND_ERRORS else ""
            parts.append(f"'{key}': must be {span}{got_s}" if span else f"'{key}': {msg}{got_s}")
    more = f" (+{len(err.errors()) - 3} more)" if len(err.errors()) > 3 else ""
    return f"invalid config in {path} or NANOBOT_* env: " + "; ".join(parts) + more
