"""``nanobot init`` (and the first chat) writes a commented config.toml with every section and its
defaults (``nanobot/configfile.py``); an existing one is never touched. Relative paths typed by the
user resolve against the directory nanobot was started in when it is inside the roots."""

from __future__ import annotations

import re
import tomllib

import pytest
from pydantic import BaseModel

from nanobot.base.errors import ToolError
from nanobot.config import Settings, load_settings
from nanobot.configfile import render_default
from nanobot.tools.base import ToolContext
from nanobot.tools.files import ReadFile, WriteFile


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if m := re.fullmatch(r"\[(\w+)\]", line):
            current = m.group(1)
            out[current] = []
        elif m := re.match(r"# (\w+) =", line):
            out.setdefault(current, []).append(m.group(1))
    return out


def uncomment(text: str) -> str:
    """Every ``# key = value`` line made live, except inside commented example tables (``# [models.x]``)
    and the roots example."""
    out, example = [], False
    for line in text.splitlines():
        if line.startswith("# ["):
            example = True
        elif line.startswith("["):
            example = False
        m = re.match(r"^# (\w+ = \S.*?)(   # .*)?$", line)
        out.append(m.group(1) if m and not example and not line.startswith("# roots") else line)
    return "\n".join(out) + "\n"


def test_every_section_and_setting_is_listed_and_the_file_changes_nothing(home):
    text = render_default()
    tomllib.loads(text)  # valid TOML as written
    listed = _sections(text)
    defaults = Settings(home=home)
    for name in Settings.model_fields:
        value = getattr(defaults, name)
        if isinstance(value, BaseModel):
            assert set(listed[name]) >= set(type(value).model_fields) - {"servers"}, name
    assert "model" in listed[""]
    assert '# roots = ["~/code", "~/notes"]' in text  # [tools] roots has an example
    # uncommenting every setting that has a value gives exactly the defaults
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(uncomment(text))
    assert load_settings(home) == load_settings(home.parent / "other-home").model_copy(update={"home": home})


def test_init_writes_it_once_and_never_overwrites(cli, home):
    r = cli("init")
    assert r.returncode == 0, r.stderr
    path = home / "config.toml"
    assert f"created {path}" in r.stdout and path.read_text() == render_default()
    path.write_text('model = "smollm2"\n[chat]\ntemperature = 0.1\n')
    again = cli("init")
    assert again.returncode == 0 and "config.toml" not in again.stdout
    assert path.read_text() == 'model = "smollm2"\n[chat]\ntemperature = 0.1\n'


def test_the_first_chat_leaves_a_config_to_edit(cli, home):
    r = cli("chat", input="hi\n", env={"NANOBOT_CHAT__MAX_TOKENS": "4", "NANOBOT_MEMORY__ENABLED": "false",
                                      "NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_TOOLS__ENABLED": "[]"})
    assert r.returncode == 0, r.stderr
    assert (home / "config.toml").read_text() == render_default()


@pytest.fixture
def project(home, tmp_path, monkeypatch):
    code = tmp_path / "code"
    (code / "app").mkdir(parents=True)
    (code / "app" / "notes.txt").write_text("project notes\n")
    settings = load_settings(home, tools={"roots": [str(code)]})
    settings.workspace.mkdir(parents=True)
    (settings.workspace / "notes.txt").write_text("workspace notes\n")
    return settings, code


def test_relative_paths_resolve_against_the_start_directory_inside_a_root(project, monkeypatch):
    settings, code = project
    ctx = ToolContext(settings=settings)
    monkeypatch.chdir(code / "app")
    assert ReadFile().run(ReadFile.Args(path="notes.txt"), ctx).endswith("project notes")
    WriteFile().run(WriteFile.Args(path="out.txt", content="x"), ctx)
    assert (code / "app" / "out.txt").read_text() == "x" and not (settings.workspace / "out.txt").exists()
    with pytest.raises(ToolError, match="contains '..'"):
        ReadFile().run(ReadFile.Args(path="../../etc/passwd"), ctx)


def test_outside_every_root_relative_paths_stay_in_the_workspace(project, monkeypatch, tmp_path):
    settings, _ = project
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("not allowed\n")
    monkeypatch.chdir(elsewhere)
    out = ReadFile().run(ReadFile.Args(path="notes.txt"), ToolContext(settings=settings))
    assert out.endswith("workspace notes")
