"""A BERT sentence encoder in numpy: the same vectors as sentence-transformers, without torch.

Importing torch costs ~5 s, which is most of a cold ``nanobot memory search``. A MiniLM-sized
BERT (6 layers, 384 wide) is a few matrix products per layer, so numpy does a query in
milliseconds. This reads a sentence-transformers folder as it is -- ``model.safetensors`` (parsed
here: an 8-byte header length, a JSON header, raw little-endian arrays, memory-mapped),
``tokenizer.json`` (the ``tokenizers`` package, Rust, imports in ~50 ms), ``config.json``,
``sentence_bert_config.json`` and the pooling config -- and computes: embeddings + LayerNorm, then
per layer self-attention and a GELU feed-forward, each with a residual and LayerNorm; mean pooling
over the attention mask; L2 normalisation. ``supports(folder)`` says whether a folder is such a
model (BERT, mean pooling, normalised output); anything else goes to sentence-transformers.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from nanobot.base.regular import read_regular

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def supports(folder: Path) -> bool:
    try:
        config = json.loads(read_regular(folder / "config.json"))
        modules = json.loads(read_regular(folder / "modules.json"))
        pooling = json.loads(read_regular(folder / "1_Pooling" / "config.json"))
    except (OSError, ValueError):
        return False
    kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and kinds == ["Transformer", "Pooling", "Normalize"] and pooling.get("pooling_mode_mean_tokens")
            and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                                 "pooling_mode_mean_sqrt_len_tokens"))
            and (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file())


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = np.memmap(path, dtype=np.uint8, mode="r")
    (n,) = struct.unpack("<Q", bytes(data[:8]))
    header = json.loads(bytes(data[8:8 + n]))
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        arr = data[8 + n + a:8 + n + b].view(_DTYPES[info["dtype"]]).reshape(info["shape"])
        out[name.removeprefix("bert.")] = arr.astype(np.float32) if info["dtype"] == "F16" else arr
    return out


class NumpyBert:
    """``encode(texts) -> (n, dim)`` float32, rows L2-normalised."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer

        self.config = json.loads(read_regular(folder / "config.json"))
        st = json.loads(read_regular(folder / "sentence_bert_config.json")) \
            if (folder / "sentence_bert_config.json").is_file() else {}
        self.max_len = int(st.get("max_seq_length", 256))
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(self.max_len)
        self.tok.no_padding()
        self.w = read_safetensors(folder / "model.safetensors")
        self.heads = int(self.config["num_attention_heads"])
        self.layers = int(self.config["num_hidden_layers"])
        self.eps = float(self.config.get("layer_norm_eps", 1e-12))
        self.dim = int(self.config["hidden_size"])

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        encs = self.tok.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encs], kind="stable")  # like lengths together: less padding
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]
            width = max(len(encs[j].ids) for j in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.float32)
            for r, j in enumerate(idx):
                ids[r, :len(encs[j].ids)] = encs[j].ids
                mask[r, :len(encs[j].ids)] = 1.0
            out[idx] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        n, t = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = self._norm(x, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        hd = self.dim // self.heads
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q, k, v = (self._dense(x, p + f"attention.self.{name}").reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
                       for name in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(hd)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, self.dim)
            x = self._norm(self._dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = _gelu(self._dense(x, p + "intermediate.dense"))
            x = self._norm(self._dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7)."""
    z = np.abs(x) / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)
