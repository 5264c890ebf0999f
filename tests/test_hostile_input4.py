"""Bad input that gave a traceback or a cryptic error, each one line now (issue 76, classes 11-12).

- config.toml nested thousands deep (arrays, inline tables, dotted headers, dotted keys): one line
  naming the file, never a RecursionError;
- config.toml saved with a byte-order mark reads as written; one that is not UTF-8 names the line;
- SOUL.md / USER.md / MEMORY.md with bytes that are not UTF-8: ``nanobot prompt`` (as the chat's
  start) names the file and the line.
"""

from __future__ import annotations

import pytest

from nanobot.base.errors import ConfigError
from nanobot.config import load_settings
from nanobot.workspace import init_workspace
from tests.conftest import run_cli

DEEP = 5000
NESTED = {
    "arrays": "x = " + "[" * DEEP + "]" * DEEP + "\n",
    "inline tables": "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n",
    "dotted header": "[" + ".".join(["a"] * DEEP) + "]\nk = 1\n",
    "dotted key": ".".join(["a"] * DEEP) + " = 1\n",
    "a setting's value": "[tools]\nroots = " + "[" * DEEP + "]" * DEEP + "\n",
}


def write_config(home, data: bytes):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_bytes(data)
    return home / "config.toml"


@pytest.mark.parametrize("kind", list(NESTED))
def test_a_config_nested_thousands_deep_is_one_line(home, kind):
    path = write_config(home, NESTED[kind].encode())
    with pytest.raises(ConfigError) as err:
        load_settings(home)
    message = str(err.value)
    assert str(path) in message and "levels deep" in message and "\n" not in message and len(message) < 300


def test_the_cli_says_one_line_for_a_deep_config(home):
    write_config(home, NESTED["arrays"].encode())
    r = run_cli("tools", home=home)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "config.toml" in r.stderr and "levels deep" in r.stderr


def test_a_config_with_a_byte_order_mark_reads_as_written(home):
    write_config(home, "\ufeff# saved by Notepad\n[tools]\nexec_timeout = 7\n".encode())
    assert load_settings(home).tools.exec_timeout == 7


def test_a_config_that_is_not_utf8_names_the_line(home):
    path = write_config(home, "[tools]\nexec_timeout = 7\n# caf\u00e9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"not UTF-8 \(line 3, column 6: byte 0xe9\); re-save") as err:
        load_settings(home)
    assert str(path) in str(err.value)


def test_nanobot_prompt_names_the_file_and_line_that_is_not_utf8(home):
    ws = load_settings(home).workspace
    init_workspace(ws)
    (ws / "USER.md").write_bytes("# User\n\n- Name: Ada\n- Likes: caf\u00e9\n".encode("latin-1"))
    (ws / "MEMORY.md").write_bytes(b"# Memory\n- fine\n- also \xff here\n")
    r = run_cli("prompt", home=home)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "USER.md is not valid UTF-8 (line 4, column 13: byte 0xe9)" in r.stderr, r.stderr
    assert "MEMORY.md is not valid UTF-8 (line 3, column 8: byte 0xff)" in r.stderr, r.stderr
    assert "SOUL.md" not in r.stderr
