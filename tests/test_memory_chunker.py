"""Markdown chunking: bullets and paragraphs under their headings; template guidance dropped."""

from __future__ import annotations

from nanobot.memory.chunker import MAX_CHARS, chunk_markdown
from nanobot.workspace import template_dir


def test_bullets_paragraphs_headings_and_lines():
    text = (
        "# Memory\n<!-- guidance\nover lines -->\n## Family\n- Wife: Ana\n  married 2015\n"
        "* Dog: Biscuit\n  - a beagle\n\n### Pets\nPlain paragraph\nwrapped.\n\n1. numbered item\n"
    )
    chunks = chunk_markdown(text)
    assert [(c.text, c.heading, c.line) for c in chunks] == [
        ("Wife: Ana\nmarried 2015", "Family", 5),
        ("Dog: Biscuit\n- a beagle", "Family", 7),
        ("Plain paragraph\nwrapped.", "Family > Pets", 11),
        ("numbered item", "Family > Pets", 14),
    ]
    assert chunks[0].embed_text == "Family: Wife: Ana\nmarried 2015"
    assert chunks[0].hash != chunk_markdown("## Work\n- Wife: Ana\n  married 2015")[0].hash


def test_unedited_templates_and_comments_yield_nothing():
    assert chunk_markdown((template_dir() / "MEMORY.md").read_text(encoding="utf-8")) == []
    assert chunk_markdown("<!-- only a comment -->\n\n# Title\n") == []
    assert chunk_markdown("- visible <!-- hidden --> text")[0].text == "visible  text"


def test_frontmatter_is_skipped():
    text = "---\nsession: 20260101-x\nparts: 1\n---\n# Observation\n## Part 1 · quit\n- chose serde\n"
    chunks = chunk_markdown(text)
    assert [(c.text, c.heading, c.line) for c in chunks] == [("chose serde", "Part 1 · quit", 7)]


def test_long_paragraph_is_split_at_sentences():
    para = " ".join(f"Sentence number {i} says something fairly long about the topic." for i in range(60))
    chunks = chunk_markdown(para)
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert " ".join(c.text for c in chunks) == para
    assert all(c.text.endswith(".") for c in chunks)
