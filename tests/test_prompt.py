"""The lean prompt: budgets counted with the real model's tokenizer, trimming reported, cap enforced."""

import json
import re

import pytest

from nanobot.backends.base import Message
from nanobot.core.prompt import RawSection, build_prompt, trim_to_budget
from tests.qwen import SKIP_REASON, qwen_path

QWEN = qwen_path()  # read before the ``home`` fixture clears NANOBOT_* variables


def words(text: str) -> int:
    return len(text.split())


def test_trim_keeps_whole_lines_from_the_top():
    text = "one two\nthree four\nfive six"
    assert trim_to_budget(text, 4, words) == "one two\nthree four"
    assert trim_to_budget(text, 100, words) == text
    assert trim_to_budget("a b c d e f", 3, words) == "a b c"  # one long line: cut at a word
    assert trim_to_budget(text, 0, words) == ""


def test_cap_trims_volatile_sections_first_and_reports():
    raw = [RawSection(name="soul", text="s " * 30, budget=50),
           RawSection(name="time", text="t " * 30, budget=50, stable=False)]
    built = build_prompt(raw, cap=40, count=words)
    assert built.total_tokens <= 40
    names = {s.name: s for s in built.sections}
    assert names["soul"].tokens == 30 and names["time"].trimmed_tokens > 0
    assert any("cap of 40" in t for t in built.trims)


def test_empty_sections_are_omitted_not_sent():
    built = build_prompt([RawSection(name="user", text="  ", budget=10)], cap=100, count=words)
    assert built.sections == [] and built.omitted == ["user"]


def test_template_workspace_is_under_cap_with_every_section_in_budget(cli, home):
    proc = cli("prompt", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cap"] == 2000 and 0 < data["total_tokens"] < data["cap"]
    for s in data["sections"]:
        assert 0 < s["tokens"] <= s["budget"], s
        assert s["text"] in data["text"]
    names = [s["name"] for s in data["sections"]]
    assert names[0] == "soul" and names[-1] == "time"  # stable first, volatile last
    assert "user" in data["omitted"]  # unedited USER.md template is not sent
    assert "<!--" not in data["text"]  # template guidance never sent
    assert data["trims"] == []


def test_prompt_reports_the_room_left_for_the_conversation(cli, home, model):
    proc = cli("prompt", "--json")
    data = json.loads(proc.stdout)
    room = data["conversation"]
    system = model.prompt_tokens([Message(role="system", content=data["text"])])
    assert room["tokens"] == data["n_ctx"] - system - room["reply_reserve"] > 0
    assert room["reply_reserve"] == 512 and 0.8 < room["share"] < 0.9  # the spec's ~85%
    text = cli("prompt").stdout
    assert f"room for the conversation: {room['tokens']} tokens" in text


def test_overlong_user_md_is_trimmed_and_reported(cli, home, model):
    cli("init")
    facts = "\n".join(f"- Fact {i}: the user likes topic number {i} and talks about it often." for i in range(80))
    (home / "workspace" / "USER.md").write_text("# User\n" + facts + "\n")
    proc = cli("prompt", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    user = next(s for s in data["sections"] if s["name"] == "user")
    assert user["tokens"] <= user["budget"] == 200
    assert user["trimmed_tokens"] > 0
    assert user["tokens"] == model.count_tokens(user["text"])  # counted with the model's tokenizer
    assert "Fact 0:" in user["text"] and "Fact 79:" not in user["text"]  # head kept
    assert any(t.startswith("user:") for t in data["trims"])
    human = cli("prompt")
    assert "trimmed" in human.stdout and "user" in human.stdout


def test_small_cap_is_never_exceeded(cli, home):
    proc = cli("prompt", "--json", env={"NANOBOT_PROMPT__CAP": "70"})
    data = json.loads(proc.stdout)
    assert data["total_tokens"] <= 70 and data["trims"]


def _first_turn_prompt(cli, *model: str) -> tuple[dict, int]:
    """``nanobot prompt --json --query hi`` and the ``prompt N tok`` of a first ``nanobot chat -v`` turn
    on "hi" in the same home."""
    quiet = {"NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_CHAT__MAX_TOKENS": "16"}
    proc = cli("prompt", "--json", "--query", "hi", *model, env=quiet)
    assert proc.returncode == 0, proc.stderr
    chat = cli("chat", "-v", *model, input="hi\n", env=quiet)
    assert chat.returncode == 0, chat.stderr
    return json.loads(proc.stdout), int(re.findall(r"\[prompt (\d+) tok", chat.stderr)[0])


def test_prompt_reports_what_the_first_turn_sends(cli, home):
    """SmolLM2 (names + schema on demand): the report's rows sum to what the first turn's reply was
    generated from, chat template included, and the room is counted from that."""
    data, sent = _first_turn_prompt(cli)
    report = data["sent"]
    assert report["call_format"] == "names" and report["tokens"] == sent
    assert sum(r["tokens"] for r in report["rows"]) == sent
    c = data["conversation"]
    assert c["tokens"] == data["n_ctx"] - report["prefix_tokens"] - c["reply_reserve"]


def test_prompt_reports_what_the_first_turn_sends_on_the_1_5b(cli, home):
    """The 1.5B's template renders the tools block (the lean listing by default): ``nanobot prompt``
    counts it, and the whole first turn stays under 1,000 tokens with >= 85% of n_ctx left."""
    if QWEN is None:
        pytest.skip(SKIP_REASON)
    data, sent = _first_turn_prompt(cli, "--model", str(QWEN))
    report = data["sent"]
    assert report["call_format"] == "template" and report["tokens"] == sent
    assert sum(r["tokens"] for r in report["rows"]) == sent
    assert any(r["name"] == "tools block (lean)" and r["tokens"] > 0 for r in report["rows"])
    assert sent <= 1000 and data["conversation"]["share"] >= 0.85
    again = json.loads(cli("prompt", "--json", "--model", str(QWEN), "--query", "hi").stdout)["sent"]["tokens"]
    human = cli("prompt", "--model", str(QWEN), "--query", "hi").stdout  # the home now has a session
    assert re.search(rf"total sent \(the turn with this message\) +{again}\b", human), human
