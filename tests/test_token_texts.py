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


def test_warm_decision_builds_the_first_reply_token_mask(model):
    """The session start builds the opening mask the first declined reply needs (a scan of the
    vocabulary, 0.11 s on the 1.5B idle, else paid between Enter and the first token); the reply
    uses that mask, not a new one."""
    from nanobot.backends.base import Message
    from nanobot.tools.templatecalls import NO_OPENING

    model._ban_masks.pop(NO_OPENING, None)
    model.warm_decision(NO_OPENING)
    built = model._ban_masks[NO_OPENING][""]
    assert len(built) and all(model._token_texts()[i].lstrip().startswith(NO_OPENING) for i in built)
    "".join(model.stream([Message(role="user", content="hi")], max_tokens=2, temperature=0.0, no_opening=NO_OPENING))
    assert model._ban_masks[NO_OPENING][""] is built
