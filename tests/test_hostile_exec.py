"""exec under hostile commands: an allow-listed program's arguments, the files a test runner loads,
the environment, output that does not stop, and a child that outlives its command.

Each case runs the real programs in a real workspace, with a folder outside the roots holding a secret
(or a test that would leave a marker): the secret never shows and the marker is never written.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import tracemalloc

import pytest

from nanobot.base.errors import ToolError
from nanobot.config import load_settings
from nanobot.tools.base import ToolContext
from nanobot.tools.shell import Exec

PY = sys.executable
SECRET = "tok-5ecret-0utside"


@pytest.fixture
def make(home, tmp_path):
    """A piped-chat context (nobody to ask) with ``tools`` set; the workspace holds notes.txt, a
    link to the outside folder, and the outside folder a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")

    def build(**tools) -> ToolContext:
        settings = load_settings(home, tools=tools)
        settings.workspace.mkdir(parents=True, exist_ok=True)
        (settings.workspace / "notes.txt").write_text("a note\n")
        (settings.workspace / "out").symlink_to(outside)
        return ToolContext(settings=settings)
    build.outside = outside
    return build


def _refused(ctx, command: str) -> str:
    with pytest.raises(ToolError) as e:
        Exec().run(Exec.Args(command=command), ctx)
    text = str(e.value)
    assert "\n" not in text and SECRET not in text and "Traceback" not in text
    return text


def test_an_allowed_commands_paths_resolve_inside_the_roots(make):
    """``head``/``ls``/``cat`` allowed: a file in the workspace is read; an absolute path outside, a
    home path, ``..`` out of the root, /proc, a glued option value, a link out and a glob out are each
    refused in one line naming the argument, and none of them runs."""
    outside = make.outside
    ctx = make(exec_allow=["head", "ls", "cat"])
    assert Exec().run(Exec.Args(command="head -n 1 notes.txt"), ctx) == "exit 0\na note"
    hostile = {f"head {outside}/secret.txt": f"argument '{outside}/secret.txt' is outside",
               "ls /root": "argument '/root' is outside",
               "head -c 200 /proc/self/environ": "argument '/proc/self/environ' names /proc/",
               "cat ~/../../etc/passwd": "argument '",
               "ls ..": "argument '..' names",
               f"head -c100000 --bytes={outside}/secret.txt": f"argument '--bytes={outside}/secret.txt' names",
               f"head -c{outside}/secret.txt": f"argument '-c{outside}/secret.txt' names",
               "cat out/secret.txt": f"argument 'out/secret.txt' names {outside.resolve()}/secret.txt",
               "cat ../*/secret.txt": "argument '",
               "cat ou?/*": f"names {outside.resolve()}"}
    for command, why in hostile.items():
        text = _refused(ctx, command)
        assert why in text and "may name only paths inside the workspace and roots" in text, (command, text)


def test_an_argument_outside_asks_where_someone_can_be_asked(make):
    """In an interactive chat the same command asks first, saying why; a yes runs it as approved."""
    ctx = make(exec_allow=["cat"])
    asked: list[str] = []
    ctx.confirm = lambda q: asked.append(q) or False
    with pytest.raises(ToolError, match="declined"):
        Exec().run(Exec.Args(command="cat out/secret.txt"), ctx)
    assert "argument 'out/secret.txt' names" in asked[0] and "outside the workspace and roots" in asked[0]
    ctx.confirm = lambda q: True
    assert SECRET in Exec().run(Exec.Args(command="cat out/secret.txt"), ctx)


def test_an_allowed_command_sees_no_secret_in_its_environment(make, monkeypatch):
    """A token in nanobot's environment is not in an allow-listed command's (``env`` prints it all)."""
    monkeypatch.setenv("NANOBOT_TEST_API_TOKEN", SECRET)
    monkeypatch.setenv("HTTPS_PROXY", f"http://user:{SECRET}@proxy.invalid:3128")
    ctx = make(exec_allow=["env"])
    out = Exec().run(Exec.Args(command="env"), ctx)
    assert out.startswith("exit 0") and "PATH=" in out and SECRET not in out


@pytest.fixture
def pytest_ctx(make):
    """``python -m pytest`` allowed; a test outside the roots that leaves a marker when it runs."""
    ctx = make(exec_allow=[f"{PY} -m pytest"])
    evil = make.outside / "test_evil.py"
    marker = make.outside / "ran.txt"
    evil.write_text(f"def test_evil():\n    open({str(marker)!r}, 'w').write('ran')\n")
    (make.outside / "pytest.ini").write_text("[pytest]\n")
    return ctx, marker


def test_pytest_loads_no_test_config_or_conftest_from_outside_the_roots(pytest_ctx, tmp_path):
    """Test paths, ``--rootdir``, ``-c``, ``--confcutdir``, ``-o pythonpath`` outside the roots and a
    conftest.py in a folder above the workspace are each refused naming it; the marker never appears."""
    ctx, marker = pytest_ctx
    outside = marker.parent
    run = f"{PY} -m pytest -q -p no:cacheprovider"
    hostile = {f"{run} {outside}/test_evil.py": f"argument '{outside}/test_evil.py'",
               f"{run} out/test_evil.py": "argument 'out/test_evil.py' names",
               f"{run} --rootdir={outside}": f"argument '--rootdir={outside}'",
               f"{run} -c {outside}/pytest.ini": f"argument '{outside}/pytest.ini'",
               f"{run} --confcutdir=..": "argument '--confcutdir=..'",
               f"{run} -o 'pythonpath=. {outside}'": f"argument '{outside}'"}
    for command, why in hostile.items():
        assert why in _refused(ctx, command), command
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    assert f"pytest would load {tmp_path / 'conftest.py'}" in _refused(ctx, run)
    assert not marker.exists()


def test_pytest_inside_the_roots_runs(pytest_ctx):
    ctx, _ = pytest_ctx
    (ctx.settings.workspace / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    out = Exec().run(Exec.Args(command=f"{PY} -m pytest -q -p no:cacheprovider -p no:randomly test_ok.py"), ctx)
    assert out.startswith("exit 0") and "1 passed" in out, out


def test_output_is_bounded_while_it_streams(make):
    """64 MB of output: the first and last bytes are kept, the count between is said, and the call's
    memory stays a few hundred kilobytes (Python allocations, ``tracemalloc``) instead of the whole."""
    ctx = make(exec_allow=[PY])
    (ctx.settings.workspace / "flood.py").write_text(
        "import sys\nw = sys.stdout.buffer.write\nw(b'FIRST')\nfor _ in range(64):\n    w(b'0' * (1 << 20))\n"
        "w(b'LAST')\n")
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = Exec().run(Exec.Args(command=f"{PY} flood.py"), ctx)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    total = 64 * (1 << 20) + 9
    kept = len(out.encode()) - len("exit 0\n")
    assert out.startswith("exit 0\nFIRST000") and out.endswith("000LAST"), out[:40] + out[-40:]
    assert f"... {total - 15_000 - 4_000} bytes dropped ..." in out and kept < 20_000


@pytest.fixture
def leftover():
    """The ids of processes a test's command leaves behind in a session of their own, killed after."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        assert pid > 0
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


SPAWN = (f"import subprocess, sys, time\np = subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(30)'], "
         "start_new_session=True)\nprint(p.pid, flush=True)\n")


def test_a_child_left_in_its_own_session_does_not_hold_the_call(make, leftover):
    """A command that passes but leaves ``setsid sleep 30`` holding its output returns when it exits,
    with its exit status, not "timed out"; one that runs past the timeout is cut at the timeout, its
    leftover child notwithstanding, and says so."""
    ctx = make(exec_allow=[PY], exec_timeout=2)
    (ctx.settings.workspace / "spawn.py").write_text(SPAWN)
    start = time.monotonic()
    out = Exec().run(Exec.Args(command=f"{PY} spawn.py"), ctx)
    took = time.monotonic() - start
    leftover.append(int(out.splitlines()[1]))
    assert out.startswith("exit 0") and took < 1.5, (out, took)

    (ctx.settings.workspace / "hang.py").write_text(SPAWN + "time.sleep(30)\n")
    start = time.monotonic()
    with pytest.raises(ToolError, match=r"timed out after 2s") as e:
        Exec().run(Exec.Args(command=f"{PY} hang.py"), ctx)
    took = time.monotonic() - start
    leftover.append(int(str(e.value).split("output so far:\n")[1]))
    assert took < 3.5, took
