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
