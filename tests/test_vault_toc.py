"""The "Your Knowledge" TOC: grouping, sorting, title fallback, malformed docs skipped with a warning,
the truncation rule within the budget, the frontmatter cache, and the empty cases."""

from __future__ import annotations

import os

import pytest

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.loop.agent import Agent
from nanobot.runtime import attach_features, load_model
from nanobot.vault import fmcache
from nanobot.vault.feature import VaultFeature
from nanobot.vault.toc import render_toc
from nanobot.workspace import init_workspace


def words(text: str) -> int:
    return len(text.split())


def write(ws, rel, text):
    p = ws / "knowledge" / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def ws(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)
    return settings.workspace


def test_grouped_by_folder_sorted_with_title_fallback(ws):
    write(ws, "projects/zeta.md", "---\nsummary: Last project\n---\nbody")
    write(ws, "projects/Alpha.md", "---\ntitle: Alpha plan\n---\nno summary, so the title")
    write(ws, "projects/beta.md", "plain markdown, no frontmatter at all")
    write(ws, "about.md", "---\ntitle: Me\nsummary: Who I am\n---\n")
    write(ws, "areas/home/garden.md", "---\nsummary: Garden notes\n---\n")
    docs = fmcache.scan(ws).docs
    assert render_toc(docs, 400, words) == "\n".join([
        "## Your Knowledge",
        "### ./ (1 doc)", "- about.md — Who I am",
        "### areas/home/ (1 doc)", "- garden.md — Garden notes",
        "### projects/ (3 docs)", "- Alpha.md — Alpha plan", "- beta.md", "- zeta.md — Last project",
    ])


def test_malformed_doc_is_skipped_with_one_warning_naming_it(ws, home):
    write(ws, "good.md", "---\nsummary: Fine\n---\n")
    write(ws, "bad.md", "---\ntitle: [unclosed\n---\nbody")
    agent = Agent(load_settings(home), ScriptedModel([]))
    feature = agent.add_feature(VaultFeature(agent.settings))
    notes = agent.start_session()
    assert [n.text for n in notes if n.level == "warning"] == [
        "knowledge/bad.md: frontmatter is not valid YAML on line 2; left out of Your Knowledge"]
    text = agent.system_prompt().text
    assert "- good.md — Fine" in text and "bad.md" not in text and "(1 doc)" in text
    assert not [n for n in agent.start_session() if n.level == "warning"]  # said once
    assert feature.build(agent)


def shown_per_folder(lines: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    folder = ""
    for ln in lines:
        if ln.startswith("### "):
            folder = ln[4:].split(" (")[0].rstrip("/")
            out[folder] = 0
        elif ln.startswith("- ") and not ln.startswith("- … and"):
            out[folder] += 1
    return out


def test_truncation_rule_keeps_1000_docs_within_the_budget(ws, home):
    folders = {"projects": 600, "areas": 300, "archive": 100}
    for folder, n in folders.items():
        for i in range(n):
            write(ws, f"{folder}/doc{i:04d}.md", f"---\nsummary: Summary number {i} of {folder}\n---\n")
    docs = fmcache.scan(ws).docs
    count = load_model(load_settings(home), vocab_only=True).count_tokens
    text = render_toc(docs, 400, count)
    assert count(text) <= 400
    lines = text.splitlines()
    # every folder keeps its line; summaries go (names alone) before docs go; without a
    # priority order docs come round-robin; each folder states what it left out
    assert [ln for ln in lines if ln.startswith("###")] == [
        "### archive/ (100 docs)", "### areas/ (300 docs)", "### projects/ (600 docs)"]
    shown = shown_per_folder(lines)
    assert max(shown.values()) - min(shown.values()) <= 1 and min(shown.values()) >= 3
    for f, n in folders.items():
        assert f"- … and {n - shown[f]} more in {f}/" in lines
    assert "- doc0000.md" in lines  # the first docs of each folder, alphabetically
    # a budget too small for every folder line drops folders from the end, counted
    tiny = render_toc(docs, 40, count).splitlines()
    assert count("\n".join(tiny)) <= 40
    assert tiny[1] == "### archive/ (100 docs)"
    assert tiny[-1] in ("… and 600 more docs in 1 more folder", "… and 900 more docs in 2 more folders")


def test_budget_follows_the_models_context(home):
    from nanobot.vault.rank import toc_budget

    s = load_settings(home)
    assert [toc_budget(s, n) for n in (2048, 8192, 32768)] == [400, 819, 1000]  # floor, share, half the cap
    s = load_settings(home, prompt={"cap": 8000})
    assert toc_budget(s, 32768) == 3000  # the ceiling
    s = load_settings(home, vault={"toc": 250})
    assert toc_budget(s, 32768) == 250  # a fixed budget wins


def test_summaries_are_shortened_before_any_doc_is_dropped(ws, home):
    for i in range(65):
        write(ws, f"f{i % 5}/doc{i:02d}.md", f"---\nsummary: Doc {i} covers the quarterly planning notes, "
                                             "owners, open risks and dates for the whole team\n---\n")
    docs = fmcache.scan(ws).docs
    count = load_model(load_settings(home), vocab_only=True).count_tokens
    full = render_toc(docs, 5000, count)
    assert "- doc00.md — Doc 0 covers the quarterly planning notes, owners, open risks and dates for the" in full
    lines = render_toc(docs, count(full) - 1, count).splitlines()  # one token short: 12 words each, then
    cut = [ln for ln in lines if ln.endswith("…")]  # the tokens left give the first docs (round-robin) theirs
    assert cut == ["- doc64.md — Doc 64 covers the quarterly planning notes, owners, open risks and dates…"]
    assert "- doc00.md — Doc 0 covers the quarterly planning notes, owners, open risks and dates for the whole team" in lines
    for budget in (count(full) * 4 // 5, count(full) * 2 // 3):  # shorter still, and still every doc
        text = render_toc(docs, budget, count)
        docs_shown = [ln for ln in text.splitlines() if ln.startswith("- doc")]
        assert count(text) <= budget and "more in" not in text and len(docs_shown) == 65
        assert all(" covers" in ln for ln in docs_shown) and docs_shown[-1].endswith("…")  # shortened, not dropped


def test_docs_in_use_and_recently_changed_are_kept_first(ws, home):
    import time

    from nanobot.vault import ledger
    from nanobot.vault.ledger import LedgerEntry
    from nanobot.vault.rank import ledger_use, order

    old = time.time() - 90 * 86400
    for i in range(300):
        p = write(ws, f"{chr(97 + i % 6)}/doc{i:03d}.md", f"---\nsummary: Notes about subject number {i}\n---\n")
        os.utime(p, (old, old))
    os.utime(ws / "knowledge" / "f" / "doc299.md")  # changed on disk just now
    from datetime import UTC, datetime
    for rel in ("e/doc298.md", "d/doc297.md"):  # changed through knowledge_apply: in the ledger
        ledger.append(ws, LedgerEntry(ts=datetime.now(UTC), actor="model", action="update",
                                      path=f"knowledge/{rel}", change_summary="edited"))
    docs = fmcache.scan(ws).docs
    count = load_model(load_settings(home), vocab_only=True).count_tokens
    alphabetical = render_toc(docs, 400, count)
    assert "doc299.md" not in alphabetical and "doc298.md" not in alphabetical  # round-robin alone
    ranked = order(docs, ledger_use(ledger.ledger_path(ws)))
    assert [d.path for d in ranked[:3]] == ["d/doc297.md", "e/doc298.md", "f/doc299.md"]
    text = render_toc(docs, 400, count, order=ranked)
    assert count(text) <= 400
    assert all(f"- doc{n}.md" in text.splitlines() for n in (297, 298, 299))
    # the agent's prompt uses that order, and the budget its model's n_ctx
    agent = Agent(load_settings(home), ScriptedModel([], n_ctx=2048))
    agent.add_feature(VaultFeature(agent.settings))
    agent.start_session()
    small = agent.system_prompt().text
    assert "- doc299.md" in small.splitlines() and "- doc298.md" in small.splitlines()
    big = Agent(load_settings(home, prompt={"cap": 8000}), ScriptedModel([], n_ctx=32768))
    big.add_feature(VaultFeature(big.settings))
    big.start_session()
    shown = lambda t: sum(ln.startswith("- doc") for ln in t.splitlines())  # noqa: E731
    assert shown(big.system_prompt().text) > 2 * shown(small)


def test_frontmatter_cache_parses_only_changed_docs(ws, tmp_path):
    for i in range(20):
        write(ws, f"d{i}.md", f"---\nsummary: S{i}\n---\n")
    cache = tmp_path / "fm.json"
    assert fmcache.scan(ws, cache).parsed == 20
    warm = fmcache.scan(ws, cache)
    assert warm.parsed == 0 and warm.docs[3].summary == "S11"  # sorted by path: d0, d1, d10, d11
    p = write(ws, "d5.md", "---\nsummary: changed and longer\n---\n")
    os.utime(p, ns=(1, 1))
    again = fmcache.scan(ws, cache)
    assert again.parsed == 1 and {d.path: d.summary for d in again.docs}["d5.md"] == "changed and longer"
    (ws / "knowledge" / "d6.md").unlink()
    assert len(fmcache.scan(ws, cache).docs) == 19
    cache.write_text("{not json")  # a damaged cache is a cold scan, not an error
    assert fmcache.scan(ws, cache).parsed == 19


def test_empty_cases_add_no_section_and_no_error(home):
    settings = load_settings(home)
    init_workspace(settings.workspace)

    def prompt_sections():
        agent = Agent(settings, ScriptedModel([]))
        attach_features(agent)
        assert not [n for n in agent.start_session() if n.level == "warning"]
        return [s.name for s in agent.system_prompt().sections]

    names = prompt_sections()
    assert "knowledge" not in names and "changes" not in names  # template: an empty knowledge/
    (settings.workspace / "knowledge").rmdir()
    names = prompt_sections()
    assert "knowledge" not in names and "changes" not in names  # no folder at all
    write(settings.workspace, "a.md", "no frontmatter, no summary")
    names = prompt_sections()
    assert "knowledge" in names and "changes" in names  # the doc by name; "No changes." (no ledger yet)
    agent = Agent(settings, ScriptedModel([]))
    attach_features(agent)
    text = agent.system_prompt().text
    assert "- a.md\n" in text + "\n" and "## Recent Changes (last 24h)\nNo changes." in text


def test_toc_is_stable_before_the_volatile_sections(ws, home):
    write(ws, "a.md", "---\nsummary: A\n---\n")
    agent = Agent(load_settings(home), ScriptedModel([]))
    attach_features(agent)
    agent.start_session()
    built = agent.system_prompt()
    names = [s.name for s in built.sections]
    assert names.index("knowledge") < names.index("time") < names.index("changes")
    assert "## Your Knowledge" in built.stable_text and "Recent Changes" not in built.stable_text
    write(ws, "b.md", "---\nsummary: B\n---\n")  # mid-session: frozen until the next session
    agent.refresh_prompt()
    assert agent.system_prompt().text == built.text
    agent.start_session()
    assert "- b.md — B" in agent.system_prompt().text


def test_scan_reads_the_head_of_long_docs_and_all_of_long_frontmatter(ws, tmp_path):
    big_fm = "---\ntitle: Big\nnotes: '" + "n" * 10_000 + "'\nsummary: After ten KB of frontmatter\n---\nBody\n"
    write(ws, "big-frontmatter.md", big_fm)
    write(ws, "long-body.md", "---\nsummary: Short head, long body\n---\n" + "body line\n" * 5_000)
    write(ws, "unclosed.md", "---\nsummary: never closed\n" + "x: y\n" * 3_000)
    docs = {d.path: d for d in fmcache.scan(ws).docs}
    assert docs["big-frontmatter.md"].summary == "After ten KB of frontmatter"
    assert docs["long-body.md"].summary == "Short head, long body"
    assert "not closed" in docs["unclosed.md"].error
