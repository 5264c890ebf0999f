"""``nanobot bench``: figures, the full-dump baseline, the synthetic GGUF and the CLI (real model)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from nanobot.bench import synthetic
from nanobot.bench.baseline import build_full_dump
from nanobot.bench.figures import BenchResult, stat
from nanobot.bench.runner import QUESTIONS, bench_workspace
from nanobot.runtime import tool_classes


def test_stat_median_and_spread():
    s = stat([0.30, 0.10, 0.20, 0.90])
    assert (s.median, s.min, s.max, s.n) == (0.25, 0.10, 0.90, 4)
    assert math.isclose(s.spread, 0.8)
    assert stat([]).n == 0


def test_synthetic_plan_has_llama_3_2_3b_shapes():
    plan = synthetic.tensor_plan()
    params = sum(math.prod(shape) for _, shape, _ in plan)
    assert 3.1e9 < params < 3.3e9  # Llama 3.2 3B: 3.21 B parameters (tied embeddings)
    assert sum(1 for name, _, _ in plan if name.endswith("attn_q.weight")) == 28
    kinds = {kind for _, _, kind in plan}
    assert kinds == {"Q4_K", "Q6_K", "F32"}
    q6 = [name for name, _, kind in plan if kind == "Q6_K"]
    assert "token_embd.weight" in q6 and "blk.0.ffn_down.weight" in q6 and "blk.4.ffn_down.weight" not in q6
    nbytes = sum(math.prod(shape) // 256 * synthetic.BLOCK_BYTES[kind] if kind != "F32" else shape[0] * 4
                 for _, shape, kind in plan)
    assert 1.9e9 < nbytes < 2.1e9  # the real Q4_K_M file is 2.02 GB


def test_random_blocks_have_finite_scales():
    rng = np.random.default_rng(1)
    q4 = synthetic.random_blocks("Q4_K", 4, 512, rng).reshape(-1, 144)
    q6 = synthetic.random_blocks("Q6_K", 4, 512, rng).reshape(-1, 210)
    for scales in (q4[:, 0:4].copy().view(np.float16), q6[:, 208:210].copy().view(np.float16)):
        assert np.isfinite(scales).all() and (np.abs(scales) < 1e-3).all()


@pytest.mark.slow
def test_tiny_synthetic_gguf_loads_and_generates(tmp_path, bundled):
    """The writer's output is a valid GGUF that llama.cpp runs (small shapes, same code path)."""
    from nanobot.backends.llama import LlamaBackend
    from nanobot.config import ModelSettings
    from nanobot.models import ResolvedModel

    shapes = dict(synthetic.SHAPES, n_layer=2, d_model=256, d_ffn=512, n_head=4, n_head_kv=2,
                  head_dim=64, n_vocab=49152 + 256)
    out = tmp_path / "tiny.gguf"
    synthetic.write_synthetic(out, bundled, shapes=shapes, label="SYNTHETIC tiny")
    backend = LlamaBackend(ResolvedModel("tiny", out, ModelSettings(n_ctx=512, flash_attn=True)))
    try:
        assert backend.llm.n_vocab() == 49152 + 256
        assert backend.llm.metadata["general.name"] == "SYNTHETIC tiny"
        from nanobot.backends.base import Message

        tokens = backend.tokenize_prompt(backend.render([Message(role="user", content="hello there")]))
        start = backend.llm.tokenize(b"<|im_start|>", add_bos=False, special=True)
        assert len(start) == 1 and tokens.count(start[0]) == 3  # the SmolLM2 tokenizer came along (one control token per turn)
        list(backend.stream_tokens(tokens, max_tokens=4, temperature=0.0))
        assert backend.last.evaluated_tokens == len(tokens)
    finally:
        backend.llm.close()


def test_full_dump_is_built_from_the_same_workspace(tmp_path, model):
    settings = bench_workspace(tmp_path / "home")
    dump = build_full_dump(settings.workspace, model.count_tokens)
    names = [s.name for s in dump.sections]
    assert names[0] == "soul" and "memory (whole MEMORY.md)" in names and "observations (recent)" in names
    memory = next(s for s in dump.sections if s.name.startswith("memory"))
    assert memory.text.count("\n- ") >= 100 and memory.tokens > 2000
    # every registered tool is importable here, so the dump spells out every schema, one a line
    (tools,) = [s for s in dump.sections if s.name.startswith("tools")]
    schemas = [json.loads(line) for line in tools.text.splitlines()[1:]]
    assert schemas == [cls.schema() for cls in tool_classes().values()]  # the features' too
    assert not any("tool" in m for m in dump.missing)
    small = bench_workspace(tmp_path / "small", small=True)
    assert (small.workspace / "MEMORY.md").read_text().count("\n- ") == 40


@pytest.mark.slow
def test_bench_quick_json_has_every_figure(cli, tmp_path):
    out = tmp_path / "bench.json"
    # the smallest settings: speed rows of 8 prompt tokens and 2 generated, memory off (the bench
    # sends a budget-sized stand-in block instead); every figure is still produced and checked
    r = cli("bench", "--quick", "--pp", "8", "--tg", "2", "--json", str(out), timeout=900,
            env={"NANOBOT_MEMORY__ENABLED": "false"})
    assert r.returncode == 0, r.stderr
    for column in ("model", "threads", "fa", "type_k", "test", "t/s", "pp8", "tg2"):
        assert column in r.stdout
    assert "lean prompt, cold" in r.stdout and "full-dump prompt, cold" in r.stdout
    data = json.loads(out.read_text())
    res = BenchResult.model_validate(data)
    assert not res.synthetic and res.quick and res.repeat == 1
    m = res.machine
    assert m.cpu and m.cores >= 1 and m.threads >= 1 and m.gpu_layers == 0
    assert res.model.params_m > 100 and res.settings["n_ctx"] >= 4096
    p = res.prompt
    lean = {s.name for s in p.lean_sections}
    assert {"soul", "time", "memory (this turn)", "message"} <= lean
    assert sum(s.tokens for s in p.lean_sections) == p.lean_turn_tokens  # the rows are what the turn sent
    assert {"soul", "memory (whole MEMORY.md)", "observations (recent)"} <= {s.name for s in p.full_sections}
    assert p.full_turn_tokens > p.lean_turn_tokens > p.stable_prefix_tokens > 0
    assert p.ratio == round(p.full_turn_tokens / p.lean_turn_tokens, 2)
    t = res.ttft
    for figure in (t.lean_cold, t.lean_disk_kv, t.lean_disk_kv_restore, t.full_dump_cold, t.turn2,
                   t.prefix_eval_cold):
        assert figure.n == 1 and figure.median > 0
    assert t.lean_disk_kv_reused_tokens == p.stable_prefix_tokens
    # prefilled while typing: only the per-turn memory block and the message are left
    assert t.lean_prefilled.n == 1 and 0 < t.lean_prefilled_evaluated < p.lean_turn_tokens - p.stable_prefix_tokens
    assert res.turn2.reused_tokens > p.lean_turn_tokens - 5
    assert res.turn2.evaluated_tokens < res.turn2.prompt_tokens
    assert res.speed.median > 0 and res.generation_tps.median > 0
    assert res.overhead.total.median >= res.overhead.assembly.median > 0
    labels = [v.label for v in res.variants]
    assert {"fa on, kv f16", "fa off, kv f16", "fa on, kv q8_0"} <= set(labels)
    assert any(v.threads != res.variants[0].threads for v in res.variants) or m.cores == 1
    assert all(v.error is None and v.pp_tps.median > 0 and v.tg_tps.median > 0 for v in res.variants)
    assert res.peak_rss_mb > 50
    assert set(data["targets"]) == {"lean_3x_fewer_tokens", "disk_kv_startup_le_10pct",
                                    "disk_kv_first_turn_le_10pct", "turn2_extra_le_5pct", "overhead_le_5pct",
                                    "prefilled_first_turn_le_15pct"}


def test_unknown_synthetic_size_is_one_line_error(cli):
    r = cli("bench", "--synthetic", "7b")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["Error: unknown synthetic model '7b'; use --synthetic 3b"]


def test_questions_are_realistic_for_the_bench_memory(tmp_path):
    settings = bench_workspace(tmp_path / "home")
    memory = (settings.workspace / "MEMORY.md").read_text()
    assert "on call" in memory and "PR #214" in memory and "PR #214" in QUESTIONS[1]
