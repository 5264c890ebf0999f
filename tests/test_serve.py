"""``nanobot serve`` and the first-batch self-check (``backends/repack.py``, ``backends/batchprobe.py``)
with the real bundled model: the weight-repacking decision reaches llama.cpp's model parameters when
the server loads (on AMX builds a repacked model's first multi-token batch crashes the server), a
build that crashes on a first batch is one line naming the setting instead of a SIGSEGV, an automatic
choice falls back, and the verdict is kept per build. The crash is injected in the probe's child
(``NANOBOT_FAULT``), as on a machine whose llama.cpp build cannot run the batch."""

from __future__ import annotations

import json

import pytest

from nanobot.backends.batchprobe import cache_path
from nanobot.backends.repack import amx_build
from nanobot.config import ModelSettings
from nanobot.models import ResolvedModel

pytestmark = pytest.mark.slow


# a chat that only loads the model and answers: no observation or memory work left at its exit
QUIET = {"NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_MEMORY__ENABLED": "false"}


@pytest.fixture
def probe_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg"


def _loads_seen(monkeypatch) -> list[bool]:
    """``use_extra_bufts`` of every model llama.cpp is asked to load from now on."""
    import llama_cpp._internals as internals

    seen: list[bool] = []
    real = internals.llama_cpp.llama_model_load_from_file

    def spy(path, params):
        seen.append(bool(params.use_extra_bufts))
        return real(path, params)

    monkeypatch.setattr(internals.llama_cpp, "llama_model_load_from_file", spy)
    return seen


@pytest.mark.parametrize("repack", [False, True, None])
def test_serve_loads_the_model_with_nanobots_repacking(bundled, probe_cache, monkeypatch, repack):
    from nanobot.backends.serve import server_app

    seen = _loads_seen(monkeypatch)
    served = server_app(ResolvedModel("smollm2", bundled, ModelSettings(repack=repack, n_ctx=512)), n_threads=1)
    want = (not amx_build()) if repack is None else repack
    assert seen == [want] and served.repack is want
    assert served.n_ctx == 512 and served.n_threads == 1 and served.alias == "smollm2"


def test_a_build_that_crashes_on_a_first_batch_is_one_line(cli, probe_cache):
    r = cli("chat", input="hi\n", env=QUIET | {"NANOBOT_FAULT": "batch-probe", "XDG_CACHE_HOME": str(probe_cache)})
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("Error: llama.cpp crashed (SIGKILL) evaluating a first batch of ")
    assert "rebuild llama-cpp-python" in lines[0]


def test_a_tokenizer_only_load_names_the_crash_too(cli, probe_cache):
    """``nanobot prompt`` loads only the vocabulary, which a broken build can crash on as well."""
    r = cli("prompt", input="", env=QUIET | {"NANOBOT_FAULT": "batch-probe", "XDG_CACHE_HOME": str(probe_cache)})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr[-2000:]
    assert "llama.cpp crashed" in r.stderr and "Traceback" not in r.stderr


def test_serve_names_the_crash_too(cli, probe_cache):
    r = cli("serve", "--port", "1", input="", env=QUIET | {"NANOBOT_FAULT": "batch-probe", "XDG_CACHE_HOME": str(probe_cache)})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "llama.cpp crashed" in r.stderr and "Traceback" not in r.stderr


def test_an_automatic_repack_that_crashes_falls_back_and_the_verdict_is_kept(cli, probe_cache):
    env = QUIET | {"NANOBOT_FAULT": "batch-probe-repack", "XDG_CACHE_HOME": str(probe_cache)}
    r = cli("chat", input="hi\n", env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    verdicts = sorted(json.loads(cache_path().read_text()).values())
    assert verdicts == (["ok"] if amx_build() else ["crash:SIGKILL", "ok"])
    # kept per build: a later start does not probe again (the fault would fire in a new probe)
    r = cli("chat", input="hi\n", env=QUIET | {"NANOBOT_FAULT": "batch-probe", "XDG_CACHE_HOME": str(probe_cache)})
    assert r.returncode == 0, r.stderr[-2000:]


def test_a_forced_repack_that_crashes_does_not_fall_back(cli, home, probe_cache):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[models.smollm2]\nrepack = true\n")
    r = cli("chat", input="hi\n", env=QUIET | {"NANOBOT_FAULT": "batch-probe-repack", "XDG_CACHE_HOME": str(probe_cache)})
    assert r.returncode == 2 and "set repack = false under [models.smollm2] in config.toml" in r.stderr, r.stderr
