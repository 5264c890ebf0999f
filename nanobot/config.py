"""Configuration: pydantic models for every setting, loaded env > config.toml > defaults.

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
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from nanobot.base.errors import ConfigError
from nanobot.base.regular import read_regular

DEFAULT_MODEL = "smollm2"

# llama.cpp's ggml_type ids for the KV cache types that llama.cpp accepts.
KV_TYPES: dict[str, int] = {
    "f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8,
    "iq4_nl": 20, "bf16": 30,
}
KVType = Literal["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl"]
_UNQUANTIZED = {"f32", "f16", "bf16"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelSettings(_Strict):
    """One chat model: a GGUF path plus the llama.cpp settings that matter."""

    path: Path | None = None  # None only for the bundled default
    n_ctx: int = Field(4096, ge=256)
    n_threads: int | None = Field(None, ge=1)  # None = physical cores
    n_threads_batch: int | None = Field(None, ge=1)
    n_gpu_layers: int = Field(0, ge=-1)  # -1 = offload everything
    n_batch: int = Field(512, ge=1)
    n_ubatch: int = Field(512, ge=1)
    flash_attn: bool = False  # measure with `nanobot bench`: on this 2-core CPU it slows generation
    type_k: KVType | None = None  # KV cache type; None = llama.cpp default (f16)
    type_v: KVType | None = None
    use_mmap: bool = True
    use_mlock: bool = False
    chat_format: str | None = None  # None = the GGUF's own chat template
    repack: bool | None = None  # weight repacking (extra buffer types); None = auto
    seed: int = 0
    # An OpenAI-compatible model server instead of a GGUF file (nanobot/backends/openai_http.py):
    base_url: str | None = None  # e.g. "http://127.0.0.1:8080/v1"
    served_model: str | None = None  # the server's name for the model (default: the config name)
    api_key_env: str | None = None  # NAME of an environment variable holding the key (never the key)
    connect_timeout: float = Field(3.0, gt=0)  # seconds to reach the server
    read_timeout: float = Field(120.0, gt=0)  # most seconds the server may stay silent mid-request
    structured: Literal["auto", "grammar", "vllm", "json_schema", "none"] = "auto"  # how to constrain

    @model_validator(mode="after")
    def _check_combinations(self) -> ModelSettings:
        if self.base_url and self.path:
            raise ValueError("a model has either path (a GGUF file) or base_url (a model server), not both; remove one")
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https:// (got {self.base_url!r})")
        if self.api_key_env and not self.api_key_env.replace("_", "a").isalnum():
            raise ValueError("api_key_env is the NAME of an environment variable (e.g. VLLM_API_KEY), never the key itself")
        if self.type_v and self.type_v not in _UNQUANTIZED and not self.flash_attn:
            raise ValueError(
                f"type_v = '{self.type_v}' (a quantized V cache) needs flash_attn = true; "
                "set flash_attn = true or type_v = 'f16'"
            )
        if self.n_ubatch > self.n_batch:
            raise ValueError(
                f"n_ubatch ({self.n_ubatch}) must not exceed n_batch ({self.n_batch}); "
                "lower n_ubatch or raise n_batch"
            )
        return self


class PromptSettings(_Strict):
    """Token budgets, counted with the loaded model's own tokenizer."""

    cap: int = Field(2000, ge=64)  # hard cap on the whole system prompt
    soul: int = Field(200, ge=0)
    user: int = Field(200, ge=0)
    tools: int = Field(200, ge=0)  # the tool index: intent lines + names
    context: int = Field(500, ge=0)
    time: int = Field(80, ge=0)
    memory: int = Field(250, ge=0)  # per-turn retrieved memory (goes with the user message)


class ChatSettings(_Strict):
    temperature: float = Field(0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(512, ge=1)  # reply reserve: history is trimmed to n_ctx - this
    top_p: float = Field(0.95, gt=0.0, le=1.0)
    repeat_penalty: float = Field(1.1, ge=0.0)
    prefill: bool = True  # interactive chat: evaluate the next turn's known prefix while you type
    pressure_threshold: float = Field(0.8, gt=0.0, le=1.0)  # share of n_ctx at which the pressure hooks run (observation, checkpoint)
    # loops (bench/loop_bench.py): llama.cpp's DRY sampler, then a guard that stops a repeating reply
    dry_multiplier: float = Field(0.8, ge=0.0)  # 0 turns DRY off; llama.cpp's recommended 0.8
    dry_base: float = Field(1.75, ge=1.0)
    dry_allowed_length: int = Field(2, ge=1)  # repeats up to this many tokens are free
    dry_penalty_last_n: int = Field(-1, ge=-1)  # tokens looked back over; -1 = the whole context
    dry_seq_breakers: list[str] = Field(default_factory=lambda: ["\n", ":", '"', "*"])  # llama.cpp's
    loop_guard: bool = True  # stop a reply when a sentence or a long word run repeats
    loop_ngram: int = Field(12, ge=4)  # words in a run whose repeat counts as a loop
    loop_sentence_chars: int = Field(24, ge=8)  # a repeated sentence at least this long is a loop


class ToolSettings(_Strict):
    enabled: list[str] | None = None  # None = every registered tool
    roots: list[Path] = Field(default_factory=list)  # extra roots the file tools may touch
    exec_allow: list[str] = Field(default_factory=list)  # commands exec may run without asking
    exec_timeout: float = Field(30.0, gt=0)
    output_tokens: int = Field(400, ge=32)  # tool results are truncated to this (room for the note)
    max_steps: int = Field(4, ge=1)  # tool calls per turn
    max_retries: int = Field(2, ge=0)  # retries after a validation error
    args_tokens: int = Field(256, ge=16)  # most tokens a tool call's JSON arguments may take
    web_search_url: str | None = None  # e.g. a SearxNG instance
    web_timeout: float = Field(10.0, gt=0)
    web_allow_hosts: list[str] = Field(default_factory=list)  # local hosts web_fetch may reach: "name" or "name:port"
    index_max: int = Field(20, ge=1)  # more tools than this: the prompt lists groups and tool_search
    # "auto": the model's own <tool_call> format when its chat template declares tool support
    # (nanobot.tools.templatecalls), else names + schema on demand; "names" / "template" force one
    call_format: Literal["auto", "names", "template"] = "auto"
    # template format: P(the reply opens a call) needed to call; chosen on the BFCL dev half (bench/bfcl_report.py)
    call_threshold: float = Field(0.4, ge=0.0, le=1.0)


class MemorySettings(_Strict):
    enabled: bool = True
    embedder: str | None = None  # path to a sentence-transformers model; None = bundled MiniLM
    embedder_backend: Literal["auto", "numpy", "torch"] = "auto"  # auto: numpy when the model allows (no torch)
    k: int = Field(5, ge=1)
    min_score: float = Field(0.35, ge=-1.0, le=1.0)  # similarity floor
    observations_share: float = Field(0.4, ge=0.0, le=1.0)  # of prompt.memory, for "Related Context:"
    keyword_weight: float = Field(0.1, ge=0.0, le=1.0)  # hybrid: bonus of the best BM25 match (the floor's score)
    fusion: Literal["blend", "rrf", "score"] = "blend"  # how hybrid search ranks (memory/fusion.py)
    transcripts: bool = True  # past conversations (sessions/*.jsonl) are a memory source
    transcripts_share: float = Field(0.3, ge=0.0, le=1.0)  # of prompt.memory, for "Past Conversations:"


class ObserverSettings(_Strict):
    enabled: bool = True
    threshold: float | None = Field(None, gt=0.0, le=1.0)  # deprecated: [chat] pressure_threshold (copied there when [chat] does not set it)
    rearm_below: float = Field(0.6, gt=0.0, le=1.0)  # after firing, re-armed once a prompt is under this
    project_dirs: list[Path] = Field(default_factory=list)  # extra git repos to watch
    git_timeout: float = Field(2.0, gt=0)
    max_tokens: int = Field(256, ge=32)  # bound on the observation the model writes (runs at exit)
    recover_max: int = Field(2, ge=0)  # past sessions without an observation to observe per session end
    reflect_on_start: bool = True  # reflect in the background at start-up when due
    reflect_every_h: float = Field(6.0, ge=0)  # "due": unreflected observations and last run this old
    merge_similarity: float = Field(0.85, gt=0.0, le=1.0)  # a new fact this close to a line merges
    context_max_age_h: float = Field(24.0, gt=0)  # older CONTEXT.md is refreshed from observations
    background: bool = True  # chat: exit and 80% observations off the user's path (nanobot/housekeeping/housekeep.py)


class KVCacheSettings(_Strict):
    enabled: bool = True  # disk cache of the stable prompt prefix's KV state
    max_mb: int = Field(512, ge=1)


class McpServerSettings(_Strict):
    """One MCP server: ``command`` (+ args, env, cwd) for stdio, or ``url`` for streamable HTTP."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    # an env var whose value is sent as "Authorization: Bearer <value>", or {header = "ENV_VAR"}
    headers_env: str | dict[str, str] | None = None
    trust: Literal["ask", "allow"] = "ask"  # ask: like exec, a call runs only if the user agrees
    eager: bool = False  # start with the chat instead of on first use

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs exactly one of command (stdio) or url (streamable HTTP)")
        return self


class McpSettings(_Strict):
    timeout_s: float = Field(30.0, gt=0)  # per call (and per start); a hung server is restarted
    servers: dict[str, McpServerSettings] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names(self) -> McpSettings:
        bad = [n for n in self.servers if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", n)]
        if bad:
            raise ValueError(f"MCP server name {bad[0]!r}: use letters, digits, _ or - (the tools' prefix)")
        return self


class ConsolidationSettings(_Strict):
    """Per-chat context (``nanobot/chats/``): $NANOBOT_HOME/chats/<id>/CONTEXT.md."""

    enabled: bool = True  # inject the chat's CONTEXT.md; nightly consolidation in `nanobot daemon`
    at: str = Field("02:00", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")  # nightly, local time (HH:MM)
    lookback_days: int = Field(7, ge=1)  # the suggester reads at most this far back
    prune_days: int = Field(14, ge=1)  # an item not mentioned for this long is dropped
    topics: int = Field(5, ge=1)  # Recent Topics keeps the newest this many
    max_bytes: int = Field(2048, ge=256)  # the file's cap
    budget: int = Field(400, ge=0)  # tokens of the "Current conversation" prompt section
    stale_days: int = Field(7, ge=1)  # older than this: injected with a note saying so
    max_tokens: int = Field(320, ge=64)  # the suggester's output per window
    merge_similarity: float = Field(0.85, gt=0.0, le=1.0)  # same item (embedding cosine) -> one line


class CodingSettings(_Strict):
    session: str = ""  # the coding session's root id; set by `nanobot session` (empty: feature off)
    context: int = Field(600, ge=0)  # prompt budget: descriptions, diff stat, hunks
    describe: bool = True  # rewrite the change's living description after each turn
    describe_tokens: int = Field(256, ge=32)  # bound on the rewrite the model writes
    description: int = Field(200, ge=40)  # token budget of the living description (older items merged)
    test_command: str = ""  # run in the repository before each checkpoint (e.g. "pytest -q -x"); "" = none
    test_timeout: float = Field(300.0, gt=0)  # seconds the test command may run


class VaultSettings(_Strict):
    """The knowledge vault: a table of contents of knowledge/ and a digest of recent changes."""

    enabled: bool = True
    toc: int | None = Field(None, ge=0)  # fixed token budget of "Your Knowledge"; None: follows n_ctx
    toc_share: float = Field(0.10, ge=0.0, le=1.0)  # ... as this share of n_ctx,
    toc_min: int = Field(400, ge=0)  # at least this many tokens,
    toc_max: int = Field(3000, ge=0)  # at most this many (and at most half of [prompt] cap)
    digest: int = Field(200, ge=0)  # token budget of "Recent Changes" (volatile, frozen per session)
    hours: float = Field(24.0, gt=0)  # the digest's window


def default_home() -> Path:
    return Path(os.environ.get("NANOBOT_HOME") or Path.home() / ".nanobot").expanduser()


_toml_path: Path | None = None  # set by load_settings() for the TOML source


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
        if _toml_path is not None and _toml_path.exists():
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=_toml_path))
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
    global _toml_path
    home = (home or default_home()).expanduser()
    path = home / "config.toml"
    if path.exists():
        try:
            tomllib.loads(read_regular(path).decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not valid TOML ({e}); fix the syntax or delete the file") from None
        except OSError as e:
            raise ConfigError(f"{path}: cannot be read ({e.strerror}); make it a regular TOML file or delete it") from None
    _toml_path = path
    try:
        return Settings(home=home, **overrides)
    except ValidationError as e:
        raise ConfigError(_describe(e, path)) from None
    finally:
        _toml_path = None


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
            parts.append(f"'{key}': {msg}{got_s}")
    more = f" (+{len(err.errors()) - 3} more)" if len(err.errors()) > 3 else ""
    return f"invalid config in {path} or NANOBOT_* env: " + "; ".join(parts) + more
