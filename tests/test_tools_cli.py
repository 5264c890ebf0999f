"""``nanobot tools run NAME 'JSON'``: one call run as the model's would be, through the real CLI."""

from __future__ import annotations

import json


def test_run_writes_reads_and_prints_safely(cli, home):
    r = cli("tools", "run", "write_file", json.dumps({"path": "notes/a.txt", "content": "hi [/] \x1b[31mred\n"}))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "created notes/a.txt (16 chars)\n"
    assert (home / "workspace" / "notes" / "a.txt").read_text() == "hi [/] \x1b[31mred\n"
    r = cli("tools", "run", "read_file", '{"path": "notes/a.txt"}')
    assert r.returncode == 0, r.stderr
    assert r.stdout == "notes/a.txt lines 1-1 of 1\nhi [/] \\x1b[31mred\n" and "\x1b" not in r.stdout


def test_run_exit_codes(cli):
    r = cli("tools", "run", "read_file", '{"path": "missing.txt"}')
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "Error: file 'missing.txt' does not exist; list_dir shows what is there\n"
    for args, why in [(("run", "read_file", "{oops"), "not valid JSON"),
                      (("run", "read_file", '{"path": "a", "extra": 1}'), "extra: Extra inputs are not permitted"),
                      (("run", "no_such_tool", "{}"), "tool 'no_such_tool' does not exist"),
                      (("run", "read_file"), "tools run takes a tool name and one JSON argument")]:
        r = cli("tools", *args)
        assert r.returncode == 2 and r.stderr.startswith("Error: ") and why in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_run_follows_the_permission_and_confinement_rules(cli, home):
    r = cli("tools", "run", "exec", '{"command": "echo hello"}')
    assert r.returncode == 1 and "exec refused: 'echo hello' is not in tools.exec_allow" in r.stderr
    r = cli("tools", "run", "exec", '{"command": "echo hello"}', env={"NANOBOT_TOOLS__EXEC_ALLOW": '["echo"]'})
    assert (r.returncode, r.stdout) == (0, "exit 0\nhello\n")
    r = cli("tools", "run", "write_file", '{"path": ".git/config", "content": "x"}')
    assert r.returncode == 1 and "refused: it is inside version-control metadata" in r.stderr
    r = cli("tools", "run", "read_file", '{"path": "/etc/passwd"}')
    assert r.returncode == 1 and "is outside the workspace" in r.stderr
    r = cli("tools", "run", "read_file", '{"path": "x"}', env={"NANOBOT_TOOLS__ENABLED": '["list_dir"]'})
    assert r.returncode == 2 and "tool 'read_file' is disabled" in r.stderr


def test_list_and_schema_still_work(cli):
    r = cli("tools")
    assert r.returncode == 0 and "read_file" in r.stdout and "web_fetch" in r.stdout
    r = cli("tools", "read_file")
    assert r.returncode == 0 and json.loads(r.stdout)["name"] == "read_file"
    r = cli("tools", "--json")
    assert r.returncode == 0 and {t["name"] for t in json.loads(r.stdout)} >= {"exec", "read_file"}
