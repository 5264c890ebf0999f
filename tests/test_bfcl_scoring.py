"""The BFCL bench scores calls as BFCL's own AST checker does (``bench/bfcl_bench.py``'s ``correct``).

The cases are BFCL's rules (gorilla's ``ast_checker.simple_function_checker`` and ``string_checker``),
applied to items shaped like the sample's: strings compared standardized, an optional string written out
empty counts as left out, an int counts where a float is declared and a float does not where an integer is.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("bfcl_bench", ROOT / "bench" / "bfcl_bench.py")
bfcl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bfcl)

ITEM = {
    "category": "multiple",
    "functions": [{"name": "game_rewards.get", "parameters": {"type": "dict", "properties": {
        "game": {"type": "string"}, "mission": {"type": "string"}, "level": {"type": "integer"},
        "score": {"type": "float"}}, "required": ["game"]}}],
    "ground_truth": [{"game_rewards.get": {"game": ["Fortnite"], "mission": [""], "level": ["", 3],
                                           "score": ["", 2.0]}}],
}


def ok(args: dict, name: str = "game_rewards.get") -> bool:
    return bfcl.correct(ITEM, (name, args))


def test_strings_are_compared_standardized():
    assert ok({"game": "fortnite"})
    assert ok({"game": "Fort-nite"})
    assert not ok({"game": "Fortnite Battle Royale"})


def test_an_optional_string_written_out_empty_counts_as_left_out():
    assert ok({"game": "Fortnite", "mission": ""})
    assert ok({"game": "Fortnite"})
    assert not ok({"game": "Fortnite", "mission": "all"})


def test_an_int_counts_as_a_declared_float_and_a_float_not_as_a_declared_integer():
    assert ok({"game": "Fortnite", "score": 2})
    assert ok({"game": "Fortnite", "level": 3})
    assert not ok({"game": "Fortnite", "level": 3.0})
    assert not ok({"game": "Fortnite", "level": ""})


def test_a_wrong_function_an_unknown_argument_or_a_missing_required_one_is_wrong():
    assert not ok({"game": "Fortnite"}, name="game_rewards.list")
    assert not ok({"game": "Fortnite", "platform": "PS"})
    assert not ok({"mission": ""})


def test_an_irrelevance_item_is_right_only_without_a_call():
    item = dict(ITEM, category="irrelevance")
    assert bfcl.correct(item, None)
    assert not bfcl.correct(item, ("game_rewards.get", {"game": "Fortnite"}))
