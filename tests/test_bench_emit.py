"""bench/figures.py ``emit``: the JSON every bench script prints, and writes (atomically) when asked."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("bench_figures", Path(__file__).parent.parent / "bench" / "figures.py")
figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures)


def test_prints_the_json_and_writes_nothing_without_a_path(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert figures.emit({"a": [1, 2]}) == json.dumps({"a": [1, 2]}, indent=2)
    assert json.loads(capsys.readouterr().out) == {"a": [1, 2]}
    assert not list(tmp_path.iterdir())


def test_writes_the_file_with_its_folder_and_still_prints(tmp_path, capsys):
    out = tmp_path / "results" / "x.json"
    figures.emit({"n": 3}, out, indent=1)
    assert out.read_text() == '{\n "n": 3\n}\n'
    assert capsys.readouterr().out == '{\n "n": 3\n}\n'
    figures.emit({"n": 4}, str(out), echo=False)
    assert json.loads(out.read_text()) == {"n": 4} and capsys.readouterr().out == ""


def test_a_write_that_fails_leaves_the_old_result_whole(tmp_path, monkeypatch):
    out = tmp_path / "x.json"
    out.write_text('{"old": true}\n')

    def boom(src, dst, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        figures.emit({"new": True}, out, echo=False)
    assert out.read_text() == '{"old": true}\n' and [p.name for p in tmp_path.iterdir()] == ["x.json"]
