"""The chat's model load on a thread beside the features' imports (``runtime.load_model_importing``):
the same model and the same one-line errors as ``load_model``, raised in the caller's thread."""

import sys

import pytest

from nanobot.base.errors import ModelError
from nanobot.config import load_settings
from nanobot.runtime import FEATURES, load_model, load_model_importing


def test_it_loads_the_bundled_model_and_imports_the_switched_on_features(home):
    settings = load_settings()
    model = load_model_importing(settings)
    assert model.count_tokens("hello world") > 0 and model.n_ctx > 0
    assert all(spec.partition(":")[0] in sys.modules for on, spec in FEATURES if on(settings))


@pytest.mark.parametrize("content", [b"GGUF" + b"\0" * 60, b"not a model"])
def test_a_broken_file_raises_the_loads_own_error_here(home, tmp_path, content):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(content)
    settings = load_settings()
    with pytest.raises(ModelError) as direct:
        load_model(settings, str(bad))
    with pytest.raises(ModelError) as overlapped:
        load_model_importing(settings, str(bad))
    assert str(overlapped.value) == str(direct.value) and "broken.gguf" in str(direct.value)


def test_the_first_turns_modules_and_token_texts_are_ready_when_the_load_returns(home, tmp_path, monkeypatch):
    from nanobot.backends import llama as llama_mod
    from nanobot.backends import texts_cache
    from nanobot.runtime import FIRST_TURN

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    settings = load_settings()
    built = load_model_importing(settings)._token_texts()  # the first start builds and stores them

    def never(llm):
        raise AssertionError("built again although the cache holds them")

    monkeypatch.setattr(llama_mod, "token_texts", never)
    monkeypatch.setattr(texts_cache, "load", lambda *a: pytest.fail("read after the load, not beside it"))
    again = load_model_importing(settings)
    assert again._texts == built  # read while the model loaded
    assert all(name in sys.modules for name in FIRST_TURN)


def test_token_texts_of_another_vocabulary_read_beside_the_load_are_not_taken(home, tmp_path, monkeypatch):
    from nanobot.backends import texts_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    settings = load_settings()
    path = texts_cache.cache_file(load_model(settings).resolved.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('["a", "b"]')
    model = load_model_importing(settings)
    assert model._texts is None  # not this model's: the first decision builds them as before
    assert model._ban_masks == {}  # nor masks built from them
    assert len(model._token_texts()) == model.llm._n_vocab


def test_the_first_reply_s_opening_mask_is_built_while_the_model_loads(home, tmp_path, monkeypatch):
    """The mask that keeps a reply after a declined call from opening one (a scan of the whole
    vocabulary) is built from the stored token texts while the model loads, not on the reply's path."""
    import time

    import numpy as np

    from nanobot import runtime
    from nanobot.backends.openban import OpeningBan
    from nanobot.tools.templatecalls import NO_OPENING

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    settings = load_settings()
    texts = load_model_importing(settings)._token_texts()  # stored by the first start
    load = runtime.load_model
    monkeypatch.setattr(runtime, "load_model", lambda *a, **k: (time.sleep(0.5), load(*a, **k))[1])  # a 1.5B's load
    model = load_model_importing(settings)
    masks = model._ban_masks[NO_OPENING]
    expected = OpeningBan(texts, NO_OPENING, 0).mask("")
    assert len(expected) > 0 and np.array_equal(masks[""], expected)
    assert model._opening_ban(NO_OPENING, 0)[0].mask("") is masks[""]  # the reply takes it as built


def test_the_cli_measures_other_processes_from_its_first_import():
    """The chat model's thread count reads what other processes did for at least 0.2 s from the
    import of ``base.cores`` (``model_threads``). Imported after the CLI's own imports (~0.2 s), the
    model's load waited out the rest of that window on every start; the CLI imports it first."""
    import subprocess

    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import nanobot.cli"], capture_output=True,
                         text=True, check=True).stderr
    done = [line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if "|" in line]
    assert done.index("nanobot.base.cores") < done.index("typer")  # before the first heavy import
