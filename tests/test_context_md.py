"""CONTEXT.md: the pydantic model round-trips, keeps user edits, and enforces its token budget."""

from pathlib import Path

from nanobot.observer.contextmd import (
    MAX_RECENT,
    ContextDoc,
    approx_tokens,
    load_context,
    save_context,
)
from nanobot.workspace import template_dir

USER_EDITED = """# Context
<!-- guidance the user left in place -->

## Now
- Focus: the CSV parser
- Task: handle malformed rows
- Blocked:
- Deadline: Friday
A free-form note the user wrote.

## Time
- Last session: 2026-01-01 10:00-11:00 (1 h, 9 turns)
- Session started: 2026-01-02 09:00
- Pattern: deep work (recent sessions ~1 h)

## Recent
- 01-01 chose csv + serde
<!-- newest first -->

## External
- workspace: 1 file(s) changed since the last session (USER.md)

## Links
- https://example.org/spec
Some prose under a section the observer does not know.
"""


def test_template_round_trips_byte_for_byte():
    text = (template_dir() / "CONTEXT.md").read_text()
    doc = ContextDoc.parse(text)
    assert doc.render() == text
    assert doc.now.focus == "" and doc.recent == [] and doc.prompt_text() == ""


def test_user_edits_survive_parse_render_and_updates():
    doc = ContextDoc.parse(USER_EDITED)
    assert doc.render() == USER_EDITED
    assert doc.now.focus == "the CSV parser" and doc.now.task == "handle malformed rows"
    assert doc.now.extra == ["- Deadline: Friday", "A free-form note the user wrote."]
    assert doc.time.pattern.startswith("deep work") and doc.recent == ["01-01 chose csv + serde"]
    assert [o.name for o in doc.other] == ["Links"]
    doc.set_now(focus="error handling", task="")
    doc.add_recent(["01-02 use flexible()"])
    again = ContextDoc.parse(doc.render())
    assert again == doc
    text = doc.render()
    for kept in ("- Deadline: Friday", "A free-form note the user wrote.", "https://example.org/spec",
                 "Some prose under a section", "<!-- newest first -->", "<!-- guidance the user"):
        assert kept in text
    assert again.now.focus == "error handling" and again.now.task == "handle malformed rows"
    assert again.recent == ["01-02 use flexible()", "01-01 chose csv + serde"]


def test_recent_keeps_five_newest_first_without_repeats():
    doc = ContextDoc()
    for i in range(8):
        doc.add_recent([f"item {i}"])
    doc.add_recent(["item 5"])
    assert len(doc.recent) == MAX_RECENT
    assert doc.recent == ["item 5", "item 7", "item 6", "item 4", "item 3"]
    assert ContextDoc.parse(doc.render()).recent == doc.recent


def test_prompt_text_hides_guidance_time_and_empty_fields():
    doc = ContextDoc.parse(USER_EDITED)
    shown = doc.prompt_text()
    assert "guidance" not in shown and "newest first" not in shown
    assert "Last session" not in shown and "Blocked" not in shown
    assert shown.startswith("### Now\n- Focus: the CSV parser")


def test_budget_is_enforced_with_the_real_tokenizer(tmp_path: Path, model):
    doc = ContextDoc.parse(USER_EDITED)
    doc.add_recent([f"decision number {i}: " + "word " * 60 for i in range(5)])
    doc.external = ["project: " + "many files changed " * 30]
    assert model.count_tokens(doc.prompt_text()) > 200
    path = tmp_path / "CONTEXT.md"
    dropped = save_context(path, doc, 200, model.count_tokens)
    saved = load_context(path)
    assert dropped and model.count_tokens(saved.prompt_text()) <= 200
    assert saved.now.focus == "the CSV parser" and "https://example.org/spec" in saved.render()
    assert [p.name for p in tmp_path.iterdir()] == ["CONTEXT.md"]  # atomic: no temp files left


def test_long_values_are_clipped_and_missing_file_is_empty(tmp_path: Path):
    doc = load_context(tmp_path / "nope.md")
    assert doc == ContextDoc()
    doc.set_now(focus="x" * 500)
    assert len(doc.now.focus) <= 200 and approx_tokens(doc.prompt_text()) < 80
