import pytest

from nanobot.base.errors import ConfigError
from nanobot.config import load_settings


def write_config(home, text):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def test_defaults(home):
    s = load_settings()
    assert s.home == home and s.model == "smollm2" and s.prompt.cap == 2000
    assert s.workspace == home / "workspace"


def test_file_then_env_override(home, monkeypatch):
    write_config(home, 'model = "big"\n[models.big]\npath = "/m/big.gguf"\nn_ctx = 8192\n[prompt]\ncap = 1500\n')
    s = load_settings()
    assert s.model == "big" and s.models["big"].n_ctx == 8192 and s.prompt.cap == 1500
    monkeypatch.setenv("NANOBOT_PROMPT__CAP", "1200")
    monkeypatch.setenv("NANOBOT_MODEL", "/other.gguf")
    s = load_settings()
    assert s.prompt.cap == 1200 and s.model == "/other.gguf"
    assert s.models["big"].n_ctx == 8192  # untouched by the env


@pytest.mark.parametrize("text, needle", [
    ("[prompt]\ncapp = 3\n", "unknown key 'prompt.capp'"),
    ("[models.x]\nn_ctx = 'big'\n", "models.x.n_ctx"),
    ("[models.x]\ntype_v = 'q8_0'\n", "needs flash_attn = true"),
    ("[models.x]\nn_batch = 256\nn_ubatch = 512\n", "n_ubatch (512) must not exceed n_batch (256)"),
    ("[models.x]\ntype_k = 'q9'\n", "models.x.type_k"),
    ("model = [\n", "not valid TOML"),
])
def test_bad_config_is_one_line_naming_the_key(home, text, needle):
    write_config(home, text)
    with pytest.raises(ConfigError) as e:
        load_settings()
    msg = str(e.value)
    assert needle in msg and "config.toml" in msg and "\n" not in msg


def test_quantized_v_with_flash_attn_is_fine(home):
    write_config(home, "[models.x]\npath='/x.gguf'\ntype_k='q8_0'\ntype_v='q8_0'\nflash_attn=true\n")
    assert load_settings().models["x"].type_v == "q8_0"
