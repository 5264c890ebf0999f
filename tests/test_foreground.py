"""The chat comes first: housekeeping waits while a chat is typing a draft (its prefill) and
evaluates its own prompt in chunks, pausing between them, with the real bundled model."""

from __future__ import annotations

import os
import threading
import time

from nanobot.backends.base import Message
from nanobot.base import foreground

LONG = " ".join(f"Note {i}: the parser keeps rows with quoted commas intact." for i in range(40))


def _mark(home, name: str):
    path = home / "state" / "foreground" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    return path


def test_a_chat_typing_a_draft_holds_housekeeping_back_until_it_stops_or_goes_quiet(home):
    other = os.getppid()  # a live process that is not this one: the chat
    assert not foreground.active(home)
    typing = _mark(home, f"{other}.typing")
    assert foreground.active(home)
    old = time.time() - foreground.TYPING_S - 1  # a draft left alone: housekeeping goes on
    os.utime(typing, (old, old))
    assert not foreground.active(home)
    typing.unlink()
    _mark(home, "999999999.typing")  # its chat is gone: removed by the reader
    assert not foreground.active(home) and not list((home / "state" / "foreground").iterdir())
    foreground.typing(home)  # this process's own mark never holds itself back
    assert (home / "state" / "foreground" / f"{os.getpid()}.typing").exists() and not foreground.active(home)
    foreground.typing(home, on=False)
    assert not list((home / "state" / "foreground").iterdir())


def test_the_childs_prompt_is_evaluated_in_chunks_that_wait_for_a_busy_chat(home, model, monkeypatch):
    """The observation's prompt went to llama.cpp as one batch, run to its end (seconds on the 1.5B)
    while the chat's prefill shared the memory bandwidth; now a chat busy mid-prompt stops it at the
    next chunk until the chat is done."""
    model.llm.reset()
    batches, real_eval, evaluated = [], model.llm.eval, []
    busy = None

    def eval_(tokens):
        nonlocal busy
        batches.append(len(tokens))
        if busy is None:  # the chat gets busy while the first chunk runs
            busy = _mark(home, str(os.getppid()))
        result = real_eval(tokens)
        evaluated.append(time.monotonic())
        return result

    monkeypatch.setattr(model.llm, "eval", eval_)
    yielding = foreground.Yielding(model, home)
    out: list[str] = []
    worker = threading.Thread(target=lambda: out.extend(yielding.stream(
        [Message(role="user", content=LONG)], max_tokens=2, temperature=0)), daemon=True)
    worker.start()
    deadline = time.monotonic() + 60
    while not evaluated and time.monotonic() < deadline:  # the first chunk's end, however loaded the machine
        time.sleep(0.02)
    time.sleep(1.5)  # the chat stays busy this long after it
    try:
        assert batches and batches[0] <= getattr(foreground, "CHUNK", 32), batches  # a chunk, not the whole prompt
        assert len(batches) == 1, "evaluated on while the chat was busy"
    finally:
        busy.unlink()
    worker.join(60)
    assert not worker.is_alive() and out and yielding.waited >= 1.0
    assert sum(batches[:-2]) >= model.count_tokens(LONG)  # the whole prompt, chunk by chunk
