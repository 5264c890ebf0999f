"""``nanobot tools`` lists every tool once, through the features (``runtime.every_tool``): the
registry's, the MCP servers' and the coding session's, which the old second catalogue missed."""

from __future__ import annotations

import json

from tests.conftest import run_cli


def test_every_tool_is_listed_once_with_the_coding_tools(home):
    r = run_cli("tools", "--json", home=home)
    assert r.returncode == 0, r.stderr
    names = [row["name"] for row in json.loads(r.stdout)]
    assert len(names) == len(set(names))
    assert {"read_file", "exec", "new_change", "describe_change", "query_ancestor"} <= set(names)
    coding = {row["name"]: row for row in json.loads(r.stdout) if row["server"] == "coding session"}
    assert set(coding) == {"new_change", "describe_change", "query_ancestor"}
    assert not any(row["enabled"] for row in coding.values())  # the session's Agent offers them


def test_a_coding_tool_run_outside_a_session_says_where_it_works(home):
    r = run_cli("tools", "run", "new_change", "{}", home=home)
    assert r.returncode == 2
    assert "coding session only" in r.stderr and "Traceback" not in r.stderr
