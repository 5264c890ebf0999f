"""The disk KV state of the judgements' example prompts (``kvcache.apart``), with the real bundled model:
a judgement in a new process reads the examples' state from disk instead of evaluating them."""

from __future__ import annotations

import pytest

from nanobot.kvcache.apart import ApartStore
from nanobot.kvcache.feature import KVCache
from nanobot.loop.judge import classifier_prompt

pytestmark = pytest.mark.slow


@pytest.fixture
def fresh(model):
    """The shared model as a new process finds it: no judgement's state in memory, an empty context."""
    def reset(store):
        model._apart.clear()
        model._answered.clear()
        model.scored.clear()
        model.llm.reset()
        model.llm._ctx.kv_cache_clear()
        model.apart_store = store
        return model
    yield reset
    model.apart_store = None
    model._apart.clear()
    model._answered.clear()


def _counted(model) -> list[int]:
    evaluated: list[int] = []
    plain = model.llm.eval
    model.llm.eval = lambda tokens: (evaluated.append(len(tokens)), plain(tokens))[1]
    return evaluated


def test_a_new_process_reads_the_examples_state_and_judges_the_same(fresh, tmp_path):
    cache = KVCache(tmp_path / "kv")
    asked = classifier_prompt("look", "what is in notes.txt?")
    model = fresh(ApartStore(cache, fresh(None)))
    first = model.yes_no_apart(asked)
    assert len(cache.files()) == 1  # the examples' prefix, written once
    prefix = model.apart_store.prefix(model, asked)
    assert len(prefix) > 100
    model = fresh(ApartStore(cache, model))  # the next process
    evaluated = _counted(model)
    try:
        again = model.yes_no_apart(asked)
    finally:
        del model.llm.eval
    assert again == pytest.approx(first, abs=1e-3)
    whole = len(model.tokenize_prompt(model.render(asked)))
    assert sum(evaluated) <= whole - len(prefix) + 4  # the message and the answer, not the examples
    assert len(cache.files()) == 1
    other = model.yes_no_apart(classifier_prompt("look", "hi"))  # the same examples: no second file
    assert 0 <= other[0] <= 1 and len(cache.files()) == 1


def test_the_fit_checks_tool_line_is_kept_with_its_examples(fresh, tmp_path):
    """The fit check's prompt opens its last message with the tool's line (``fitcheck.fit_lead``):
    that line's state is on disk with the examples, so a new process judging the tool evaluates only
    the user's words."""
    from nanobot.tools.fitcheck import fit_lead, fit_prompt, fits

    cache = KVCache(tmp_path / "kv")
    spec = {"name": "ping_note", "description": "Write a word into ping.txt.", "parameters": {"properties": {"word": {}}}}
    model = fresh(ApartStore(cache, fresh(None)))
    first = fits(model, spec, "ping the word hi")
    model = fresh(ApartStore(cache, model))  # the next process
    evaluated = _counted(model)
    try:
        again = fits(model, spec, "ping the word hi")
    finally:
        del model.llm.eval
    assert again == pytest.approx(first, abs=1e-3)
    asked = fit_prompt(spec, "ping the word hi")
    kept = model.apart_store.prefix(model, asked, fit_lead(spec))
    assert len(kept) > len(model.apart_store.prefix(model, asked)) + 10  # the tool's line is in it
    assert sum(evaluated) <= len(model.tokenize_prompt(model.render(asked))) - len(kept) + 4


def test_a_damaged_file_is_evaluated_again_and_rewritten(fresh, tmp_path):
    cache = KVCache(tmp_path / "kv")
    asked = classifier_prompt("remember", "my cat is called Miso")
    model = fresh(ApartStore(cache, fresh(None)))
    first = model.yes_no_apart(asked)
    [path] = cache.files()
    path.write_bytes(path.read_bytes()[:-100])
    model = fresh(ApartStore(cache, model))
    assert model.yes_no_apart(asked) == pytest.approx(first, abs=1e-3)
    assert cache.read(path.stem) is not None  # written again whole


def test_a_classifiers_calibration_is_scored_once_and_read_by_the_next_process(fresh, tmp_path):
    """``judge.trusted`` scores the calibration examples in the first process and keeps the answer in
    judged.json; the next process reads it and scores nothing. Another model setting is another key."""
    from nanobot.loop import judge

    cache = KVCache(tmp_path / "kv")
    model = fresh(ApartStore(cache, fresh(None)))
    model.__dict__.pop("_judge_trusted", None)
    first = judge.trusted(model, "look")
    assert (tmp_path / "kv" / "judged.json").is_file()
    model = fresh(ApartStore(cache, model))
    model.__dict__.pop("_judge_trusted", None)
    scored: list = []
    model.yes_no_apart = lambda messages, **_: scored.append(messages) or (0.5, 0.5)
    try:
        assert judge.trusted(model, "look") is first and not scored  # read, not scored
        other = ApartStore(cache, model)
        other.settings = other.settings | {"n_ctx": 1}
        model.apart_store = other
        model.__dict__.pop("_judge_trusted", None)
        judge.trusted(model, "look")
        assert scored  # another key: scored again
    finally:
        del model.yes_no_apart
        model.__dict__.pop("_judge_trusted", None)


def test_the_kv_cache_gives_the_model_its_store_in_the_same_directory(home, fresh, monkeypatch):
    from nanobot.config import load_settings
    from nanobot.runtime import build_agent

    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    model = fresh(None)
    settings = load_settings(home)
    build_agent(settings, model)
    assert isinstance(model.apart_store, ApartStore) and model.apart_store.cache.directory == settings.cache_dir / "kv"
    monkeypatch.setenv("NANOBOT_KV_CACHE__ENABLED", "false")
    model.apart_store = None
    build_agent(load_settings(home), model)
    assert model.apart_store is None  # the cache off: nothing kept on disk
