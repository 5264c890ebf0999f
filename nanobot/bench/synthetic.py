"""A synthetic 3B GGUF: the shapes and quantization of Llama 3.2 3B Q4_K_M, random weights.

For machines with no 3B model at hand: the compute per token is that of the real model (same layer
count, widths, heads, KV heads, vocabulary size and block formats), the text it writes is meaningless.
It is built once (about 2 GB, a minute or two) and cached under ``<cache_dir>/synthetic/``.

Tokenizer: the bundled SmolLM2's (gpt2 BPE, 49,152 tokens, ChatML template), padded with unused
placeholder tokens to Llama 3.2's vocabulary of 128,256 so the embedding and output matrices have the
real sizes. Every output labels it ``SYNTHETIC_LABEL``.

Weights: Q4_K blocks (144 bytes per 256 weights) and Q6_K blocks (210 bytes) of random bytes, with
their fp16 super-block scales overwritten by small finite values, so no NaN/Inf enters the math. As in
llama.cpp's Q4_K_M mix, ``attn_v`` and ``ffn_down`` use Q6_K in the first and last eighth of the layers
and every third layer between, and the (tied) token embedding is Q6_K; the rest is Q4_K.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nanobot.base.errors import MissingDependency, ModelError

SYNTHETIC_LABEL = "SYNTHETIC 3B (Llama-3.2-3B shapes, Q4_K_M mix, random weights; SmolLM2 tokenizer padded to 128256)"
FILE_NAME = "synthetic-llama3.2-3b-q4_k_m-v1.gguf"

SHAPES = dict(n_layer=28, d_model=3072, d_ffn=8192, n_head=24, n_head_kv=8, n_vocab=128256,
              head_dim=128, rope_base=500000.0, rms_eps=1e-5, n_ctx_train=131072)
QK_K = 256
BLOCK_BYTES = {"Q4_K": 144, "Q6_K": 210}

Progress = Callable[[int, int], None]  # (done, total) tensors


def _gguf():
    try:
        import gguf
    except ImportError:
        raise MissingDependency("building the synthetic model needs the gguf package; run: pip install 'nanobot-local[bench]' (or pip install gguf)") from None
    return gguf


def synthetic_path(cache_dir: Path) -> Path:
    return Path(cache_dir) / "synthetic" / FILE_NAME


def ensure_synthetic_3b(cache_dir: Path, tokenizer_gguf: Path, progress: Progress | None = None) -> Path:
    """The cached synthetic 3B GGUF, built on first use from ``tokenizer_gguf``'s tokenizer."""
    from nanobot.base.atomic import _fsync_dir

    path = synthetic_path(cache_dir)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial")
    try:
        write_synthetic(tmp, tokenizer_gguf, progress)
        tmp.replace(path)  # atomic: a half-built file is never taken for the model
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    return path


def _more_bits(layer: int, n_layer: int) -> bool:
    """llama.cpp's ``use_more_bits`` rule for Q4_K_M's Q6_K layers."""
    return layer < n_layer // 8 or layer >= 7 * n_layer // 8 or (layer - n_layer // 8) % 3 == 2


def tensor_plan(s: dict = SHAPES) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, numpy shape = (rows, cols), type) for every tensor, in file order."""
    d, f, kv = s["d_model"], s["d_ffn"], s["n_head_kv"] * s["head_dim"]
    plan = [("token_embd.weight", (s["n_vocab"], d), "Q6_K")]
    for i in range(s["n_layer"]):
        big = "Q6_K" if _more_bits(i, s["n_layer"]) else "Q4_K"
        plan += [
            (f"blk.{i}.attn_norm.weight", (d,), "F32"),
            (f"blk.{i}.attn_q.weight", (d, d), "Q4_K"),
            (f"blk.{i}.attn_k.weight", (kv, d), "Q4_K"),
            (f"blk.{i}.attn_v.weight", (kv, d), big),
            (f"blk.{i}.attn_output.weight", (d, d), "Q4_K"),
            (f"blk.{i}.ffn_norm.weight", (d,), "F32"),
            (f"blk.{i}.ffn_gate.weight", (f, d), "Q4_K"),
            (f"blk.{i}.ffn_up.weight", (f, d), "Q4_K"),
            (f"blk.{i}.ffn_down.weight", (d, f), big),
        ]
    plan.append(("output_norm.weight", (d,), "F32"))
    return plan


def random_blocks(kind: str, rows: int, cols: int, rng) -> np.ndarray:  # noqa: F821
    """Random quantized blocks of ``kind`` with finite fp16 scales (weights of std ~0.02)."""
    import numpy as np

    nb = BLOCK_BYTES[kind]
    blocks = np.frombuffer(rng.bytes(rows * (cols // QK_K) * nb), dtype=np.uint8).copy()
    blocks = blocks.reshape(-1, nb)
    if kind == "Q4_K":  # d (fp16), dmin (fp16), scales[12], qs[128]
        d = rng.uniform(6e-5, 1.2e-4, len(blocks)).astype(np.float16)
        blocks[:, 0:2] = d.view(np.uint8).reshape(-1, 2)
        blocks[:, 2:4] = (d * np.float16(7.5)).view(np.uint8).reshape(-1, 2)
    else:  # Q6_K: ql[128], qh[64], scales[16] (int8), d (fp16)
        d = rng.uniform(1e-5, 2e-5, len(blocks)).astype(np.float16)
        blocks[:, 208:210] = d.view(np.uint8).reshape(-1, 2)
    return blocks.reshape(rows, -1)


def write_synthetic(out: Path, tokenizer_gguf: Path, progress: Progress | None = None,
                    shapes: dict | None = None, label: str = SYNTHETIC_LABEL) -> None:
    """Write the GGUF to ``out`` (``shapes`` defaults to Llama 3.2 3B's)."""
    import numpy as np

    gguf = _gguf()
    s = shapes or SHAPES
    reader = gguf.GGUFReader(str(tokenizer_gguf))
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name(label)
    writer.add_description("random weights: same compute as a 3B model, meaningless text")
    writer.add_context_length(s["n_ctx_train"])
    writer.add_embedding_length(s["d_model"])
    writer.add_block_count(s["n_layer"])
    writer.add_feed_forward_length(s["d_ffn"])
    writer.add_head_count(s["n_head"])
    writer.add_head_count_kv(s["n_head_kv"])
    writer.add_rope_dimension_count(s["head_dim"])
    writer.add_rope_freq_base(s["rope_base"])
    writer.add_layer_norm_rms_eps(s["rms_eps"])
    writer.add_vocab_size(s["n_vocab"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    _copy_tokenizer(reader, writer, s["n_vocab"])
    plan = tensor_plan(s)
    qt = gguf.GGMLQuantizationType
    for name, shape, kind in plan:
        if kind == "F32":
            writer.add_tensor_info(name, shape, np.dtype(np.float32), shape[0] * 4)
        else:
            rows, cols = shape
            nbytes = rows * cols // QK_K * BLOCK_BYTES[kind]
            writer.add_tensor_info(name, (rows, nbytes // rows), np.dtype(np.uint8), nbytes,
                                   raw_dtype=qt[kind])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    rng = np.random.default_rng(0)
    for i, (_name, shape, kind) in enumerate(plan):
        if kind == "F32":
            writer.write_tensor_data(np.ones(shape, dtype=np.float32))
        else:
            writer.write_tensor_data(random_blocks(kind, shape[0], shape[1], rng))
        if progress:
            progress(i + 1, len(plan))
    writer.close()


def _copy_tokenizer(reader, writer, n_vocab: int) -> None:
    """Copy the tokenizer and chat template; pad the vocabulary with unused tokens."""
    gguf = _gguf()
    f = reader.fields

    def value(key):
        if key not in f:
            raise ModelError(f"{reader.path}: no {key}; pick a GGUF with a gpt2/llama tokenizer")
        return f[key].contents()

    tokens = list(value("tokenizer.ggml.tokens"))
    types = list(value("tokenizer.ggml.token_type"))
    if len(tokens) > n_vocab:
        raise ModelError(f"tokenizer of {reader.path} has {len(tokens)} tokens, more than {n_vocab}")
    pad = n_vocab - len(tokens)
    tokens += [f"<|synthetic_pad_{i}|>" for i in range(pad)]
    types += [int(gguf.TokenType.UNUSED)] * pad
    writer.add_tokenizer_model(value("tokenizer.ggml.model"))
    if "tokenizer.ggml.pre" in f:
        writer.add_tokenizer_pre(value("tokenizer.ggml.pre"))
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    if "tokenizer.ggml.merges" in f:
        writer.add_token_merges(list(value("tokenizer.ggml.merges")))
    for key, add in (("bos_token_id", writer.add_bos_token_id), ("eos_token_id", writer.add_eos_token_id),
                     ("unknown_token_id", writer.add_unk_token_id),
                     ("padding_token_id", writer.add_pad_token_id)):
        if f"tokenizer.ggml.{key}" in f:
            add(int(value(f"tokenizer.ggml.{key}")))
    writer.add_add_bos_token(bool(f["tokenizer.ggml.add_bos_token"].contents())
                             if "tokenizer.ggml.add_bos_token" in f else False)
    if "tokenizer.chat_template" in f:
        writer.add_chat_template(value("tokenizer.chat_template"))
