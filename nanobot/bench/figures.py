"""What a benchmark run reports: pydantic records for every figure, plus the statistics helper.

Every timed figure is a ``Stat`` over repeated runs (warm-up excluded): median, min, max and spread
(max - min, the simplest honest measure with 2-5 runs). ``BenchResult`` is what ``--json`` writes.
"""

from __future__ import annotations

import os
import platform
import statistics

from pydantic import BaseModel, Field


class Stat(BaseModel):
    median: float
    min: float
    max: float
    spread: float  # max - min
    n: int
    values: list[float]


def stat(values: list[float]) -> Stat:
    """Median and spread of ``values``.

    >>> stat([3.0, 1.0, 2.0]).median, stat([3.0, 1.0, 2.0]).spread
    (2.0, 2.0)
    """
    if not values:
        return Stat(median=0.0, min=0.0, max=0.0, spread=0.0, n=0, values=[])
    vals = [round(v, 6) for v in values]
    return Stat(median=round(statistics.median(vals), 6), min=min(vals), max=max(vals),
                spread=round(max(vals) - min(vals), 6), n=len(vals), values=vals)


class Machine(BaseModel):
    cpu: str
    cores: int  # logical CPUs visible to this process
    threads: int  # generation threads the main measurements used
    threads_batch: int  # prompt-eval threads the main measurements used
    gpu_layers: int
    system: str
    python: str
    llama_cpp_python: str
    llama_system_info: str
    load_avg: list[float]  # 1/5/15-min load average at the start (other work skews timings)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class ModelInfo(BaseModel):
    name: str
    path: str
    size_mb: float
    params_m: float  # millions of parameters
    synthetic: bool
    label: str  # what every output calls it (synthetic models say so)


class SectionTokens(BaseModel):
    name: str
    tokens: int


class PromptFigures(BaseModel):
    """Prompt size: the lean prompt per turn vs the full-dump baseline, same workspace."""

    lean_sections: list[SectionTokens]  # as sent: sections, template wrapping, tools block, memory, message
    lean_system_tokens: int
    lean_turn_tokens: int  # rendered prompt of a first turn, chat template included
    memory_per_turn: str  # "retrieved" or "budget (retriever not attached)"
    full_sections: list[SectionTokens]
    full_turn_tokens: int
    full_missing: list[str] = Field(default_factory=list)
    ratio: float  # full_turn_tokens / lean_turn_tokens
    stable_prefix_tokens: int  # tokens the disk KV cache holds (the stable prefix, on through today's date)


class TTFTFigures(BaseModel):
    """Time to first token (seconds)."""

    lean_cold: Stat
    lean_disk_kv: Stat  # session start with the disk KV cache: restore + first turn
    lean_disk_kv_restore: Stat  # of which: restoring the prefix from disk
    lean_disk_kv_reused_tokens: int
    prefix_eval_cold: Stat  # evaluating the stable prefix from scratch (what the restore replaces)
    full_dump_cold: Stat
    turn2: Stat
    disk_kv_file_mb: float
    ratio_full_vs_lean: float
    disk_kv_vs_cold: float  # lean_disk_kv / lean_cold (first turn still pays for per-turn tokens)
    restore_vs_prefix_eval: float  # lean_disk_kv_restore / prefix_eval_cold (start-up cost)
    lean_prefilled: Stat | None = None  # first turn after a disk-KV start, Time + typed draft prefilled while typing
    lean_prefilled_evaluated: int = 0  # tokens that first turn still evaluated (the words typed last, + memory if it changed)
    prefilled_vs_cold: float | None = None  # lean_prefilled / lean_cold


class Turn2Figures(BaseModel):
    prompt_tokens: int
    reused_tokens: int
    evaluated_tokens: int
    new_tokens: int  # tokens not in turn 1's prompt or reply (the new message and its framing)
    extra_evaluated: int  # evaluated beyond the new tokens
    extra_fraction: float  # extra_evaluated / prompt_tokens


class Overhead(BaseModel):
    """Per-turn time outside llama.cpp (seconds)."""

    retrieval: Stat
    assembly: Stat  # system prompt (first turn), messages, chat template, tokenization
    total: Stat
    fraction_of_ttft: float


class Variant(BaseModel):
    """One llama-bench style row: settings -> prompt-eval and generation speed."""

    label: str
    threads: int
    flash_attn: bool
    type_k: str
    type_v: str
    pp_tokens: int
    tg_tokens: int
    pp_tps: Stat
    tg_tps: Stat
    error: str | None = None


class Targets(BaseModel):
    lean_3x_fewer_tokens: bool
    disk_kv_startup_le_10pct: bool  # restore <= 10% of evaluating the prefix cold
    disk_kv_first_turn_le_10pct: bool  # restore + first turn <= 10% of lean cold TTFT
    prefilled_first_turn_le_15pct: bool | None = None  # first turn, prefilled while typing <= 15%
    turn2_extra_le_5pct: bool
    overhead_le_5pct: bool


class BenchResult(BaseModel):
    version: int = 1
    synthetic: bool
    label: str
    quick: bool
    repeat: int
    started: str
    seconds: float
    machine: Machine
    model: ModelInfo
    settings: dict
    prompt: PromptFigures
    ttft: TTFTFigures
    turn2: Turn2Figures
    speed: Stat  # prompt-eval tok/s of the lean cold runs
    generation_tps: Stat  # generation tok/s of the lean cold runs
    overhead: Overhead
    variants: list[Variant]
    peak_rss_mb: float
    targets: Targets
    notes: list[str] = Field(default_factory=list)


def fmt_stat(st: Stat, unit: str = "s", digits: int = 2) -> str:
    """A median and half its spread as one cell: ``fmt_stat(Stat(...), "s") -> "1.20 ± 0.05 s"``."""
    if st.n == 0:
        return "-"
    spread = f" ± {st.spread / 2:.{digits}f}" if st.n > 1 else ""
    return f"{st.median:.{digits}f}{spread} {unit}".strip()
