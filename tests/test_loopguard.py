"""Loop-free replies: the stream-level loop guard (scripted streams) and llama.cpp's DRY sampler in the
real backend's sampler chain."""

import io

import pytest
from rich.console import Console

from nanobot.backends.scripted import ScriptedModel
from nanobot.config import load_settings
from nanobot.core.events import TurnDone
from nanobot.core.transcript import read_transcript
from nanobot.loop.agent import Agent
from nanobot.loop.stream import LoopGuard

PARAGRAPH = "I'm sure you're referring to the Fizzbong project, which is a compiler for Rust. "
LOOPING = "Hello Ada! " + PARAGRAPH * 5 + "The end."


def feed_words(guard: LoopGuard, text: str) -> int:
    """Feed ``text`` as a model would stream it (word pieces); how many pieces went in."""
    for n, piece in enumerate(text.split(" "), start=1):
        if guard.feed(piece + " "):
            return n
    return 0


def test_guard_trips_on_a_repeated_sentence_and_cuts_before_it():
    guard = LoopGuard()
    assert feed_words(guard, LOOPING) < len(LOOPING.split(" ")) // 2
    assert guard.text[: guard.cut] == "Hello Ada! " + PARAGRAPH


def test_guard_trips_on_a_long_repeated_run_without_sentence_ends():
    run = "one two three four five six seven eight nine ten eleven twelve, "
    guard = LoopGuard(ngram=12)
    assert feed_words(guard, "start " + run * 3)
    assert guard.text[: guard.cut].strip() == "start " + run.strip()


def test_guard_leaves_varied_text_and_short_repeats_alone():
    varied = " ".join(f"Step {i}: add the item number {i} to the list of things." for i in range(30))
    assert feed_words(LoopGuard(), varied) == 0
    assert feed_words(LoopGuard(), "Yes. Yes. Yes. Thanks. Thanks. Sure. Sure.") == 0  # short


def test_agent_stops_a_repeating_stream_and_records_why(home):
    settings = load_settings(chat={"max_tokens": 512, "temperature": 0})
    model = ScriptedModel(["ok", LOOPING])
    agent = Agent(settings, model)
    list(agent.turn("hi"))
    events = list(agent.turn("My name is Ada."))
    done = events[-1]
    assert isinstance(done, TurnDone) and done.generation.finish_reason == "repetition"
    assert done.reply == ("Hello Ada! " + PARAGRAPH).strip()
    assert model.last.completion_tokens < len(LOOPING.split(" "))  # the stream was closed early
    assert agent.history[-1].content == done.reply
    records, _ = read_transcript(agent.transcript.path)
    assert records[-2].role == "assistant" and records[-2].meta["finish_reason"] == "repetition"
    assert records[-1].role == "event" and records[-1].content == "stopped: repetition"


def test_guard_off_lets_the_loop_run(home):
    settings = load_settings(chat={"loop_guard": False, "temperature": 0})
    done = list(Agent(settings, ScriptedModel([LOOPING])).turn("hi"))[-1]
    assert done.generation.finish_reason == "stop" and done.reply == LOOPING


def test_verbose_line_says_stopped_repetition(home):
    from nanobot.cli.chat import ChatUI

    settings = load_settings(chat={"temperature": 0})
    agent = Agent(settings, ScriptedModel([LOOPING]))
    ui = ChatUI(agent, interactive=False, verbose=True)
    ui.out, ui.err = (Console(file=io.StringIO(), width=400) for _ in range(2))
    ui.render(agent.turn("hi"))
    assert "stopped: repetition]" in ui.err.file.getvalue()
    assert ui.out.file.getvalue().count("Fizzbong") == 2  # shown once, and the repeat that tripped it


def sampler_names(llm) -> list[str]:
    import llama_cpp

    chain = llm._sampler.sampler
    names = [llama_cpp.llama_sampler_name(llama_cpp.llama_sampler_chain_get(chain, i)).decode()
             for i in range(llama_cpp.llama_sampler_chain_n(chain))]
    return [n.lstrip("?") for n in names]  # llama.cpp 0.3.36 names DRY "?dry"


@pytest.mark.slow
def test_dry_sampler_in_the_real_chain_only_when_on(home, model):
    """The real backend builds llama.cpp's DRY sampler into the chain (after the penalties, before
    the final pick) when ``dry`` is given, and llama-cpp-python's own chain otherwise."""
    from nanobot.backends.base import Message
    from nanobot.backends.sampling import dry_sampler

    msgs = [Message(role="user", content="Say hello.")]
    dry = dry_sampler(load_settings().chat)
    "".join(model.stream(msgs, max_tokens=4, temperature=0.0, dry=dry))
    on = sampler_names(model.llm)
    "".join(model.stream(msgs, max_tokens=4, temperature=0.0))
    off = sampler_names(model.llm)
    assert on == ["penalties", "dry", "greedy"] and off == ["penalties", "greedy"]
    "".join(model.stream(msgs, max_tokens=4, temperature=0.3, dry=dry))
    assert sampler_names(model.llm)[:2] == ["penalties", "dry"] and sampler_names(model.llm)[-1] == "dist"
    assert dry_sampler(load_settings(chat={"dry_multiplier": 0}).chat) is None
