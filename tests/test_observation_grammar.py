"""The observation draft's grammar admits only valid JSON strings (found by a random-order run at
2 threads: the converter's ``char`` let the real model write a raw newline, so the draft was lost)."""

import json
import re

import pytest

from nanobot.observer.observation import (
    QUOTE_CHARS,
    GroundedDraft,
    Said,
    draft_grammar,
    parse_draft,
    quote_spans,
)


def test_draft_grammar_strings_exclude_raw_control_characters():
    (rule,) = [ln for ln in draft_grammar().splitlines() if ln.startswith("char ::=")]
    cls = re.match(r'char ::= \[\^([^\]]*)\]', rule).group(1)
    assert "\\x00-\\x1f" in cls and '"' in cls  # no raw control characters, no bare quote


def test_a_draft_with_a_raw_newline_is_not_json_but_an_escaped_one_is():
    good = json.dumps(GroundedDraft(focus=Said(text="two\nlines", quote="a\nb")).model_dump())
    assert parse_draft(good).focus == Said(text="two lines", quote="a b")  # whitespace normalised
    assert parse_draft(good.replace("\\n", "\n")) is None  # what the old grammar let through


def test_quote_spans_are_the_users_sentences_cut_at_a_word():
    long = "I am writing " + "a very long sentence " * 8 + "that goes on."
    spans = quote_spans(["Hi! My name is Ada.", long, "My name is Ada."])
    assert spans[:2] == ("Hi!", "My name is Ada.") and len(spans) == 3  # repeats once
    assert long.startswith(spans[2]) and len(spans[2]) <= QUOTE_CHARS


@pytest.mark.slow
def test_copy_span_grammar_admits_only_the_spans_as_quotes(model):
    """llama.cpp compiles it, and a draft whose quote is not one of the spans is not admitted."""
    from tests.realmodel import llama_accepts

    spans = ('My name is "Ada".', "I work on Ferrum!")
    gbnf = draft_grammar(spans)
    assert llama_accepts(model, gbnf)
    (rule,) = [ln for ln in gbnf.splitlines() if "Ferrum" in ln]  # one rule, used by every quote
    assert rule.startswith("quote-span ::= ") and json.dumps(json.dumps(spans[0])) in rule  # JSON-, then GBNF-escaped
    assert "char" not in rule and gbnf.count("::= quote-span") == 6  # no free text in any quote
