"""The model-server backend against small fakes on 127.0.0.1: a server with no structured output (the
stated fallback: parse -> validate -> retry, said once per session), a json_schema server, and the
failures a real server cannot be made to show on demand (down, slow, non-JSON, HTTP error, a
connection cut mid-reply). The real llama-cpp-python server: tests/test_server_backend.py."""

from __future__ import annotations

import json
import time

import pytest

from nanobot.base.errors import ConfigError, ModelError, ServerError
from nanobot.config import load_settings
from nanobot.core.events import Notice, ToolCall, ToolResult
from nanobot.core.transcript import read_transcript
from nanobot.runtime import build_agent, load_model
from tests.openai_fake import Cut, FakeOpenAI, Raw, Slow, Status, closed_port_url

CONSTRAINTS = ("grammar", "response_format", "structured_outputs", "guided_json", "guided_choice", "guided_grammar")


def write_config(home, url: str, **extra) -> None:
    home.mkdir(parents=True, exist_ok=True)
    lines = ['model = "srv"', "[models.srv]", f'base_url = "{url}"', 'served_model = "fake"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    lines += ["[memory]", "enabled = false", "[observer]", "enabled = false"]
    (home / "config.toml").write_text("\n".join(lines) + "\n")


def agent_for(home, tools: bool = True):
    settings = load_settings(home)
    if not tools:
        settings.tools.enabled = []
    agent = build_agent(settings, load_model(settings))
    (settings.workspace / "notes.txt").write_text("hello from notes\n")
    return agent


def run_turn(agent, text: str) -> list:
    return list(agent.turn(text))


def records(agent):
    return read_transcript(agent.transcript.path)[0]


def test_no_structured_output_falls_back_to_parse_validate_retry(home):
    script = ["Tool: read_file", "{not json", '{"path": "notes.txt"}', "Answer:", "It says hello.",
              "Answer:", "Bye."]
    with FakeOpenAI(script) as fake:
        write_config(home, fake.url)
        agent = agent_for(home)
        first = run_turn(agent, "What is in notes.txt?")  # ("read X" nanobot reads itself)
        second = run_turn(agent, "thanks")
    notices = [e.text for e in first + second if isinstance(e, Notice) and "cannot constrain" in e.text]
    assert len(notices) == 1, "said once per session"
    assert "parsed, validated and retried" in notices[0]
    results = [e for e in first if isinstance(e, ToolResult)]
    assert not results[0].ok and "not valid JSON" in results[0].text  # validated, then retried
    call = next(e for e in first if isinstance(e, ToolCall))
    assert call.name == "read_file" and call.arguments["path"] == "notes.txt"
    assert results[1].ok and "hello from notes" in results[1].text
    assert first[-1].reply == "It says hello." and second[-1].reply == "Bye."
    assert all(not set(CONSTRAINTS) & set(r) for r in fake.requests), "nothing sent that the server cannot do"
    args_req = fake.requests[1]
    assert args_req["messages"][-1]["role"] == "assistant"  # the prefill: the tool's signature
    assert args_req["messages"][-1]["content"].startswith("Tool: read_file")
    # the stable prefix travels identically every request (prefix caching on the server)
    assert len({json.dumps(r["messages"][0]) for r in fake.requests}) == 1


def test_json_schema_server_gets_response_format_and_the_decision_comes_back_unwrapped(home):
    script = ['{"step": "Tool: read_file"}', '{"path": "notes.txt"}', '{"step": "Answer:"}', "It says hello."]
    with FakeOpenAI(script) as fake:
        write_config(home, fake.url, structured="json_schema")
        agent = agent_for(home)
        events = run_turn(agent, "What is in notes.txt?")
    assert not any(isinstance(e, Notice) and "cannot constrain" in e.text for e in events)
    decision = fake.requests[0]["response_format"]["json_schema"]["schema"]
    assert "Tool: read_file" in decision["properties"]["step"]["enum"]
    args_schema = fake.requests[1]["response_format"]["json_schema"]["schema"]
    assert "path" in args_schema["properties"]
    assert any(isinstance(e, ToolCall) and e.arguments["path"] == "notes.txt" for e in events)
    assert events[-1].reply == "It says hello."


def test_server_down_is_one_line_and_the_message_is_kept(home):
    write_config(home, closed_port_url(), connect_timeout=1.0)
    agent = agent_for(home, tools=False)
    start = agent.start_session()
    assert any(isinstance(e, Notice) and "not answering" in e.text for e in start)
    with pytest.raises(ServerError) as err:
        run_turn(agent, "hello?")
    msg = str(err.value)
    assert "\n" not in msg and "not answering" in msg and "base_url" in msg
    recs = records(agent)
    assert [(r.role, r.content) for r in recs if r.role in ("user", "assistant")] == [("user", "hello?")]
    assert any(r.role == "event" and r.content == "turn failed" for r in recs)


def test_slow_server_times_out_with_the_setting_named(home):
    with FakeOpenAI([Slow(6.0)]) as fake:
        write_config(home, fake.url, read_timeout=0.3)
        agent = agent_for(home, tools=False)
        t0 = time.perf_counter()
        with pytest.raises(ServerError) as err:
            run_turn(agent, "hi")
        elapsed = time.perf_counter() - t0
    assert "read_timeout" in str(err.value) and "\n" not in str(err.value)
    assert elapsed < 3.0  # the 0.3 s limit, not the server's 6 s


def test_non_json_answer(home):
    with FakeOpenAI([Raw("<html><body>It works!</body></html>")]) as fake:
        write_config(home, fake.url)
        agent = agent_for(home, tools=False)
        with pytest.raises(ServerError) as err:
            run_turn(agent, "hi")
    assert "not OpenAI-style JSON" in str(err.value) and "/v1" in str(err.value)


def test_http_error_gives_the_servers_own_words(home):
    body = json.dumps({"error": {"message": "The model `fake` does not exist.", "type": "NotFoundError"}})
    with FakeOpenAI([Status(404, body)]) as fake:
        write_config(home, fake.url)
        agent = agent_for(home, tools=False)
        with pytest.raises(ServerError) as err:
            run_turn(agent, "hi")
    msg = str(err.value)
    assert "HTTP 404" in msg and "does not exist" in msg and "served_model" in msg and "\n" not in msg


def test_connection_cut_mid_reply_keeps_earlier_lines_and_the_partial_reply(home):
    with FakeOpenAI(["Hello there friend.", Cut("one two three")]) as fake:
        write_config(home, fake.url)
        agent = agent_for(home, tools=False)
        run_turn(agent, "first message")
        before = agent.transcript.path.read_text().splitlines()
        pieces = []
        with pytest.raises(ServerError) as err:
            for ev in agent.turn("second message"):
                pieces.append(getattr(ev, "text", ""))
    assert "mid-reply after 3 tokens" in str(err.value) and "\n" not in str(err.value)
    assert "".join(pieces) == "one two three"  # streamed before the cut
    after = agent.transcript.path.read_text().splitlines()
    assert after[: len(before)] == before  # every earlier line kept as it was
    recs = records(agent)
    partial = [r for r in recs if r.role == "assistant"][-1]
    assert partial.content == "one two three"
    assert partial.meta["interrupted"] is True and partial.meta["partial"] is True
    assert recs[-1].role == "event" and recs[-1].content == "turn failed"
    assert agent.history[-1].content == "one two three"  # the session goes on with what was said


def test_api_key_from_the_named_variable(home, monkeypatch):
    with FakeOpenAI(["ok"]) as fake:
        write_config(home, fake.url, api_key_env="NANOBOT_TEST_KEY")
        with pytest.raises(ModelError, match=r"\$NANOBOT_TEST_KEY"):
            agent_for(home, tools=False)
        monkeypatch.setenv("NANOBOT_TEST_KEY", "s3cret")
        run_turn(agent_for(home, tools=False), "hi")
    assert fake.headers[-1]["Authorization"] == "Bearer s3cret"
    assert "s3cret" not in (home / "config.toml").read_text()


def test_a_key_in_place_of_a_variable_name_is_refused(home):
    write_config(home, "http://127.0.0.1:9/v1", api_key_env="sk-live-1234")
    with pytest.raises(ConfigError, match="never the key"):
        load_settings(home)


def test_cli_models_and_prompt_against_a_server(home, cli):
    with FakeOpenAI() as fake:
        write_config(home, fake.url)
        with open(home / "config.toml", "a") as f:
            f.write(f'[models.gone]\nbase_url = "{closed_port_url()}"\n')
        out = cli("models", "--json")
        rows = {r["name"]: r for r in json.loads(out.stdout)}
        prompt = cli("prompt", "--json")
    assert rows["srv"]["exists"] is True and rows["srv"]["url"] == fake.url
    assert rows["srv"]["server"].startswith("openai · structured output: none")
    assert rows["gone"]["exists"] is False and "not answering" in rows["gone"]["server"]
    data = json.loads(prompt.stdout)
    assert data["token_counting"].startswith("approximation")
    assert data["total_tokens"] > 0


def test_cli_chat_with_the_server_down_says_one_line(home, cli):
    write_config(home, closed_port_url(), connect_timeout=1.0)
    out = cli("chat", input="hello\n", timeout=120, env={"NANOBOT_OBSERVER__ENABLED": "false"})
    assert "Traceback" not in out.stderr
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("Error:")]
    assert errors and "not answering" in errors[0] and "srv" in errors[0]
