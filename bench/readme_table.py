"""The performance table (Markdown) from ``nanobot bench --json`` result files.

``bench/docs_tables.py`` puts it on docs/benchmarks/performance.md; run alone it prints it.

Usage: .venv/bin/python bench/readme_table.py bench/results/smollm2.json bench/results/synthetic-3b.json
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nanobot.bench.figures import BenchResult, Stat, stat  # noqa: E402


def s(st: Stat, digits: int = 2) -> str:
    if st.n == 0:
        return "-"
    spread = f" ±{st.spread / 2:.{digits}f}" if st.n > 1 else ""
    return f"{st.median:.{digits}f}{spread}"


def rows(r: BenchResult) -> list[tuple[str, str]]:
    p, t, t2, o = r.prompt, r.ttft, r.turn2, r.overhead
    out = [
        ("prompt tokens: lean turn / full dump", f"{p.lean_turn_tokens} / {p.full_turn_tokens} ({p.ratio:.1f}× fewer)"),
        ("TTFT lean prompt, cold (s)", s(t.lean_cold)),
        ("TTFT lean, disk KV cache: restore + first turn (s)", f"{s(t.lean_disk_kv_restore, 3)} + {s(stat_minus(t.lean_disk_kv, t.lean_disk_kv_restore))}"),
        (f"stable prefix ({p.stable_prefix_tokens} tok): cold eval vs disk restore (s)", f"{s(t.prefix_eval_cold)} vs {s(t.lean_disk_kv_restore, 3)} ({t.restore_vs_prefix_eval:.1%})"),
        ("TTFT first turn after start-up, prefilled while typing (s); evaluated; vs cold",
         f"{s(t.lean_prefilled)}; {t.lean_prefilled_evaluated} tok; {t.prefilled_vs_cold:.1%}" if t.lean_prefilled else "not measured"),
        ("TTFT full-dump prompt, cold (s)", s(t.full_dump_cold)),
        ("TTFT turn 2 (s); tokens evaluated / prompt", f"{s(t.turn2)}; {t2.evaluated_tokens} / {t2.prompt_tokens} ({t2.extra_evaluated} beyond the new ones)"),
        ("prompt eval, lean cold (tok/s)", s(r.speed, 1)),
    ]
    for v in r.variants:
        out.append((f"pp / tg tok/s: {v.label}, {v.threads} thread(s)",
                    f"{s(v.pp_tps, 1)} / {s(v.tg_tps, 1)} (pp{v.pp_tokens}/tg{v.tg_tokens})"
                    if not v.error else v.error))
    out += [
        ("runtime overhead per turn (s, % of TTFT)", f"{s(o.total, 3)} ({o.fraction_of_ttft:.1%}; retrieval {s(o.retrieval, 3)})"),
        ("peak RSS (MB)", f"{r.peak_rss_mb:.0f}"),
    ]
    return out


def stat_minus(a: Stat, b: Stat) -> Stat:
    return stat([x - y for x, y in zip(a.values, b.values)])


def markdown(paths: list) -> str:
    results = [BenchResult.model_validate_json(Path(p).read_text()) for p in paths]
    lines: list[str] = []
    add = lines.append
    heads = [("**SYNTHETIC** " if r.synthetic else "") + f"{r.model.name} ({r.model.size_mb:.0f} MB)" for r in results]
    table = [dict(rows(r)) for r in results]
    keys = list(dict.fromkeys(k for t in table for k in t))
    add("| figure | " + " | ".join(heads) + " |")
    add("|---|" + "---|" * len(results))
    for k in keys:
        add(f"| {k} | " + " | ".join(t.get(k, "-") for t in table) + " |")
    m = results[0].machine
    add("")
    add(f"Machine: {m.cpu}, {m.cores} cores, no GPU ({m.gpu_layers} GPU layers), llama-cpp-python "
          f"{m.llama_cpp_python}; load average during the runs: "
          + ", ".join(f"{r.model.name} {r.machine.load_avg[0]}" for r in results)
          + f". Median of {', '.join(str(r.repeat) for r in results)} runs after a warm-up, ± half the spread.")
    for r in results:
        if r.synthetic:
            add(f"{r.label}: real timings, meaningless text.")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(sys.argv[1:]))
