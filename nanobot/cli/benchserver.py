"""``nanobot bench --model NAME`` when NAME is a model server: renders ``nanobot.bench.server``."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from nanobot.base.atomic import atomic_write
from nanobot.bench.figures import Stat, fmt_stat
from nanobot.bench.server import ServerBench, run_server_bench
from nanobot.cli.term import console
from nanobot.config import Settings


def _s(st: Stat, unit: str = "s", digits: int = 3) -> str:
    return fmt_stat(st, unit, digits)


def render(r: ServerBench, console: Console) -> None:
    console.print(f"[bold]{r.model}[/bold] · {r.url} · {r.flavor} · structured output: {r.structured}")
    console.print(f"[dim]tokens: {r.token_counting} · {r.repeat} run(s) after a warm-up, median ± half-spread · "
                  f"{r.gen_tokens} generated tokens per turn · first turn {r.turn1_prompt_tokens} prompt tokens[/dim]")
    table = Table("backend", "TTFT turn 1 (cold)", "TTFT turn 2", "turn 2 prompt / reused", "gen tok/s",
                  "count prompt", title="latency over HTTP", box=None)
    rows = [(f"server ({r.flavor})", r.server)] + ([(f"in process ({r.against})", r.in_process)] if r.in_process else [])
    for label, side in rows:
        reused = "?" if side.turn2_reused_tokens is None else str(side.turn2_reused_tokens)
        table.add_row(label, _s(side.ttft_turn1), _s(side.ttft_turn2), f"{side.turn2_prompt_tokens} / {reused}",
                      _s(side.gen_tps, "", 1), _s(side.count_s))
    console.print(table)
    if r.in_process is not None:
        for turn in ("turn1", "turn2"):
            pct = getattr(r, f"overhead_{turn}_pct")
            ok = pct is not None and pct <= 5
            mark = "[green]✓[/green]" if ok else "[red]✗[/red]"
            console.print(f"{mark} HTTP overhead per turn ({turn}): {getattr(r, f'overhead_{turn}_s'):.3f} s = "
                          f"{pct}% of in-process TTFT (target ≤ 5%)")


def bench_server(settings: Settings, model: str, against: str | None, repeat: int, gen_tokens: int,
                 json_file: Path | None) -> None:
    err = console(stderr=True)
    with err.status("benchmarking the model server") as status:
        result = run_server_bench(settings, model, against=against, repeat=repeat, gen_tokens=gen_tokens,
                                  progress=lambda step, done, total: status.update(f"{step} {done}/{total}"))
    render(result, console())
    if json_file:
        atomic_write(json_file, result.model_dump_json(indent=2))
        err.print(f"[dim]wrote {json_file}[/dim]")
