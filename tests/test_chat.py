"""`nanobot chat` with the real bundled model: scripted through stdin, prefix reuse, Ctrl-C."""

import json
import re

from nanobot.config import load_settings
from nanobot.core.events import TextDelta, TurnDone
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.kvcache.feature import SUFFIX, KVCache
from nanobot.loop.agent import Agent
from nanobot.workspace import init_workspace
from tests.longreply import LongReplies

# plain chat: a tool decision (web_fetch among them) is not the subject, nor the session's observation
# (a detached child the test would wait for) or memory (the embedder's load)
OFF = {"NANOBOT_TOOLS__ENABLED": "[]", "NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_MEMORY__ENABLED": "false"}

STATS = re.compile(r"\[prompt (\d+) tok · reused (\d+) · evaluated (\d+) · (\d+) tok")


def test_piped_chat_answers_two_turns_and_reuses_the_prefix(cli, home):
    # plain chat (tools off): a 135M model's tool choice varies; tool turns: tests/test_tools_model.py
    proc = cli("chat", "-v", input="What is the capital of France?\nAnd what is the capital of Germany?\n",
               env=OFF)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Nano: "), proc.stdout
    stats = [tuple(map(int, m.groups())) for m in STATS.finditer(proc.stderr)]
    assert len(stats) == 2, proc.stderr
    (p1, r1, e1, c1), (p2, r2, e2, c2) = stats
    # turn 1 reuses what session start evaluated: the stable prefix, saved to disk, and on through the Time
    # section's date (a second entry, written behind the session start: there once that write finished)
    cache = KVCache(home / "cache" / "kv")
    headers = sorted((cache.read(f.name.removesuffix(SUFFIX))[0] for f in cache.files()), key=lambda h: h.n_tokens)
    stable = headers[0]
    assert 0 < stable.n_tokens < r1 < stable.n_tokens + 32  # "## Time", "Now: Sunday 2026-11-29"
    assert len(headers) <= 2 and all(h.n_tokens == r1 and h.tokens[: stable.n_tokens] == stable.tokens
                                     for h in headers[1:])
    # turn 2 re-evaluates nothing of turn 1's prompt: only the new message and the reply's tail
    assert r2 >= p1
    assert e2 <= p2 - p1
    # and the transcript has every message, as printed, with its figures
    records, warnings = read_transcript(list_transcripts(home / "sessions")[-1])
    assert not warnings
    roles = [r.role for r in records]
    assert roles == ["session", "user", "assistant", "user", "assistant", "event"]
    said = [r.content for r in records if r.role == "assistant"]
    assert all(f"Nano: {t}\n" in proc.stdout for t in said), (said, proc.stdout)  # (may be empty: EOS first)
    for rec, (p, r, e, c) in zip((records[2], records[4]), stats):
        assert (rec.meta["prompt_tokens"], rec.meta["reused_tokens"], rec.meta["evaluated_tokens"],
                rec.meta["completion_tokens"]) == (p, r, e, c)


def test_slash_commands_when_piped(cli, home):
    # replies capped: their length is the model's choice, and 512 tokens at 2 threads per worker on a
    # loaded 2-core machine ran past the time limit (the commands, not the replies, are under test)
    proc = cli("chat", input="/help\n/prompt\n/model\nhello\n/new\nagain\n/quit\nnever sent\n",
               env={**OFF, "NANOBOT_CHAT__MAX_TOKENS": "48"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "/new" in out and "/quit" in out  # help
    assert "soul" in out and "cap 2000" in out  # /prompt breakdown
    assert "model: smollm2" in out
    assert out.count("Nano:") == 2  # "never sent" was after /quit
    assert len(list_transcripts(home / "sessions")) == 2  # /new started a second session


def test_interrupted_reply_keeps_the_session(home, model, monkeypatch):
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", "[]")
    settings = load_settings(chat={"loop_guard": False, "max_tokens": 64})
    init_workspace(settings.workspace)
    agent = Agent(settings, LongReplies(model))  # no reply ends before the 5th piece
    events = agent.turn("Write a long story about a dragon and a knight.")
    pieces = []
    for ev in events:
        if isinstance(ev, TextDelta):
            pieces.append(ev.text)
            if len(pieces) == 5:
                break
    assert len(pieces) == 5  # stopped mid-reply, not after it
    events.close()  # what Ctrl-C does
    assert agent.history[-1].role == "assistant"
    partial = agent.history[-1].content
    assert partial and partial.strip() in "".join(pieces).strip() + " "  # kept what was said
    records, _ = read_transcript(agent.transcript.path)
    assert records[-1].role == "assistant" and records[-1].meta["interrupted"] is True
    # the session goes on
    done = [ev for ev in agent.turn("Say hi.") if isinstance(ev, TurnDone)][0]
    assert done.reply and not done.interrupted
    assert len(agent.history) == 4


def test_history_is_trimmed_to_fit_n_ctx(home, model, monkeypatch):
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", "[]")
    settings = load_settings()
    init_workspace(settings.workspace)
    settings.chat.max_tokens = 16
    agent = Agent(settings, model)
    monkeypatch.setattr(model, "n_ctx", 400)
    notices = []
    for i in range(6):
        for ev in agent.turn(f"Message {i}: " + "tell me about the sea " * 8):
            if ev.kind == "notice":
                notices.append(ev.text)
    assert any("history trimmed" in n for n in notices)
    assert model.prompt_tokens(agent.messages_for("x")) <= 400
    monkeypatch.undo()


def test_transcript_json_is_valid_jsonl(cli, home):
    proc = cli("chat", input="hi\n", env=OFF)  # tools off: a tool decision would add records
    assert proc.returncode == 0, proc.stderr
    (path,) = list_transcripts(home / "sessions")
    lines = path.read_text().splitlines()
    assert [json.loads(line)["role"] for line in lines] == ["session", "user", "assistant", "event"]
