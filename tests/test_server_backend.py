"""The model-server backend against ``nanobot serve`` (llama-cpp-python's real OpenAI-compatible app)
running the bundled GGUF on 127.0.0.1 (started once per module, killed at teardown): a chat, constrained tool
calls that validate (GBNF and response_format), a second turn served from the server's prompt cache,
the bench, and the server killed mid-reply. Never asserts the model's wording."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from nanobot.backends.llama import free_threads
from nanobot.base.errors import ServerError
from nanobot.config import load_settings
from nanobot.core.events import TextDelta, ToolCall, TurnDone
from nanobot.core.transcript import read_transcript
from nanobot.runtime import build_agent, load_model
from nanobot.tools.grammar import decision_grammar
from tests.conftest import suite_threads
from tests.longreply import LongReplies
from tests.test_server_backend_fake import write_config
from tests.test_tools_model import CUT, REQUESTS, OfflineFetch, OfflineSearch

pytestmark = pytest.mark.slow


def start_server(gguf: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """``nanobot serve GGUF`` on a free loopback port (its own empty home beside ``log``): the command
    README gives, with nanobot's settings for the model (weight repacking off on AMX builds, whose
    first multi-token batch crashes otherwise)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    threads = str(suite_threads() or free_threads())
    env = os.environ | {"NANOBOT_HOME": str(log.parent / "serve-home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanobot", "serve", str(gguf), "--host", "127.0.0.1", "--port", str(port),
         "--threads", threads, "--verbose"],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, cwd=str(Path(__file__).parent.parent))
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"nanobot serve exited: {log.read_text()[-2000:]}"
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("nanobot serve did not become ready in 120 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory, bundled):
    log = tmp_path_factory.mktemp("server") / "server.log"
    proc, url = start_server(bundled, log)
    yield url, log
    stop(proc)


def agent_for(home, url: str, tools: bool, **model_extra):
    write_config(home, url, **model_extra)
    settings = load_settings(home, chat={"temperature": 0, "max_tokens": 24})
    if not tools:
        settings.tools.enabled = []
    agent = build_agent(settings, load_model(settings))
    (settings.workspace / "notes.txt").write_text("hello from notes\n")
    return agent


def test_detects_the_server_and_counts_with_its_tokenizer(home, server, model):
    agent = agent_for(home, server[0], tools=False)
    caps = agent.model.detect()
    assert (caps.flavor, caps.structured, caps.tokenize) == ("llama-cpp-python", "grammar", "/extras/tokenize/count")
    for text in ("hello world", "## Tools\nread_file, write_file, exec", "Zürich — 東京 🙂"):
        assert agent.model.count_tokens(text) == model.count_tokens(text)  # the same GGUF in process


def test_a_chat_turn_streams_and_is_recorded(home, server):
    agent = agent_for(home, server[0], tools=False)
    events = list(agent.turn("Hello! What can you do?"))
    done = events[-1]
    assert isinstance(done, TurnDone)
    deltas = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert deltas.strip() == done.reply and done.generation.completion_tokens > 0
    assert 0 < done.generation.ttft_s <= done.generation.total_s
    recs = read_transcript(agent.transcript.path)[0]
    assert [r.role for r in recs if r.role in ("user", "assistant")] == ["user", "assistant"]
    assert recs[-1].content == done.reply


# GBNF `grammar` (what llama-cpp-python's server takes; its response_format does not accept a
# json_schema, so that path is tested against a json_schema fake in test_server_backend_fake.py)
@pytest.mark.parametrize("structured", ["auto"])
def test_constrained_tool_calls_validate(home, server, structured):
    agent = agent_for(home, server[0], tools=True, structured=structured)
    runner = agent.tool_runner
    agent.start_session()
    names = runner.names()
    grammar = decision_grammar(names)
    runner.tools |= {"web_fetch": OfflineFetch(), "web_search": OfflineSearch()}
    checked, cut = 0, []
    for request, tool in REQUESTS[::4]:
        msgs = agent.messages_for(request)
        decision = "".join(agent.model.stream(msgs, max_tokens=24, temperature=0.0, grammar=grammar))
        assert decision in grammar.choices, f"unconstrained decision {decision!r}"
        if tool in runner.tools:
            raw, args, error = runner.arguments(agent, msgs, runner.tools[tool])
            if args is None and CUT in error:  # a free-text argument ran past args_tokens: reported
                assert agent.model.last.finish_reason == "length", (tool, raw)
                cut.append(tool)
                continue
            assert args is not None, f"{tool}: {error} in {raw!r}"
            assert json.loads(raw) is not None
            checked += 1
    print(f"[server] {checked} calls validated, {len(cut)} cut at args_tokens: {cut}")
    assert checked >= 5
    events = list(agent.turn("What does the file notes.txt say?"))  # the whole loop runs
    assert isinstance(events[-1], TurnDone)
    assert all(e.name in names for e in events if isinstance(e, ToolCall))


def test_second_turn_is_served_from_the_prompt_cache(home, server):
    url, log = server
    agent = agent_for(home, url, tools=False)
    list(agent.turn("Hi, I am planning a trip."))
    mark = log.stat().st_size
    done = list(agent.turn("Which city should I visit first?"))[-1]
    # llama-cpp-python reports no cached tokens over HTTP: the figures say so, the server log tells
    gen = done.generation
    assert gen.reuse_known is False and gen.prompt_tokens > 0 and gen.evaluated_tokens == gen.prompt_tokens
    with log.open() as f:
        f.seek(mark)
        hits = [int(line.split()[1]) for line in f if "prefix-match hit" in line]
    system_tokens = agent.model.count_tokens(agent.system_prompt().text)
    assert hits and max(hits) >= system_tokens, f"no prefix reuse of the {system_tokens}-token system prompt: {hits}"


def test_bench_against_the_server_and_in_process(home, server):
    from nanobot.bench.server import run_server_bench

    write_config(home, server[0])
    result = run_server_bench(load_settings(home), "srv", against="smollm2", repeat=1, gen_tokens=4)
    assert result.flavor == "llama-cpp-python" and result.turn1_prompt_tokens > 100
    for side in (result.server, result.in_process):
        assert side.ttft_turn1.n == 1 and side.ttft_turn1.median > 0 and side.ttft_turn2.median > 0
        assert side.gen_tps.median > 0 and side.turn2_prompt_tokens > result.turn1_prompt_tokens
    assert result.server.turn2_reused_tokens is None  # not reported by this server
    assert result.in_process.turn2_reused_tokens > 0
    assert result.overhead_turn1_pct is not None and result.overhead_turn2_s is not None


def test_server_killed_mid_reply(home, bundled, tmp_path):
    proc, url = start_server(bundled, tmp_path / "dying.log")
    try:
        agent = agent_for(home, url, tools=False)
        agent.model = LongReplies(agent.model)  # the reply cannot end before the server is killed
        agent.settings.chat.loop_guard = False
        agent.settings.chat.max_tokens = 8
        list(agent.turn("Say hi."))
        before = agent.transcript.path.read_text().splitlines()
        agent.settings.chat.max_tokens = 300
        received = []
        with pytest.raises(ServerError) as err:
            for ev in agent.turn("Write a long story about a lighthouse keeper, in many paragraphs."):
                if isinstance(ev, TextDelta):
                    received.append(ev.text)
                    if len(received) == 3:
                        os.kill(proc.pid, signal.SIGKILL)
        assert len(received) >= 3  # killed mid-reply, not after it
        msg = str(err.value)
        assert "\n" not in msg and "mid-reply" in msg and url in msg
    finally:
        stop(proc)
    after = agent.transcript.path.read_text().splitlines()
    assert after[: len(before)] == before
    recs = read_transcript(agent.transcript.path)[0]
    partial = [r for r in recs if r.role == "assistant"][-1]
    assert partial.meta["partial"] is True and partial.meta["interrupted"] is True
    assert partial.content and partial.content == "".join(received).strip()  # all that was streamed
    assert recs[-1].content == "turn failed"
