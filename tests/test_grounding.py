"""The shared grounding verifier (nanobot/core/grounding.py): quotes must occur, items must share content,
instruction parroting is dropped by a general rule."""

from nanobot.core.grounding import check, quote_found, repeats_instructions

SAID = ("User: My name is Ada and I work on a Rust compiler called Ferrum.\n"
        "Assistant: Nice to meet you, Ada! What are you working on today?\n"
        "User: Please remember that I prefer tabs over spaces.")
INSTR = ("Take notes on our conversation so far as JSON. Your current task is to answer with the "
         "fields focus, task, decisions and facts, each with a quote from the conversation.")


def test_real_quote_kept_with_whitespace_case_and_quote_marks_normalised():
    assert check("The user's name is Ada", "my  name is\nADA", SAID).kept
    assert check("Prefers tabs", "\u201cI prefer tabs over spaces.\u201d", SAID).kept


def test_fabricated_and_paraphrased_quotes_dropped():
    assert check("Works on Go", "I work on a Go compiler", SAID).reason == "quote not in transcript"
    assert not check("Ada likes tabs", "Ada likes tabs a lot", SAID).kept


def test_item_must_share_content_with_its_quote():
    v = check("User lives in Paris", "my name is Ada", SAID)
    assert not v.kept and "share" in v.reason


def test_parroted_instruction_dropped_even_with_a_real_quote():
    item = "Your current task is to answer your own question using the JSON format."
    assert repeats_instructions("Your current task is to answer with the fields", INSTR)
    assert check(item, "my name is Ada", SAID, INSTR).reason == "repeats the instructions"
    assert check("Name is Ada", "my name is Ada", SAID, INSTR).kept


def test_too_short_quote_is_not_evidence():
    assert not quote_found("a", SAID) and not quote_found("  ", SAID)


def test_item_mostly_unsupported_by_its_quote_dropped():
    """Measured on the bundled model's drafts (bench/grounding_bench.py): an item that shares one word
    with a real quote but says more than it is a paraphrase the conversation does not support."""
    said = "User: Let's outline the report: intro, method, results."
    quote = "Let's outline the report: intro, method, results."
    assert not check("The user wants to know how we can improve this report", quote, said).kept
    assert check("Outline of the report: method and results", quote, said).kept
    assert check("User's name is Ada", "my name is Ada", SAID).kept  # possessive: 'user' is no content
