"""The real Qwen2.5-Coder-1.5B-Instruct (the catalogue's useful model): what the runtime guarantees
on it, never its wording. Its template and stop token are the GGUF's own; its remember judgement keeps
no thanks; a chat turn ends; a forced tool call parses and validates; the session-end observation
closes under its grammar or the reported fallback is taken; llama-cpp-python's server serves it. Skipped (with the reason) only when
the model is not installed; ``bash scripts/install.sh`` installs it, as CI does."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from nanobot.config import ModelSettings, load_settings
from nanobot.core.events import TextDelta, ToolCall, TurnDone
from nanobot.core.transcript import list_transcripts, read_transcript
from nanobot.loop.agent import Agent
from nanobot.models import ResolvedModel
from nanobot.observer.feature import FALLBACK_NOTE, attach_observer
from nanobot.tools.feature import attach_tools
from nanobot.workspace import init_workspace
from tests.qwen import ENTRY, SKIP_REASON, qwen_path
from tests.realmodel import Recorder, draft_closed, expected_generator

QWEN = qwen_path()
pytestmark = [pytest.mark.realmodel, pytest.mark.skipif(QWEN is None, reason=SKIP_REASON)]
# under xdist one 1.5B test runs at a time: tests/conftest.py:_one_qwen_at_a_time
FIXED = datetime(2026, 3, 2, 10, 30, tzinfo=UTC)
QUIET = {"NANOBOT_OBSERVER__ENABLED": "false", "NANOBOT_MEMORY__ENABLED": "false",
         "NANOBOT_CHAT__MAX_TOKENS": "48"}


@pytest.fixture(scope="module")
def qwen():
    from nanobot.backends.llama import LlamaBackend

    return LlamaBackend(ResolvedModel(ENTRY.name, QWEN, ModelSettings(**ENTRY.settings)))


def test_its_own_template_and_stop_token(qwen):
    from nanobot.backends.base import Message

    vocab = qwen.llm._model
    assert vocab.token_get_text(vocab.token_eos()) == "<|im_end|>" and qwen.llm.n_vocab() > 150_000
    msgs = [Message(role="system", content="You are terse."),
            Message(role="user", content="What is 2+2? Reply with the number.")]
    prompt = qwen.render(msgs)
    assert prompt.startswith("<|im_start|>system\nYou are terse.<|im_end|>\n")  # no default system
    assert prompt.endswith("<|im_start|>user\nWhat is 2+2? Reply with the number.<|im_end|>\n<|im_start|>assistant\n")
    text = "".join(qwen.stream(msgs, max_tokens=48, temperature=0))
    assert qwen.last.finish_reason == "stop" and "<|im" not in text  # ended on <|im_end|>, not cut


def test_its_remember_judgement_keeps_no_thanks(qwen):
    """The remember classifier (``loop.judge``) is what sends a message to memory_add where the model
    did not call it: on the 1.5B it judged "thank you, that helped" a sure yes (0.79) before a thanks
    was among its examples, and the thanks was kept in MEMORY.md. It passes its calibration, says no
    to thanks and yes to a fact to keep, in any of the languages it was shown."""
    from nanobot.loop.judge import BOUNDS, _calibrated, classifier_prompt

    def p(text: str) -> float:
        yes, no = qwen.yes_no_apart(classifier_prompt("remember", text))
        return yes / (yes + no)

    no, yes = BOUNDS["remember"]
    assert _calibrated(qwen, "remember")
    assert max(p("thank you, that helped"), p("thanks!")) < no - 0.2
    assert min(p("Remember that my bike lock code is 4512."), p("Merk dir: mein Zug fährt um 7:42.")) >= yes


def test_its_claim_reading_takes_no_answer_for_a_keeping(qwen):
    """The claimed classifier (``loop.judge.reply_claims``) reads whether a reply says something was kept
    or changed; its yes sends a turn where nothing was kept back to memory_add. On the 1.5B it read a
    reply that gives what was asked ('"Good night" in German is "Gute Nacht".': 0.985) as a claim, and
    the retry kept "Good night" in memory. It passes its calibration, says no to an answer (a
    translation, a synonym, a poem) and yes to a claim, in the languages of claimed_dev2.tsv."""
    from nanobot.loop.judge import BOUNDS, _calibrated, claim_text, classifier_prompt

    def p(message: str, reply: str) -> float:
        yes, no = qwen.yes_no_apart(classifier_prompt("claimed", claim_text(message, reply)))
        return yes / (yes + no)

    bound = BOUNDS["claimed"][1]
    assert _calibrated(qwen, "claimed")
    assert p("Translate 'good night' into German.", '"Good night" in German is "Gute Nacht".') < bound
    assert p("Traduce 'buenos días' al inglés.", '"Buenos días" en inglés es "good morning".') < bound
    assert p("Give me a synonym for happy.", 'A synonym for happy is "joyful".') < bound
    assert p("Remember that my dentist is Dr. Ito.", "Noted: your dentist is Dr. Ito.") >= bound
    assert p("Apunta que la reunión es el lunes.", "Anotado: la reunión es el lunes.") >= bound


def test_a_piped_chat_turn_ends_and_is_recorded(cli, home):
    r = cli("chat", "--model", str(QWEN), input="What is the capital of France?\n", env=QUIET)
    assert r.returncode == 0, r.stderr
    (path,) = list_transcripts(home / "sessions")
    records = read_transcript(path)[0]
    replies = [x for x in records if x.role == "assistant"]
    assert len(replies) == 1 and replies[0].content.strip()
    assert "<|im_" not in r.stdout


@pytest.fixture
def agent(home, qwen):
    settings = load_settings(home, chat={"temperature": 0, "max_tokens": 48}, memory={"enabled": False},
                             observer={"enabled": False}, kv_cache={"enabled": False},
                             tools={"enabled": ["read_file", "write_file", "list_dir"]})
    init_workspace(settings.workspace)
    (settings.workspace / "notes.txt").write_text("hello from notes\n")
    a = Agent(settings, qwen, clock=lambda: FIXED)
    attach_tools(a)
    a.start_session()
    return a


def test_forced_tool_calls_parse_and_validate(agent):
    runner = agent.tool_runner
    for request, tool in [("Read notes.txt", "read_file"), ("Write 'hi' to hello.txt", "write_file"),
                          ("What is in my workspace?", "list_dir")]:
        raw, args, error = runner.arguments(agent, agent.messages_for(request), runner.tools[tool])
        assert args is not None, f"{tool}: {error} in {raw!r}"
        assert isinstance(json.loads(raw), dict)
    events = list(agent.turn("What does the file notes.txt say?"))  # the whole loop runs and ends
    assert isinstance(events[-1], TurnDone)
    assert all(e.name in runner.names() for e in events if isinstance(e, ToolCall))


def test_session_end_observation_closes_or_falls_back(home, qwen):
    settings = load_settings(home, chat={"max_tokens": 24, "temperature": 0},
                             observer={"reflect_on_start": False}, memory={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, Recorder(qwen), clock=lambda: FIXED)
    hook = attach_observer(agent)
    agent.start_session()
    list(agent.turn("I am Ada. We decided to use the csv crate with serde for my Rust CSV parser."))
    notices = agent.end_session("quit")
    (written,) = [n.text for n in notices if "observation written" in n.text]
    (draft,) = agent.model.constrained()
    draft_closed(draft)  # closed under the grammar, or cut and then closed by the parser / fallback
    files = sorted((settings.workspace / "observations").glob("*.md"))
    assert len(files) == 1 and not hook.last_error
    from nanobot.observer.observer import load_observation

    part = load_observation(files[0]).parts[-1]
    assert part.generator == expected_generator(draft)
    assert written.endswith(FALLBACK_NOTE) == (part.generator == "fallback")  # the fallback is reported


def test_the_server_backend_serves_it(home, qwen, tmp_path):
    from tests.test_server_backend import agent_for, start_server, stop

    proc, url = start_server(QWEN, tmp_path / "server.log")
    try:
        agent = agent_for(home, url, tools=False)
        for text in ("hello world", "Zürich — 東京 🙂", "def f(x):\n    return x"):
            assert agent.model.count_tokens(text) == qwen.count_tokens(text)  # its 151k vocabulary
        events = list(agent.turn("Say hello."))
    finally:
        stop(proc)
    done = events[-1]
    assert isinstance(done, TurnDone) and done.generation.completion_tokens > 0
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip() == done.reply
    assert "<|im_" not in done.reply
