"""knowledge_apply: summary and change_summary required and one plain line of <= 150 chars (with a
message the model can act on), frontmatter kept, confined to knowledge/, and crash-consistent: a kill
at each step of the documented order (``nanobot/vault/apply.py``) leaves doc and ledger agreeing
once the next writer or session has recovered."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features
from nanobot.tools.base import ToolContext
from nanobot.tools.runner import execute, validate
from nanobot.vault import apply
from nanobot.vault.ledger import LedgerEntry, ledger_path, read_backwards, sha
from nanobot.vault.tools import KnowledgeApply, KnowledgeRead
from nanobot.workspace import init_workspace

ROOT = Path(__file__).resolve().parent.parent
DOC = "---\ntitle: Zephyr\nowner: ada  # keep me\n---\n# Zephyr\nPort 8080.\n"


def call(ctx, tool, **args):
    parsed, error = validate(tool, json.dumps(args))
    if parsed is None:
        return False, error
    ok, text, _ = execute(tool, parsed, ctx)
    return ok, text


def create(**over):
    return {"action": "create", "path": "projects/zephyr.md", "content": DOC, "reason": "the user asked",
            "summary": "Zephyr service: port and owner", "change_summary": "New doc about Zephyr"} | over


@pytest.fixture
def ctx(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    return ToolContext(settings=settings)


def entries(ws) -> list[LedgerEntry]:
    return [LedgerEntry.model_validate_json(raw) for _, raw, _ in read_backwards(ledger_path(ws))][::-1]


@pytest.mark.parametrize("field", ["summary", "change_summary"])
def test_missing_too_long_or_multiline_summaries_are_rejected_with_an_actionable_message(ctx, field):
    tool = KnowledgeApply()
    for bad, says in [(None, "is missing"), ("x" * 151, "151 characters long"),
                      ("two\nlines", "one line"), ("**bold** words", "plain text")]:
        args = create(**{field: bad})
        if bad is None:
            del args[field]
        ok, msg = call(ctx, tool, **args)
        assert not ok and field in msg and says in msg and "at most 150 characters" in msg, msg
    assert not (ctx.workspace / "knowledge" / "projects" / "zephyr.md").exists()
    assert not ledger_path(ctx.workspace).exists()
    schema = KnowledgeApply.schema()["parameters"]
    assert {"summary", "change_summary"} <= set(schema["required"])
    assert "WHOLE document" in schema["properties"]["summary"]["description"]
    assert "THIS change" in schema["properties"]["change_summary"]["description"]
    assert schema["properties"][field]["maxLength"] == 150


def test_create_update_delete_keep_frontmatter_and_log_each(ctx):
    ws, tool = ctx.workspace, KnowledgeApply()
    assert call(ctx, tool, **create()) == (True, "created knowledge/projects/zephyr.md (logged in audit/ledger.jsonl)")
    doc = ws / "knowledge" / "projects" / "zephyr.md"
    assert doc.read_text() == ("---\ntitle: Zephyr\nsummary: 'Zephyr service: port and owner'\n"
                               "owner: ada  # keep me\n---\n# Zephyr\nPort 8080.\n")
    ok, _ = call(ctx, tool, **create(action="update", content="# Zephyr\nPort 8443.\n",
                                      summary="Zephyr: port 8443", change_summary="Port is now 8443"))
    assert ok and doc.read_text() == ("---\ntitle: Zephyr\nsummary: 'Zephyr: port 8443'\n"
                                      "owner: ada  # keep me\n---\n# Zephyr\nPort 8443.\n")
    assert call(ctx, tool, **create())[1].startswith("knowledge/projects/zephyr.md already exists")
    ok, text = call(ctx, KnowledgeRead(), path="knowledge/projects/zephyr.md")
    assert ok and "Port 8443." in text and "summary: 'Zephyr: port 8443'" in text
    assert call(ctx, tool, **create(action="delete", content=""))[0] and not doc.exists()
    log = entries(ws)
    assert [(e.action, e.actor, e.change_summary) for e in log] == [
        ("create", "user", "New doc about Zephyr"), ("update", "user", "Port is now 8443"),
        ("delete", "user", "New doc about Zephyr")]
    assert log[0].sha_before is None and log[1].sha_before == log[0].sha_after and log[2].sha_after is None


@pytest.mark.parametrize("path", ["../SOUL.md", "/etc/passwd.md", "knowledge/../../x.md", "notes.txt",
                                  "link/escape.md"])
def test_paths_outside_knowledge_are_refused(ctx, tmp_path, path):
    (ctx.workspace / "knowledge").mkdir(exist_ok=True)
    os.symlink(tmp_path, ctx.workspace / "knowledge" / "link")
    before = sorted(p for p in tmp_path.rglob("*"))
    ok, msg = call(ctx, KnowledgeApply(), **create(path=path))
    assert not ok and ("outside" in msg or ".md file" in msg or "not allowed" in msg.lower()), msg
    assert sorted(p for p in tmp_path.rglob("*")) == before and (ctx.workspace / "SOUL.md").read_text()
    assert not ledger_path(ctx.workspace).exists()


def test_the_ledger_is_not_writable_by_the_file_tools(ctx):
    from nanobot.tools.files import WriteFile

    call(ctx, KnowledgeApply(), **create())
    before = ledger_path(ctx.workspace).read_bytes()
    ok, msg = call(ctx, WriteFile(), path="audit/ledger.jsonl", content="forged\n")
    assert not ok and "audit ledger" in msg
    assert ledger_path(ctx.workspace).read_bytes() == before


# -- kill -9 at each step of the order ------------------------------------------------------------
def _killed_apply(home: Path, point: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NANOBOT_")}
    env |= {"NANOBOT_HOME": str(home), "NANOBOT_FAULT": point}
    args = create(action="update", content="# Zephyr\nPort 8443.\n", change_summary="Port is now 8443")
    r = subprocess.run([sys.executable, "-m", "nanobot", "tools", "run", "knowledge_apply", json.dumps(args)],
                       env=env, cwd=ROOT, capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr.decode()


@pytest.mark.parametrize("point,written", [("vault-intent", False), ("vault-doc-written", True),
                                           ("vault-ledger-appended", True)])
@pytest.mark.parametrize("next_start", ["session", "apply"])
def test_a_kill_at_any_step_leaves_doc_and_ledger_consistent(ctx, home, point, written, next_start):
    ws = ctx.workspace
    assert call(ctx, KnowledgeApply(), **create())[0]
    doc = ws / "knowledge" / "projects" / "zephyr.md"
    before = doc.read_bytes()
    _killed_apply(home, point)
    assert apply.pending_path(ws).exists()  # the intent is on disk until the change is complete
    assert (doc.read_bytes() != before) == written  # the doc was written atomically or not at all
    if next_start == "session":  # a chat starting recovers before it builds the digest
        agent = Agent(load_settings(home), ScriptedModel([]))
        attach_features(agent)
        notes = [n.text for n in agent.start_session()]
        digest = agent.system_prompt().text.split("## Recent Changes")[1]
        assert ("Port is now 8443" in digest) == written
    else:  # the next knowledge_apply recovers first
        notes = []
        assert call(ctx, KnowledgeApply(), **create(action="update", content="# Zephyr\nPort 9000.\n",
                                                    change_summary="Port is now 9000"))[0]
    assert not apply.pending_path(ws).exists()
    log = entries(ws)
    assert len({e.id for e in log}) == len(log)  # never a line twice
    assert [e.change_summary for e in log] == (["New doc about Zephyr"] + ["Port is now 8443"] * written
                                               + ["Port is now 9000"] * (next_start == "apply"))
    assert log[-1].sha_after == sha(doc.read_bytes())  # the ledger's last word is the doc as it is
    for a, b in zip(log, log[1:]):
        assert b.sha_before == a.sha_after  # an unbroken chain: no change missing from the ledger
    if next_start == "session" and point != "vault-ledger-appended":
        assert any("interrupted change to knowledge/projects/zephyr.md" in n for n in notes), notes
