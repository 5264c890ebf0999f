"""The observation draft's grammar admits only valid JSON strings (found by a random-order run at
2 threads: the converter's ``char`` let the real model write a raw newline, so the draft was lost)."""

import json
import re

from nanobot.observer.observation import GroundedDraft, Said, draft_grammar, parse_draft


def test_draft_grammar_strings_exclude_raw_control_characters():
    (rule,) = [ln for ln in draft_grammar().splitlines() if ln.startswith("char ::=")]
    cls = re.match(r'char ::= \[\^([^\]]*)\]', rule).group(1)
    assert "\\x00-\\x1f" in cls and '"' in cls  # no raw control characters, no bare quote


def test_a_draft_with_a_raw_newline_is_not_json_but_an_escaped_one_is():
    good = json.dumps(GroundedDraft(summary=Said(text="two\nlines", quote="a\nb")).model_dump())
    assert parse_draft(good).summary == Said(text="two lines", quote="a b")  # whitespace normalised
    assert parse_draft(good.replace("\\n", "\n")) is None  # what the old grammar let through
