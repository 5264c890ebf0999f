"""Every token's text is kept on disk per model file: a second load reads it instead of ~50k
detokenize calls, and a damaged entry is rebuilt, never an error."""

from __future__ import annotations

import pytest

from nanobot.backends import llama as llama_mod
from nanobot.backends import texts_cache
from nanobot.backends.llama import LlamaBackend, token_texts
from nanobot.config import ModelSettings
from nanobot.models import ResolvedModel


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def _backend(bundled) -> LlamaBackend:
    return LlamaBackend(ResolvedModel("smollm2", bundled, ModelSettings(n_ctx=256)), vocab_only=True)


def test_the_texts_are_stored_and_read_back(bundled, cache, monkeypatch):
    first = _backend(bundled)
    built = first._token_texts()
    assert built == token_texts(first.llm) and len(built) == first.llm._n_vocab
    assert texts_cache.cache_file(bundled).is_file()

    def never(llm):
        raise AssertionError("built again although the cache holds it")

    monkeypatch.setattr(llama_mod, "token_texts", never)
    assert _backend(bundled)._token_texts() == built


@pytest.mark.parametrize("damage", [b"not json", b"[\"a\", \"b\"]", b"{\"a\": 1}", b"\xff\xfe"])
def test_a_damaged_entry_is_rebuilt(bundled, cache, damage):
    backend = _backend(bundled)
    path = texts_cache.cache_file(bundled)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(damage)
    texts = backend._token_texts()
    assert len(texts) == backend.llm._n_vocab and texts == token_texts(backend.llm)
    assert texts_cache.load(bundled, backend.llm._n_vocab) == texts  # rewritten whole
