"""``nanobot serve`` and the first-batch self-check (``backends/repack.py``, ``backends/batchprobe.py``)
with the real bundled model: the weight-repacking decision reaches llama.cpp's model parameters when
the server loads (on AMX builds a repacked model's first multi-token batch crashes the server), a
build that crashes on a first batch is one line naming the setting instead of a SIGSEGV, an automatic
choice falls back, and the verdict is kept per build. The crash is injected in the probe's child
(``NANOBOT_FAULT``), as on a machine whose llama.cpp build cannot run the batch."""

from __future__ import annotations

import json

import pytest

from nanobot.backends import repackspeed
from nanobot.backends.batchprobe import cache_path, probe_key
from nanobot.backends.repack import amx_build
from nanobot.base.errors import ModelError
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


def _timings(model: ResolvedModel, on: dict, off: dict) -> None:
    """Keep these as the measured repacking timings of ``model`` (``backends/repackspeed.py``)."""
    cache = repackspeed.cache_file()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({probe_key(model, True): on, probe_key(model, False): off}))


FAST, SLOW = {"load": 0.1, "batch": 0.1}, {"load": 1.0, "batch": 1.0}


@pytest.mark.parametrize("repack", [False, True, None])
def test_serve_loads_the_model_with_nanobots_repacking(bundled, probe_cache, monkeypatch, repack):
    from nanobot.backends.serve import server_app

    model = ResolvedModel("smollm2", bundled, ModelSettings(repack=repack, n_ctx=512))
    _timings(model, on=FAST, off=SLOW)
    seen = _loads_seen(monkeypatch)
    if repack is True and amx_build():  # forced on where repacking crashes a first batch (SIGSEGV, SIGILL)
        try:
            served = server_app(model, n_threads=1)
        except ModelError as e:  # the one-line error that names the setting, and no load
            assert "set repack = false under [models.smollm2]" in str(e) and not seen
            return
    else:
        served = server_app(model, n_threads=1)
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


@pytest.mark.skipif(amx_build(), reason="repacking is off on AMX builds, nothing is timed")
@pytest.mark.parametrize("faster", [True, False])
def test_an_automatic_repack_stays_on_only_where_it_is_faster(bundled, probe_cache, monkeypatch, faster):
    """Repacked layouts are slower on some CPUs (an AVX-512 EPYC: slower load and prefill)."""
    from nanobot.backends.llama import LlamaBackend

    model = ResolvedModel("smollm2", bundled, ModelSettings(n_ctx=512))
    _timings(model, on=FAST if faster else SLOW, off=SLOW if faster else FAST)
    seen = _loads_seen(monkeypatch)
    LlamaBackend(model)
    assert seen == [faster]
    # a setting the user chose is not second-guessed
    seen.clear()
    LlamaBackend(ResolvedModel("smollm2", bundled, ModelSettings(n_ctx=512, repack=True)))
    assert seen == [True]


@pytest.mark.skipif(amx_build(), reason="repacking is off on AMX builds, nothing is timed")
def test_the_repacking_timings_are_measured_once_in_child_processes(bundled, probe_cache):
    model = ResolvedModel("smollm2", bundled, ModelSettings(n_ctx=512))
    pays = repackspeed.repack_pays(model, threads=1)
    kept = json.loads(repackspeed.cache_file().read_text())
    on, off = kept[probe_key(model, True)], kept[probe_key(model, False)]
    assert all(t["load"] > 0 and t["batch"] > 0 for t in (on, off))
    assert pays is (repackspeed.cost(on) < repackspeed.cost(off))
    assert repackspeed.repack_pays(model, threads=1) is pays  # read back, not measured again


@pytest.mark.skipif(amx_build(), reason="repacking is off on AMX builds, nothing is timed")
def test_a_timing_child_that_crashes_decides_nothing(bundled, probe_cache, monkeypatch):
    model = ResolvedModel("smollm2", bundled, ModelSettings(n_ctx=512))
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text(json.dumps({probe_key(model, True): "ok"}))  # the first batch passed before
    monkeypatch.setenv("NANOBOT_FAULT", "batch-probe")
    assert repackspeed.repack_pays(model, threads=1) is True
    assert not repackspeed.cache_file().exists()
