"""The reflector: new facts added, near-duplicates merged (real embedder), user lines kept, backups."""

import os
from datetime import datetime, timedelta

from nanobot.config import load_settings
from nanobot.observer.contextmd import ContextDoc, load_context
from nanobot.observer.observation import Observation, ObservationDraft, ObservationPart
from nanobot.observer.reflector import (
    lexical_similarity,
    reflect,
    reflection_due,
    refresh_context,
    unreflected,
)
from nanobot.observer.state import ReflectorState, load_state, state_path
from nanobot.workspace import init_workspace

NOW = datetime(2026, 3, 10, 12, 0).astimezone()
USER_MEMORY = """# Memory
<!-- guidance -->

## About Ada
- Ada prefers short answers.
- Ada's cat is called Miso.
"""


def setup(home, facts_by_session):
    settings = load_settings()
    init_workspace(settings.workspace)
    (settings.workspace / "MEMORY.md").write_text(USER_MEMORY)
    for i, facts in enumerate(facts_by_session):
        write_obs(settings, f"20260310-10000{i}-abcd", facts, decisions=[f"decision {i}"])
    return settings


def write_obs(settings, sid, facts, decisions=(), at=NOW):
    """An observation whose facts are grounded: each its own quote (no transcript: shares content)."""
    part = ObservationPart.of(ObservationDraft(summary=f"session {sid}", focus="csv parser",
                                               task="malformed rows", facts=list(facts),
                                               decisions=list(decisions),
                                               evidence={f: f for f in facts}), "quit", 3, at=at)
    path = settings.workspace / "observations" / f"{sid}.md"
    path.write_text(Observation(session=sid, parts=[part]).render())
    return path


def test_reflect_merges_a_duplicate_and_keeps_user_lines(home):
    settings = setup(home, [["The user Ada prefers short answers.", "Ada is writing a CSV parser in Rust."],
                            ["Ada is building a CSV parser in Rust."]])
    report = reflect(settings, now=NOW)
    assert report.similarity == "embedding"
    mem = (settings.workspace / "MEMORY.md").read_text()
    assert mem.startswith(USER_MEMORY.rstrip("\n"))  # every user line kept, unchanged, in place
    assert report.added == ["Ada is writing a CSV parser in Rust."]
    assert len(report.merged) == 2  # one onto the user's line, one onto the new fact
    assert mem.count("CSV parser") == 1 and mem.count("short answers") == 1
    assert ("## Learned from sessions\n- Ada is writing a CSV parser in Rust. "
            "(2026-03-10, session 20260310-100000-abcd)\n") in mem
    backup = report.backup
    assert backup.read_text() == USER_MEMORY
    diff = backup.with_suffix(".diff").read_text()
    assert "+- Ada is writing a CSV parser in Rust. (2026-03-10, session" in diff and "\n-- " not in diff
    state = load_state(state_path(settings.home, "reflector"), ReflectorState)
    assert set(state.processed) == {"20260310-100000-abcd.md", "20260310-100001-abcd.md"}
    assert unreflected(settings) == []
    again = reflect(settings, now=NOW)  # nothing new: no change, no new backup
    assert not again.changed and again.observations == []
    assert len(list((settings.workspace / ".history").glob("*.md"))) == 1


def test_reflector_lines_merge_to_fuller_wording_user_lines_never(home):
    settings = setup(home, [["Ada likes tea"]])
    reflect(settings, now=NOW, similarity=lexical_similarity)
    write_obs(settings, "20260310-110000-abcd", ["Ada likes tea a lot", "Ada's cat is called Miso"])
    report = reflect(settings, now=NOW + timedelta(hours=1), similarity=lexical_similarity)
    mem = (settings.workspace / "MEMORY.md").read_text()
    assert "- Ada likes tea a lot" in mem and "- Ada likes tea\n" not in mem  # ours: updated
    assert mem.count("Miso") == 1 and report.added == []
    # a line the user edits becomes theirs: it is never rewritten again
    (settings.workspace / "MEMORY.md").write_text(mem.replace("Ada likes tea a lot", "Ada likes tea (green)"))
    write_obs(settings, "20260310-120000-abcd", ["Ada likes tea (green) very much indeed"])
    reflect(settings, now=NOW + timedelta(hours=2), similarity=lexical_similarity)
    mem = (settings.workspace / "MEMORY.md").read_text()
    assert "- Ada likes tea (green) (2026-03-10, session 20260310-110000-abcd)\n" in mem
    assert "very much indeed" not in mem


def test_dry_run_writes_nothing(home):
    settings = setup(home, [["Ada uses Neovim"]])
    report = reflect(settings, now=NOW, dry_run=True, similarity=lexical_similarity)
    assert "+- Ada uses Neovim" in report.diff
    assert (settings.workspace / "MEMORY.md").read_text() == USER_MEMORY
    assert unreflected(settings)  # still to do


def test_due_only_with_new_observations_and_after_the_interval(home):
    settings = setup(home, [])
    assert not reflection_due(settings, NOW)
    write_obs(settings, "20260310-100000-abcd", ["Ada uses Neovim"])
    assert reflection_due(settings, NOW)
    reflect(settings, now=NOW, similarity=lexical_similarity)
    write_obs(settings, "20260310-110000-abcd", ["Ada uses tmux"])
    assert not reflection_due(settings, NOW + timedelta(hours=1))  # ran an hour ago
    assert reflection_due(settings, NOW + timedelta(hours=7))


def test_stale_context_is_refreshed_from_recent_observations(home):
    settings = setup(home, [[], []])
    path = settings.workspace / "CONTEXT.md"
    doc = ContextDoc.parse(path.read_text())
    doc.now.focus = "something from last month"
    doc.external = ["workspace: stale"]
    doc.other = []
    path.write_text(doc.render() + "\n## Mine\n- keep me\n")
    assert refresh_context(settings, datetime.now().astimezone()) == ""  # fresh: untouched
    old = (datetime.now() - timedelta(hours=30)).timestamp()
    os.utime(path, (old, old))
    note = refresh_context(settings, datetime.now().astimezone())
    assert "refreshed from 2 observation part(s)" in note
    fresh = load_context(path)
    assert fresh.now.focus == "csv parser" and fresh.external == []
    assert fresh.recent[:2] == ["03-10 decision 1", "03-10 decision 0"]
    assert "- keep me" in path.read_text()


def test_nanobot_reflect_cli(cli, home):
    settings = setup(home, [["The user Ada prefers short answers.", "Ada's editor is Helix."]])
    r = cli("reflect")
    assert r.returncode == 0, r.stderr
    assert "reflected 1 observation(s): 1 fact(s) added, 1 merged with existing lines (embedding similarity)" in r.stdout
    assert "+ Ada's editor is Helix." in r.stdout and "previous MEMORY.md kept in" in r.stdout
    mem = (settings.workspace / "MEMORY.md").read_text()
    assert mem.startswith(USER_MEMORY.rstrip("\n")) and mem.count("short answers") == 1
    r = cli("reflect")
    assert r.returncode == 0 and "nothing new to reflect" in r.stdout
