"""The assistant bench's masked view of a check-only set (``bench/assistant_bench.py --masked``): a
turn's progress line carries its kinds, tools, verdicts, the failed calls' rules and the model's
judgements, and nothing the request set wrote (its message, the call's arguments, the reply, a file's
name or text quoted in an error)."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("assistant_bench", ROOT / "bench" / "assistant_bench.py")
ab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ab)


def test_an_error_keeps_the_rules_words_and_loses_what_the_set_brought():
    error = "text to replace not found in 'kiln.conf': 'max_temp = 1245'; the file's text is:\nzone = north"
    assert ab.masked(error) == "text to replace not found in"
    assert ab.masked("cannot read crew/roster.txt: No such file") == "cannot read No such file"
    assert ab.masked('edit_file: "Oskar" is not in it') == "is not in it"


def test_a_masked_row_holds_no_text_of_the_turn():
    secret = "Vaarholm"
    row = {"session": "peering", "text": f"what is in {secret}.txt?", "kind": "file", "called": ["read_file"],
           "args": [json.dumps({"path": f"{secret}.txt"})], "ok": [], "failed": ["read_file: error"],
           "reply": f"{secret} has 3 lines", "correct": False, "corrected": True, "shown": False,
           "right_tool": True, "invented": False, "false_claim": False, "says": False, "applied": None,
           "seconds": 1.0, "judged": {"look": 0.8},
           "flagged": [f"reply check: the reply speaks of '{secret}.txt' but nothing was read"],
           "unasked_changes": [f"{secret}.txt"], "destroyed": [f"{secret} line"]}
    line = json.dumps(ab._masked_row(row))
    assert secret not in line
    masked = json.loads(line)
    assert masked["failed"] == ["read_file: error"] and masked["judged"] == {"look": 0.8}
    assert masked["unasked_changes"] == 1 and masked["destroyed"] == 1
