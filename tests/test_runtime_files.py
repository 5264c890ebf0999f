"""Files the runtime owns (issue 41, classes 4 and 5): no symlink is written through, no FIFO hangs.

A symlink where ``audit/ledger.jsonl``, a transcript, ``logs/mcp-NAME.log`` or a lock file belongs
used to take the append to the file it points at (outside the home); a FIFO where
``sessions/now-scopes.json``, an import journal, an imported file or a file ``write_file``
overwrites belongs used to block forever. Both are refused at once, in one line, by the one helper
(``nanobot/base/regular.py``), and an AST walk keeps every other raw ``open(``/``read_text(``/
``write_text(`` out of ``nanobot/`` (a small allow-list names why each remaining one is safe).
"""

from __future__ import annotations

import ast
import json
import os
import threading
from datetime import datetime
from pathlib import Path

import pytest

from nanobot.base.atomic import append_line, atomic_write
from nanobot.base.errors import StorageError, ToolError
from nanobot.base.filelock import file_lock
from nanobot.base.pidlock import acquire
from nanobot.base.regular import NotRegularFile, open_append
from nanobot.config import load_settings
from nanobot.core.transcript import Transcript
from nanobot.importing.formats import ImportFormatError
from nanobot.importing.importer import import_file, recover
from nanobot.observer import nowscope
from nanobot.tools.base import ToolContext
from nanobot.tools.files import WriteFile
from nanobot.vault import ledger
from tests.test_hostile_hangs import nanobot

PACKAGE = Path(__file__).resolve().parent.parent / "nanobot"


def within(seconds: float, fn, *unblock: Path):
    """``fn()``'s result or exception; a call still blocked after ``seconds`` fails the test (and
    the FIFOs in ``unblock`` get a writer so the blocked thread ends)."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        for fifo in unblock:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail(f"blocked for over {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def outside(tmp_path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("keep me\n")
    return victim


def link(path: Path, target: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


# -- symlinks ---------------------------------------------------------------------------------------

def test_the_ledger_is_not_appended_through_a_symlink(home, outside):
    ws = load_settings(home).workspace
    link(ledger.ledger_path(ws), outside)
    entry = ledger.LedgerEntry(ts=ledger.now_utc(), action="create", path="a.md", summary="A",
                               change_summary="new", reason="test", before=None, after="x")
    with pytest.raises(NotRegularFile, match="symbolic link"):
        ledger.append(ws, entry)
    assert outside.read_text() == "keep me\n"


def test_a_transcript_is_not_appended_through_a_symlink(home, outside):
    path = link(load_settings(home).sessions_dir / "2026-01-01-0000-abc.jsonl", outside)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        Transcript(path).append("user", "hello")
    assert outside.read_text() == "keep me\n"


def test_a_real_mcp_servers_log_is_not_appended_through_a_symlink(home, tmp_path, outside):
    from nanobot.mcptools.feature import list_tools, servers_for
    from tests.mcpserver import stdio_server

    link(home / "logs" / "mcp-demo.log", outside)
    settings = load_settings(home, mcp={"timeout_s": 20, "servers": {"demo": stdio_server(tmp_path / "c")}})
    tools, notices = list_tools(servers_for(settings))
    assert not any(n.startswith("demo.") for n in tools)
    assert len(notices) == 1 and "symbolic link" in notices[0] and "\n" not in notices[0]
    assert outside.read_text() == "keep me\n"


@pytest.mark.parametrize("write", [
    lambda p: append_line(p, "x"),
    lambda p: open_append(p).close(),  # logs/mcp-NAME.log, the observer's job log
    lambda p: atomic_write(p, "x"),
    lambda p: file_lock(p).__enter__(),
    lambda p: acquire(p.parent, p.name.removesuffix(".lock")),
], ids=["append_line", "open_append", "atomic_write", "file_lock", "pidlock"])
def test_no_writer_follows_or_replaces_a_symlink(tmp_path, outside, write):
    path = link(tmp_path / "home" / "thing.lock", outside)
    with pytest.raises(NotRegularFile, match="symbolic link") as e:
        write(path)
    assert outside.read_text() == "keep me\n"
    assert path.is_symlink() and "\n" not in str(e.value)


# -- FIFOs ------------------------------------------------------------------------------------------

def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def test_write_file_over_a_fifo_is_refused_at_once(home, tmp_path):
    settings = load_settings(home, tools={"roots": [str(tmp_path / "w")]})
    settings.workspace.mkdir(parents=True)
    target = fifo(tmp_path / "w" / "pipe.txt")
    with pytest.raises(ToolError, match="FIFO") as e:
        within(10, lambda: WriteFile().run(WriteFile.Args(path=str(target), content="x"),
                                            ToolContext(settings=settings)), target)
    assert "\n" not in str(e.value)


def test_now_scopes_as_a_fifo_never_blocks(tmp_path):
    sessions = tmp_path / "sessions"
    pipe = fifo(sessions / nowscope.FILE)
    assert within(10, lambda: nowscope.load(sessions), pipe) == {}


def test_nanobot_prompt_with_now_scopes_as_a_fifo_answers(home):
    fifo(load_settings(home).sessions_dir / nowscope.FILE)
    out = nanobot(home, "prompt", limit=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_importing_a_fifo_is_a_one_line_error(home, tmp_path):
    source = fifo(tmp_path / "chats.jsonl")
    with pytest.raises(ImportFormatError, match="FIFO") as e:
        within(10, lambda: import_file(load_settings(home), source), source)
    assert "\n" not in str(e.value)


def test_a_fifo_import_journal_is_a_one_line_error(home):
    sessions = load_settings(home).sessions_dir
    journal = fifo(sessions / ".import-x.journal")
    with pytest.raises(StorageError, match="FIFO") as e:
        within(10, lambda: recover(sessions), journal)
    assert "\n" not in str(e.value)


def test_a_fifo_transcript_does_not_stop_an_import(home, tmp_path):
    settings = load_settings(home)
    pipe = fifo(settings.sessions_dir / "2026-01-01-0000-abc.jsonl")
    source = tmp_path / "chats.json"
    source.write_text(json.dumps([{"role": "user", "content": "hi", "ts": datetime(2026, 2, 1).isoformat()},
                                  {"role": "assistant", "content": "hello"}]))
    written = within(20, lambda: import_file(settings, source), pipe)
    assert len(written) == 1 and written[0].is_file()


# -- the class: no raw file access outside the helper ---------------------------------------------

RAW_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes"}
# (module, function): why a raw open there is safe
ALLOWED = {
    ("base/cores.py", "_snapshot"): "/proc/stat, the kernel's own file",
    ("bench/figures.py", "cpu_model"): "/proc/cpuinfo, the kernel's own file",
    ("cli/signals.py", "_raise"): "os.devnull",
    ("backends/llama.py", "_quiet_stderr"): "os.devnull",
    ("catalogue/assemble.py", "*"): "slices downloaded into a fresh private temp folder",
    ("base/beneath.py", "*"): "folders only (O_DIRECTORY | O_NOFOLLOW below a root), for atomic_write",
}


def _is_raw(call: ast.Call) -> bool:
    f = call.func
    return ((isinstance(f, ast.Name) and f.id == "open")
            or (isinstance(f, ast.Attribute) and f.attr in RAW_METHODS)
            or (isinstance(f, ast.Attribute) and f.attr == "open"
                and isinstance(f.value, ast.Name) and f.value.id in ("os", "io")))


def _calls(node: ast.AST, where: str):
    """(innermost enclosing function, call) for every call under ``node``."""
    for child in ast.iter_child_nodes(node):
        inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else where
        if isinstance(child, ast.Call):
            yield where, child
        yield from _calls(child, inner)


def raw_accesses() -> list[tuple[str, str, int, str]]:
    """(module, function, line, call) of every raw file access in nanobot/ outside the helper."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ("base/regular.py", "base/atomic.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [(rel, fn, call.lineno, ast.unparse(call.func)) for fn, call in _calls(tree, "<module>")
                  if _is_raw(call)]
    return found


def test_no_raw_file_access_outside_the_one_helper():
    bad = [f"{rel}:{line} {call}( in {fn}" for rel, fn, line, call in raw_accesses()
           if (rel, fn) not in ALLOWED and (rel, "*") not in ALLOWED]
    assert not bad, "use nanobot.base.regular / atomic instead:\n" + "\n".join(bad)
    used = {(rel, fn) for rel, fn, _, _ in raw_accesses()}
    assert not [k for k in ALLOWED if k[1] != "*" and k not in used], "a stale allow-list entry"


def test_the_walk_finds_a_raw_open(tmp_path, monkeypatch):
    """The walk itself can fail: a module with a raw open is reported."""
    pkg = tmp_path / "nanobot"
    (pkg / "base").mkdir(parents=True)
    (pkg / "x.py").write_text("def f(p):\n    return open(p).read() + p.read_text()\n")
    monkeypatch.setitem(globals(), "PACKAGE", pkg)
    assert sorted((r, f, c) for r, f, _, c in raw_accesses()) == [("x.py", "f", "open"),
                                                                   ("x.py", "f", "p.read_text")]
