"""Bad input -> one line naming the thing and the fix, exit code 2, no traceback (real CLI)."""


def assert_one_line_error(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    for n in needles:
        assert n in lines[0]


def test_config_typo(cli, home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[chat]\ntemprature = 0.2\n")
    assert_one_line_error(cli("prompt"), "chat.temprature", "config.toml")


def test_wrong_type(cli, home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[prompt]\ncap = 'lots'\n")
    assert_one_line_error(cli("chat", input="hi\n"), "prompt.cap")


def test_missing_model_file(cli, tmp_path):
    missing = tmp_path / "nope.gguf"
    assert_one_line_error(cli("chat", "--model", str(missing), input="hi\n"), "model file not found", str(missing))


def test_not_a_gguf(cli, tmp_path):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 definitely a zip")
    assert_one_line_error(cli("prompt", "--model", str(fake)), "not a GGUF file")


def test_unknown_model_name(cli):
    assert_one_line_error(cli("prompt", "--model", "llama9000"), "unknown model 'llama9000'", "smollm2")


def test_models_lists_bundled_and_missing(cli, home, tmp_path):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(f'[models.gone]\npath = "{tmp_path}/gone.gguf"\n')
    proc = cli("models", "--json")
    assert proc.returncode == 0, proc.stderr
    import json
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["smollm2"]["exists"] and rows["smollm2"]["size_mb"] > 50 and rows["smollm2"]["default"]
    assert rows["gone"]["exists"] is False and rows["gone"]["size_mb"] is None
