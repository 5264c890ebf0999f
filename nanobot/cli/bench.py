"""``nanobot bench``: prompt size, time to first token, flash attention and KV caching, measured here."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from nanobot.base.atomic import atomic_write
from nanobot.bench.figures import BenchResult
from nanobot.bench.figures import fmt_stat as _s
from nanobot.cli.term import console


def render(result: BenchResult, console: Console) -> None:
    m, mi = result.model, result.machine
    tag = "[bold red]SYNTHETIC[/bold red] " if result.synthetic else ""
    console.print(f"{tag}[bold]{m.label}[/bold] · {m.size_mb:.0f} MB · {m.params_m:.0f}M params")
    console.print(f"[dim]{mi.cpu} · {mi.cores} cores · threads {mi.threads}/{mi.threads_batch} "
                  f"(gen/batch) · gpu layers {mi.gpu_layers} · load avg {mi.load_avg} · "
                  f"{result.repeat} run(s) after a warm-up, median ± half-spread[/dim]")
    speed = Table("model", "size", "params", "threads", "fa", "type_k", "type_v", "test", "t/s",
                  title="speed (llama-bench style)", box=None)
    name = m.name  # synthetic models are named synthetic-*; the header says SYNTHETIC too
    for v in result.variants:
        cells = [name, f"{m.size_mb / 1024:.2f} GiB", f"{m.params_m / 1000:.2f} B", str(v.threads),
                 "1" if v.flash_attn else "0", v.type_k, v.type_v]
        if v.error:
            speed.add_row(*cells, "-", f"[red]{v.error}[/red]")
            continue
        speed.add_row(*cells, f"pp{v.pp_tokens}", _s(v.pp_tps, "", 1))
        speed.add_row(*cells, f"tg{v.tg_tokens}", _s(v.tg_tps, "", 1))
    console.print(speed)
    t, p, t2 = result.ttft, result.prompt, result.turn2
    ttft = Table("time to first token", "prompt tokens", "evaluated", "TTFT", title="latency", box=None)
    ttft.add_row("lean prompt, cold", str(p.lean_turn_tokens), str(p.lean_turn_tokens), _s(t.lean_cold))
    ttft.add_row("lean prompt, disk KV cache (restore + turn)", str(p.lean_turn_tokens),
                 str(p.lean_turn_tokens - t.lean_disk_kv_reused_tokens), _s(t.lean_disk_kv))
    ttft.add_row("  of which: restore the prefix from disk", str(p.stable_prefix_tokens), "0",
                 _s(t.lean_disk_kv_restore, digits=3))
    ttft.add_row("  vs evaluating that prefix cold", str(p.stable_prefix_tokens),
                 str(p.stable_prefix_tokens), _s(t.prefix_eval_cold))
    if t.lean_prefilled is not None:
        ttft.add_row("first turn after start-up, prefilled while typing", str(p.lean_turn_tokens),
                     str(t.lean_prefilled_evaluated), _s(t.lean_prefilled))
    ttft.add_row("full-dump prompt, cold", str(p.full_turn_tokens), str(p.full_turn_tokens), _s(t.full_dump_cold))
    ttft.add_row("turn 2 (same session)", str(t2.prompt_tokens), str(t2.evaluated_tokens), _s(t.turn2))
    console.print(ttft)
    _render_prompt(result, console)
    _render_targets(result, console)


def _render_prompt(result: BenchResult, console: Console) -> None:
    p = result.prompt
    table = Table("lean prompt section", "tokens", "full-dump section", "tokens", title="prompt size", box=None)
    rows = max(len(p.lean_sections), len(p.full_sections))
    for i in range(rows):
        a = p.lean_sections[i] if i < len(p.lean_sections) else None
        b = p.full_sections[i] if i < len(p.full_sections) else None
        table.add_row(a.name if a else "", str(a.tokens) if a else "", b.name if b else "", str(b.tokens) if b else "")
    table.add_row("[bold]rendered turn[/bold]", f"[bold]{p.lean_turn_tokens}[/bold]",
                  "[bold]rendered turn[/bold]", f"[bold]{p.full_turn_tokens}[/bold]")
    console.print(table)
    o = result.overhead
    console.print(f"runtime overhead per turn: {_s(o.total, digits=3)} (retrieval {_s(o.retrieval, digits=3)}, "
                  f"assembly {_s(o.assembly, digits=3)}) = {o.fraction_of_ttft:.1%} of lean-cold TTFT · "
                  f"peak RSS {result.peak_rss_mb:.0f} MB · prompt eval {_s(result.speed, 'tok/s', 1)}")


def _render_targets(result: BenchResult, console: Console) -> None:
    t, tg = result.targets, result.ttft

    def mark(ok: bool) -> str:
        return "[green]✓[/green]" if ok else "[red]✗[/red]"

    console.print(f"{mark(t.lean_3x_fewer_tokens)} lean prompt {result.prompt.ratio:.1f}× fewer tokens than the full dump (target ≥ 3×); TTFT ratio {tg.ratio_full_vs_lean:.1f}×")
    console.print(f"{mark(t.disk_kv_startup_le_10pct)} disk KV start-up: restore = {tg.restore_vs_prefix_eval:.1%} of evaluating the prefix (target ≤ 10%)")
    console.print(f"{mark(t.disk_kv_first_turn_le_10pct)} first turn with disk KV = {tg.disk_kv_vs_cold:.1%} of lean-cold TTFT (target ≤ 10%; the per-turn memory and message are still evaluated)")
    if t.prefilled_first_turn_le_15pct is not None:
        console.print(f"{mark(t.prefilled_first_turn_le_15pct)} first turn after start-up, prefilled while typing = {tg.prefilled_vs_cold:.1%} of lean-cold TTFT (target ≤ 15%)")
    console.print(f"{mark(t.turn2_extra_le_5pct)} turn 2 evaluated {result.turn2.extra_evaluated} tokens beyond its {result.turn2.new_tokens} new ones = {result.turn2.extra_fraction:.1%} of its prompt (target ≤ 5%)")
    console.print(f"{mark(t.overhead_le_5pct)} runtime overhead {result.overhead.fraction_of_ttft:.1%} of TTFT (target ≤ 5%)")
    for note in result.notes:
        console.print(f"[dim]note: {note}[/dim]")


def register(app: typer.Typer) -> None:
    @app.command()
    def bench(
        model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path (default: the configured model)."),
        json_file: Path = typer.Option(None, "--json", help="Also write every figure to this JSON file."),
        quick: bool = typer.Option(False, "--quick", help="Small sizes, one run: a smoke test in under a minute."),
        synthetic: str = typer.Option(None, "--synthetic", help="Benchmark a synthetic model instead: '3b' (built once, ~2 GB, random weights)."),
        repeat: int = typer.Option(None, "--repeat", "-r", min=1, help="Timed runs per figure after the warm-up (default 3; 1 with --quick; 2 with --synthetic)."),
        pp: int = typer.Option(None, "--pp", min=8, help="Prompt tokens per speed row."),
        tg: int = typer.Option(None, "--tg", min=1, help="Generated tokens per speed row."),
        against: str = typer.Option(None, "--against", help="With a model server as --model: also run this model (name or .gguf) in process and report the HTTP overhead per turn."),
    ) -> None:
        """Measure prompt size, time to first token, KV caching and llama.cpp settings on this machine."""
        from nanobot.bench.runner import BenchOptions, run_bench
        from nanobot.config import load_settings
        from nanobot.models import resolve_model

        settings = load_settings()
        runs = repeat or (1 if quick else 2 if synthetic else 3)
        if not synthetic and resolve_model(settings, model).remote:  # a model server
            from nanobot.cli.benchserver import bench_server

            bench_server(settings, model, against, runs, 8 if quick else 16, json_file)
            return
        opts = BenchOptions(model=model, synthetic=synthetic, quick=quick, repeat=runs, pp=pp, tg=tg,
                            gen_tokens=8 if quick else 16, n_ctx=8192,
                            full_repeat=1 if synthetic else None)
        err = console(stderr=True)
        columns = [TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TimeElapsedColumn()]
        with Progress(*columns, console=err, transient=True) as bar:
            task = bar.add_task("starting", total=None)

            def progress(step: str, done: int, total: int) -> None:
                bar.update(task, description=step, completed=done, total=total)

            result = run_bench(settings, opts, progress)
        render(result, console())
        if json_file:
            atomic_write(json_file, result.model_dump_json(indent=2))
            err.print(f"[dim]wrote {json_file}[/dim]")
