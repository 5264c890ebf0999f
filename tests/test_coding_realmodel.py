"""End to end with the real bundled model: a coding session's turn, the living description rewritten
under its grammar in the background (all four lists, whatever the words), continue with the hand-off
in the new context, resume with the transcript back. Structure only, never wording."""

from __future__ import annotations

import json
import shutil

import pytest

from nanobot.coding.describe import LISTS, draft_grammar, parse, parse_draft
from nanobot.coding.feature import CodingFeature
from nanobot.coding.session import CodingSession
from nanobot.config import load_settings
from nanobot.runtime import build_agent
from tests.codingrepo import Repo, isolate
from tests.realmodel import Recorder

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]


def settings_for(root: str = ""):
    s = load_settings(memory={"enabled": False}, observer={"enabled": False}, kv_cache={"enabled": False},
                      tools={"enabled": []}, chat={"max_tokens": 24, "temperature": 0})
    s.coding.session = root
    return s


def test_real_model_writes_a_description_with_all_four_lists(tmp_path, monkeypatch, home, model):
    isolate(monkeypatch, tmp_path)
    repo = Repo.make("git", tmp_path / "repo")
    start = CodingSession.start(settings_for(), repo.path, "Add a CSV export command")
    agent = build_agent(settings_for(start.root), Recorder(model))
    agent.start_session()
    repo.write("export.py", "import csv\n\ndef export(rows, path):\n    pass\n")
    list(agent.turn("I added export.py with an empty export function. Next: write the rows."))
    coding = agent.feature(CodingFeature)
    agent.stop_prefill()  # waits for the background rewrite, as the next turn would
    assert coding.rewriter.error == "" and coding.rewriter.rewrites == 1
    (call,) = [c for c in agent.model.calls if c["grammar"] == draft_grammar()]
    # the bounded grammar closes within max_tokens, or (a bounded number of characters does not bound
    # tokens: digits and symbols cost one each, and the tokens follow the machine's thread count) the
    # cut draft is closed by the parser; either way all four lists, in order
    if call["finish_reason"] == "stop":
        assert list(json.loads(call["text"])) == list(LISTS)
    else:
        assert call["finish_reason"] == "length" and parse_draft(call["text"]) is not None, call
    text = coding.session.description()
    assert [ln for ln in text.splitlines() if ln.endswith(":")] == [f"{v}:" for v in LISTS.values()]
    desc = parse(text)
    assert desc.task == "Add a CSV export command" and desc.session == start.root
    agent.end_session("quit")

    # continue: the hand-off (that description) is in the new context; resume: the transcript back
    s2 = CodingSession.latest(settings_for(), repo.path)
    s2.checkpoint(reason="continue")
    repo.write("export.py", "import csv\n\ndef export(rows, path):\n    csv.writer(open(path, 'w')).writerows(rows)\n")
    agent2 = build_agent(settings_for(s2.root), model)
    agent2.start_session()
    prompt = agent2.system_prompt().text
    assert text.splitlines()[0] in prompt and "Parent change (hand-off)" in prompt
    stat = s2.vcs.diff(s2.current, stat=True).rstrip()  # the new change's own edit, in the prompt as is
    assert "export.py" in stat and f"Diff of the current change:\n{stat}" in prompt, (stat, prompt)
    list(agent2.turn("Now write the rows."))
    agent2.end_session("quit")
    agent3 = build_agent(settings_for(s2.root), model)
    agent3.start_session()
    assert agent3.history[0].content == "Now write the rows." and agent3.history[1].role == "assistant"
