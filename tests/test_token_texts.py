"""Every token's text, as the call decision and the opening ban read it (``backends.llama.token_texts``),
on the real bundled model: what ``detokenize`` gives one token at a time, including tokens longer
than llama-cpp-python's 32-byte buffer (its ``detokenize`` gave those as "")."""

from __future__ import annotations

import pytest

from nanobot.backends.llama import token_texts

pytestmark = pytest.mark.slow


def test_token_texts_match_detokenize_and_keep_long_tokens(model):
    llm = model.llm
    texts = token_texts(llm)
    assert len(texts) == llm._n_vocab
    old = [llm.detokenize([i], special=True).decode("utf-8", "replace") for i in range(llm._n_vocab)]
    differ = [i for i in range(len(old)) if old[i] != texts[i]]
    assert differ and all(old[i] == "" and len(texts[i].encode()) > 32 for i in differ)
    assert "<|im_start|>" in texts and "<|im_end|>" in texts  # special tokens spelled out
    assert model._token_texts() == texts
