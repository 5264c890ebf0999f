"""backfill-summaries with the real bundled model: the grammar holds (one plain line, <= 150 chars),
only the frontmatter changes (body and other fields byte-for-byte), one ledger entry per doc (actor
backfill), one git commit for the run; ``vault check`` before and after; dry run and --limit."""

from __future__ import annotations

import subprocess

import pytest

from nanobot.base.frontmatter import parse, summary_problem
from nanobot.config import load_settings
from nanobot.vault.ledger import LedgerEntry, ledger_path, read_backwards
from nanobot.workspace import init_workspace

pytestmark = pytest.mark.slow

HAS = "---\ntitle: Done\nsummary: Already summarised, left alone\n---\nBody.\n"
BARE = "# Zephyr deploys\r\n\r\nThe Zephyr service listens on port 8443 and is deployed with `make ship`.\r\n"
FIELDS = ("\ufeff---\ntitle: Rust CSV parser\ntags: [rust, csv]\nzeta: keep  # my comment\n---\n"
          "Ada writes a CSV parser in Rust with the csv crate and serde.\n\nMalformed rows are skipped.\n")


def git(ws, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=ws,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture
def vault(home):
    ws = load_settings(home).workspace
    init_workspace(ws)
    k = ws / "knowledge"
    (k / "projects").mkdir(parents=True, exist_ok=True)
    (k / "done.md").write_bytes(HAS.encode())
    (k / "projects" / "zephyr.md").write_bytes(BARE.encode())
    (k / "projects" / "csv.md").write_bytes(FIELDS.encode())
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    return ws


def body_and_other_fields(data: bytes) -> tuple[str, list[str]]:
    doc = parse(data.decode())
    lines = [ln for ln in doc.yaml_text.splitlines(keepends=True) if not ln.startswith("summary:")]
    return doc.head + doc.body, lines


def test_backfill_rewrites_only_the_frontmatter_and_commits_once(vault, cli):
    check = cli("vault", "check")
    assert check.returncode == 1 and "knowledge/projects/zephyr.md: summary is missing" in check.stdout
    before = {p: p.read_bytes() for p in (vault / "knowledge").rglob("*.md")}
    r = cli("backfill-summaries")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "2 summaries written; committed" in r.stdout
    for path, old in before.items():
        new = path.read_bytes()
        if path.name == "done.md":
            assert new == old
            continue
        summary = parse(new.decode()).text("summary")
        assert not summary_problem(summary) and summary[0].isalnum(), summary  # the grammar held
        assert f"{path.relative_to(vault)}: {summary}" in r.stdout
        if old.startswith(b"\xef\xbb\xbf---"):  # frontmatter: every other field and the body kept
            assert body_and_other_fields(new) == body_and_other_fields(old)
        else:  # none: one is put in front of the unchanged body
            assert new.endswith(old) and new.startswith(b"---\n")
    log = [LedgerEntry.model_validate_json(raw) for _, raw, _ in read_backwards(ledger_path(vault))]
    assert sorted(e.path for e in log) == ["knowledge/projects/csv.md", "knowledge/projects/zephyr.md"]
    assert {(e.actor, e.action) for e in log} == {("backfill", "update")}
    assert git(vault, "rev-list", "--count", "HEAD").strip() == "2"
    assert sorted(git(vault, "show", "--name-only", "--format=", "HEAD").split()) == [
        "audit/.gitignore", "audit/ledger.jsonl", "knowledge/projects/csv.md", "knowledge/projects/zephyr.md"]
    assert git(vault, "status", "--porcelain") == ""
    assert cli("vault", "check").returncode == 0
    assert cli("backfill-summaries").stdout.strip() == "every knowledge doc has a summary"


def test_dry_run_and_limit(vault, cli):
    before = {p: p.read_bytes() for p in (vault / "knowledge").rglob("*.md")}
    r = cli("backfill-summaries", "--dry-run")
    assert r.returncode == 0 and r.stdout.count("knowledge/projects/") == 2 and "nothing written" in r.stdout
    assert {p: p.read_bytes() for p in before} == before and not ledger_path(vault).exists()
    r = cli("backfill-summaries", "--limit", "1")
    assert r.returncode == 0 and "1 summary written" in r.stdout, r.stderr
    assert sum(p.read_bytes() != old for p, old in before.items()) == 1
    assert git(vault, "rev-list", "--count", "HEAD").strip() == "2"
