"""Knowledge-doc frontmatter: fields read, one field rewritten with every other byte kept; the memory
chunker indexes the summary."""

from __future__ import annotations

import pytest

from nanobot.base.frontmatter import FrontmatterError, parse, set_field, summary_problem, with_body
from nanobot.memory.chunker import chunk_markdown

BODY = "# Zephyr\r\n\r\nPort *8443*.\n---\nnot: frontmatter\n\ttabbed line  \n"


def test_set_field_keeps_unknown_fields_their_order_comments_and_the_body():
    head = "---\nowner: ana   # mine\ntitle: Zephyr\nzz_custom:\n  - a\n  - b\ncreated: 2024-01-02\n---\n"
    doc = head + BODY
    new = set_field(doc, "summary", "Port and owner of Zephyr")
    assert new == head.replace("title: Zephyr\n", "title: Zephyr\nsummary: Port and owner of Zephyr\n") + BODY
    again = set_field(new, "summary", "Another: with a colon")  # replaced in place, quoted for YAML
    assert again == new.replace("summary: Port and owner of Zephyr", "summary: 'Another: with a colon'")
    assert parse(again).fields["summary"] == "Another: with a colon"
    assert list(parse(again).fields) == ["owner", "title", "summary", "zz_custom", "created"]


def test_multiline_summary_is_replaced_whole_and_crlf_bom_are_kept():
    doc = "\ufeff---\r\ntitle: T\r\nsummary: >\r\n  two\r\n  lines\r\ntags: [a]\r\n---\r\n" + BODY
    new = set_field(doc, "summary", "One line")
    assert new == "\ufeff---\r\ntitle: T\r\nsummary: One line\r\ntags: [a]\r\n---\r\n" + BODY


def test_doc_without_frontmatter_gets_one_in_front_of_its_unchanged_body():
    assert set_field(BODY, "summary", "S") == "---\nsummary: S\n---\n" + BODY
    assert set_field("---\n---\n" + BODY, "summary", "S") == "---\nsummary: S\n---\n" + BODY
    assert with_body("---\na: 1\n---\nold", "new") == "---\na: 1\n---\nnew"


@pytest.mark.parametrize("doc", ["---\ntitle: x\nno end", "---\ntitle: [unclosed\n---\n", "---\n- a\n- b\n---\n"])
def test_malformed_frontmatter_raises(doc):
    with pytest.raises(FrontmatterError):
        parse(doc)


def test_summary_rule():
    assert summary_problem("Zephyr service: port, owner and deploy steps") == ""
    assert summary_problem(None) == summary_problem("  ") == "is missing"
    assert summary_problem("a\nb") == "must be one line"
    assert "151 characters" in summary_problem("x" * 151)
    assert summary_problem("x" * 150) == ""
    for md in ("**bold** text", "see [doc](x.md)", "# Title", "- a bullet", "1. first", "`code`"):
        assert "markdown" in summary_problem(md), md


def test_chunker_indexes_the_summary_under_the_title():
    doc = "---\ntitle: Zephyr\nowner: ana\nsummary: Port and owner of the Zephyr service\n---\n# Notes\n- deploy on fridays\n"
    chunks = chunk_markdown(doc)
    assert [(c.text, c.heading, c.line) for c in chunks] == [
        ("Port and owner of the Zephyr service", "Zephyr", 4), ("deploy on fridays", "", 7)]
    assert chunks[0].embed_text == "Zephyr: Port and owner of the Zephyr service"
    # no summary, or broken frontmatter: as before (frontmatter dropped / read as text)
    assert [c.text for c in chunk_markdown("---\ntitle: Z\n---\n- a\n")] == ["a"]


def test_fast_frontmatter_reader_agrees_with_yaml():
    """``fastyaml.load`` skips PyYAML for flat frontmatter; on random near-YAML text (quotes, flow
    lists, YAML 1.1 bools, dates, comments, tabs, control characters) it answers exactly as
    ``yaml.load`` with libyaml does, and takes the fast path for the common shape."""
    import random

    import yaml

    from nanobot.base import fastyaml

    assert fastyaml._simple("title: Zephyr\nsummary: 'Zephyr: port, owner'\ntags: [rust, csv]\n# note\n") == {
        "title": "Zephyr", "summary": "Zephyr: port, owner", "tags": ["rust", "csv"]}
    alpha = list("abcXYZ019 :-#'\"[],{}&*!|>%@`?~\t\r\\.é😀\x0c\x85\u2028") + [
        "yes", "null", "2024-01-01", "1.5", "0x1F", ": ", " #", "''", "<<", "=", "on", "\n", "\n  ", "\n- "]
    keys = ["title", "summary", "tags", "yes", "a-b", "x", "on", "_k", "1a"]
    rng = random.Random(11)
    fast = 0
    for _ in range(20_000):
        lines = []
        for _ in range(rng.randint(1, 4)):
            v = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 8)))
            if rng.random() < 0.3:
                v = "'" + v.replace("'", "''" if rng.random() < 0.8 else "'") + "'"
            if rng.random() < 0.2:
                v = "[" + ", ".join(v.split(",")) + "]"
            lines.append(f"{rng.choice(keys)}:{rng.choice([' ', '  ', '', chr(9)])}{v}")
        text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
        try:
            want = ("ok", yaml.load(text, Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            want = ("error",)
        try:
            got = ("ok", fastyaml.load(text))
        except yaml.YAMLError:
            got = ("error",)
        assert got == want, repr(text)
        fast += fastyaml._simple(text) is not None
    assert fast > 300
