"""Disk KV cache of the stable prompt prefix, with the real bundled model."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest

from nanobot.backends.base import Message
from nanobot.config import load_settings
from nanobot.core.events import Notice
from nanobot.kvcache.feature import (
    MAGIC,
    KVCache,
    KVCacheFeature,
    cache_key,
    kv_settings,
    model_identity,
    stable_prefix_tokens,
)
from nanobot.runtime import build_agent

pytestmark = pytest.mark.slow


@pytest.fixture
def agent(home, model, monkeypatch):
    # plain turns (one model call each) and no embedder: these tests are about the KV cache
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", "[]")
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    return build_agent(load_settings(home), model)


def _prefix(agent):
    built = agent.system_prompt()
    return stable_prefix_tokens(agent.model, built.text, built.stable_text)


def _greedy(model, messages, n=12):
    text = "".join(model.stream(messages, max_tokens=n, temperature=0.0))
    return text, model.last


def test_key_changes_with_the_prefix_and_the_model_file(model, tmp_path, bundled):
    ident = model_identity(bundled)
    settings = kv_settings(model)
    base = cache_key(ident, settings, [1, 2, 3])
    assert cache_key(ident, settings, [1, 2, 3]) == base
    assert cache_key(ident, settings, [1, 2, 4]) != base  # prefix
    assert cache_key(ident, settings, [1, 2]) != base
    copy = tmp_path / "copy.gguf"  # same bytes, another file: another identity
    copy.write_bytes(bundled.read_bytes())
    assert cache_key(model_identity(copy), settings, [1, 2, 3]) != base
    os.utime(copy, ns=(1, 1))
    assert model_identity(copy)["mtime_ns"] == 1


def _load(model, **update):
    from nanobot.backends.llama import LlamaBackend

    return LlamaBackend(replace(model.resolved, settings=model.settings.model_copy(update=update)))


# each setting that changes the KV state, set on a second model loaded for real: kv_settings must
# read it from the live llama context (not from our config), and the key must change with it
LIVE_CHANGES = [
    ("n_ctx", {"n_ctx": 1024}),
    ("n_batch", {"n_batch": 256, "n_ubatch": 256}),
    ("n_ubatch", {"n_ubatch": 128}),
    ("type_k", {"type_k": "q8_0"}),
    ("type_v", {"type_v": "q8_0", "flash_attn": True}),
    ("flash_attn", {"flash_attn": "flip"}),
    ("n_gpu_layers", {"n_gpu_layers": 1}),
    ("chat_format", {"chat_format": "chatml"}),
]


def test_same_settings_give_the_same_key_across_loads(model):
    other = _load(model)
    try:
        assert kv_settings(other) == kv_settings(model)  # a restart can use the saved file
    finally:
        other.llm.close()


@pytest.mark.parametrize("field,update", LIVE_CHANGES, ids=[f for f, _ in LIVE_CHANGES])
def test_key_changes_with_each_live_kv_setting(model, bundled, field, update):
    if update.get("flash_attn") == "flip":
        update = {"flash_attn": not model.settings.flash_attn}
    other = _load(model, **update)
    try:
        a, b = kv_settings(model), kv_settings(other)
        assert a[field] != b[field]
        ident = model_identity(bundled)
        assert cache_key(ident, a, [1, 2, 3]) != cache_key(ident, b, [1, 2, 3])
    finally:
        other.llm.close()


def test_stable_prefix_ends_before_the_volatile_time_section(agent, model):
    prefix = _prefix(agent)
    built = agent.system_prompt()
    text = model.llm.detokenize(prefix, special=True).decode()
    assert built.stable_text.strip()[-30:] in text
    assert "## Time" not in text
    full = model.tokenize_prompt(model.render(agent.messages_for("hello")))
    assert full[: len(prefix)] == prefix


def _last_logits(llm) -> np.ndarray:
    return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).copy()


def test_restore_matches_cold_eval_and_reuses_the_prefix(agent, model, home):
    prefix = _prefix(agent)
    messages = agent.messages_for("What is the capital of France?")
    tokens = model.tokenize_prompt(model.render(messages))
    model.llm.reset()
    model.llm.eval(tokens)  # cold: the whole prompt in one evaluation
    cold = _last_logits(model.llm)

    cache = KVCache(home / "kv")
    model.llm.reset()
    saved = cache.prepare(model, prefix)
    assert saved.action == "saved" and saved.warning is None
    # the file holds the KV cells and tokens only: no n_ctx x vocab logits array (~800 MB here)
    assert os.path.getsize(saved.file) < len(prefix) * 30_000 + 100_000

    # warm: the prefix restored from the file, then the tail. Compared as logits with a tolerance
    # (two evaluation paths sum floats in another order: greedy tokens may differ on some CPU)
    model.llm.reset()
    assert cache.prepare(model, prefix).action == "restored"
    model.llm.eval(tokens[len(prefix):])
    assert np.corrcoef(_last_logits(model.llm), cold)[0, 1] > 0.999
    model.llm.reset()  # a restore that got the cells wrong would not match: the tail alone does not
    model.llm.eval(tokens[len(prefix):])
    assert np.corrcoef(_last_logits(model.llm), cold)[0, 1] < 0.99

    # and a reply reuses the restored prefix: only the tail is evaluated
    model.llm.reset()
    assert cache.prepare(model, prefix).action == "restored"
    _, warm = _greedy(model, messages, n=2)
    assert warm.reused_tokens == len(prefix)
    assert warm.evaluated_tokens == warm.prompt_tokens - len(prefix)


def test_hook_attached_by_runtime_restores_on_session_start(agent, model, home):
    hooks = [h for h in agent.features if isinstance(h, KVCacheFeature)]
    assert len(hooks) == 1
    hook = hooks[0]
    assert hook.cache.directory == agent.settings.cache_dir / "kv"
    model.llm.reset()
    agent.start_session()
    assert hook.last.action == "saved"
    model.llm.reset()  # as after a restart: nothing in the KV cache
    assert agent.start_session() == []
    agent.settings.chat.max_tokens = 16  # a short first reply: turn 2's figures do not depend on it
    assert hook.last.action == "restored"
    list(agent.turn("Say hello."))
    assert agent.last.reused_tokens == hook.last.prefix_tokens > 20
    first = agent.last
    list(agent.turn("And goodbye?"))  # turn 2 evaluates only what is new
    new = agent.last.prompt_tokens - first.prompt_tokens - first.completion_tokens
    assert agent.last.evaluated_tokens <= new + 0.05 * agent.last.prompt_tokens


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip_state_byte"])
def test_corrupt_cache_file_is_ignored_with_a_warning_and_rebuilt(agent, model, home, damage):
    prefix = _prefix(agent)
    cache = KVCache(home / "kv")
    model.llm.reset()
    path = cache.path_for(cache_key(model_identity(model.resolved.path), kv_settings(model), prefix))
    assert cache.prepare(model, prefix).action == "saved"
    raw = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a cache file at all")
    elif damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    else:
        path.write_bytes(raw[:-100] + bytes([raw[-100] ^ 0xFF]) + raw[-99:])
    hook = KVCacheFeature(cache)
    model.llm.reset()
    events = hook.on_session_start(agent)
    assert hook.last.action == "saved"
    assert len(events) == 1 and isinstance(events[0], Notice) and events[0].level == "warning"
    assert "ignored" in events[0].text
    assert path.read_bytes().startswith(MAGIC) and abs(len(path.read_bytes()) - len(raw)) < 64
    model.llm.reset()
    assert hook.on_session_start(agent) == [] and hook.last.action == "restored"


def test_file_for_another_key_is_rejected(agent, model, home):
    prefix = _prefix(agent)
    cache = KVCache(home / "kv")
    model.llm.reset()
    first = cache.prepare(model, prefix)
    other_key = cache_key(model_identity(model.resolved.path), kv_settings(model), prefix[:-1])
    cache.path_for(other_key).write_bytes(open(first.file, "rb").read())
    model.llm.reset()
    result = cache.prepare(model, prefix[:-1])
    assert result.action == "saved" and "another key" in result.warning


def test_disk_use_is_bounded_by_evicting_least_recently_used(tmp_path):
    cache = KVCache(tmp_path, max_mb=1)
    paths = []
    for i in range(4):
        paths.append(cache.write(f"{i:064x}", [1, 2, 3], os.urandom(300_000)))
        os.utime(paths[-1], (1000 + i, 1000 + i))
    assert cache.total_bytes() <= 1024 * 1024
    assert not paths[0].exists() and paths[-1].exists()
    assert cache.read(f"{3:064x}")[0].tokens == [1, 2, 3]
    assert cache.write("f" * 64, [1], os.urandom(2 * 1024 * 1024)) is None  # never fits: not saved


def test_not_attached_when_disabled_or_vocab_only(home, model, monkeypatch):
    from nanobot.runtime import open_agent

    assert not any(isinstance(h, KVCacheFeature) for h in open_agent(vocab_only=True).features)
    monkeypatch.setenv("NANOBOT_KV_CACHE__ENABLED", "false")
    agent = build_agent(load_settings(home), model)
    assert not any(isinstance(h, KVCacheFeature) for h in agent.features)


def test_warm_model_is_not_reevaluated(agent, model, home):
    prefix = _prefix(agent)
    cache = KVCache(home / "kv")
    model.llm.reset()
    model.llm.eval(prefix + model.tokenize_prompt("extra words"))
    result = cache.prepare(model, prefix)
    assert result.action == "warm" and os.path.exists(result.file)
    assert model.cached_prefix(prefix) == len(prefix)
    msgs = [Message(role="system", content=agent.system_prompt().text), Message(role="user", content="hi")]
    _greedy(model, msgs, n=2)
    assert model.last.reused_tokens >= len(prefix)


def test_unwritable_cache_dir_warns_and_the_session_still_starts(agent, model, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    hook = KVCacheFeature(KVCache(blocker / "kv"))
    model.llm.reset()
    events = hook.on_session_start(agent)
    from nanobot.base import background

    background.join_all()  # the longer entry's write, tried behind the session start
    assert hook.last.action == "saved" and (hook.last.file is None or not os.path.exists(hook.last.file))
    assert len(events) == 1 and "not saved" in events[0].text
    assert model.cached_prefix(_prefix(agent)) == len(_prefix(agent))  # still evaluated once
    assert hook.last.prefix_tokens > len(_prefix(agent))  # and on through the date


@pytest.fixture
def split_agent(home, model, monkeypatch):
    """An agent whose prompt is two system messages (template tool calls, forced on SmolLM2: its
    template ignores the schemas, the split is the same), with a CONTEXT.md to cache."""
    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", '["read_file", "write_file"]')
    monkeypatch.setenv("NANOBOT_TOOLS__CALL_FORMAT", "template")
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    monkeypatch.setenv("NANOBOT_OBSERVER__ENABLED", "false")
    agent = build_agent(load_settings(home), model)
    (agent.workspace / "CONTEXT.md").write_text("# Context\n\n## Now\n- Focus: the greeting script greet.py\n"
                                               "- Task: make it print the date in ISO format\n")
    agent.refresh_prompt()
    return agent


def _second_session(agent, model):
    from nanobot.base import background

    background.join_all()  # the longer entry's file, written behind the session start
    model.llm.reset()  # as after a restart: nothing in the KV cache
    agent.start_session()
    return agent.feature(KVCacheFeature).last


def test_second_session_restores_the_prefix_through_context_and_the_date(split_agent, model):
    """The disk cache holds the first system message with the schemas, that plus CONTEXT, and that
    plus the Time section through today's date: the next session that day restores the longest, so
    its first call evaluates only the clock time, the lines after it and the message (without the
    second entry it evaluated CONTEXT again each start, without the third the date)."""
    from nanobot.core.sections import day_line
    from nanobot.kvcache.feature import context_prefix, day_prefix, first_call_prefix

    agent = split_agent
    model.llm.reset()
    agent.start_session()
    assert len(agent.system_messages()) == 2 and "greet.py" in agent.system_messages()[1].content
    head = first_call_prefix(agent)
    longer = context_prefix(agent, head)
    day = day_prefix(agent, longer)
    text = model.llm.detokenize(longer[len(head):], special=True).decode()
    assert "ISO format" in text and "## Time" not in text  # CONTEXT, not the volatile Time
    dated = model.llm.detokenize(day[len(longer):], special=True).decode()
    assert dated.rstrip().endswith(day_line(agent.started)) and f"{agent.started:%H:%M}" not in dated
    first = agent.feature(KVCacheFeature).last
    assert first.action == "saved" and first.prefix_tokens == len(day) and first.evaluated == len(day)

    again = _second_session(agent, model)
    assert again.action == "restored" and again.prefix_tokens == len(day) and again.evaluated == 0
    assert model.cached_prefix(day) == len(day)
    agent.settings.chat.max_tokens = 4
    list(agent.turn("hi"))
    msgs, render = agent.first_call(agent.messages_for("hi"))
    prompt = model.tokenize_prompt(model.render(msgs, **render))
    assert prompt[: len(day)] == day  # the first call's prompt starts with what was restored
    clock_and_message = len(prompt) - len(day)
    assert agent.last.reused_tokens >= len(day) and agent.last.evaluated_tokens <= clock_and_message + 40


def test_a_start_on_another_day_restores_through_context_and_evaluates_the_date(split_agent, model):
    from datetime import timedelta

    from nanobot.kvcache.feature import context_prefix, day_prefix, first_call_prefix

    agent = split_agent
    model.llm.reset()
    agent.start_session()
    today = agent.started
    agent.clock = lambda: today + timedelta(days=1)
    tomorrow = _second_session(agent, model)
    head = first_call_prefix(agent)
    longer, day = context_prefix(agent, head), day_prefix(agent, context_prefix(agent, head))
    assert f"{today + timedelta(days=1):%Y-%m-%d}" in model.llm.detokenize(day[len(longer):]).decode()
    assert tomorrow.action == "restored" and tomorrow.prefix_tokens == len(day)
    assert 0 < tomorrow.evaluated == len(day) - len(longer)  # CONTEXT from disk, only the date evaluated
    assert _second_session(agent, model).evaluated == 0  # that day's entry is on disk now


def test_changed_context_restores_the_schemas_and_evaluates_only_context(split_agent, model):
    from nanobot.kvcache.feature import context_prefix, day_prefix, first_call_prefix

    agent = split_agent
    model.llm.reset()
    agent.start_session()
    (agent.workspace / "CONTEXT.md").write_text("# Context\n\n## Now\n- Focus: the README\n")
    changed = _second_session(agent, model)
    head = first_call_prefix(agent)
    longer = context_prefix(agent, head)
    day = day_prefix(agent, longer)
    assert "README" in model.llm.detokenize(longer[len(head):], special=True).decode()
    assert changed.action == "restored" and changed.prefix_tokens == len(day)
    assert changed.evaluated == len(day) - len(head)  # CONTEXT and the date: the schemas came from disk
    assert _second_session(agent, model).action == "restored"
    assert len(KVCache(agent.settings.cache_dir / "kv").files()) == 5  # schemas, two CONTEXTs, each dated


def test_prewarm_saves_the_next_start_s_entry_after_context_changed(split_agent, model):
    """What the housekeeping child does after it rewrote CONTEXT.md: the next start then restores
    the prefix through the new CONTEXT and evaluates none of it (without it: ~all of CONTEXT)."""
    from nanobot.kvcache.prewarm import prewarm

    agent = split_agent
    model.llm.reset()
    agent.start_session()
    (agent.workspace / "CONTEXT.md").write_text("# Context\n\n## Now\n- Focus: the README's install section\n")
    model.llm.reset()  # the child's model: whatever it observed, not this prefix
    result = prewarm(build_agent(agent.settings, model, interactive=True))  # as the child builds it
    assert result.action == "restored" and result.evaluated > 0  # the schemas from disk, CONTEXT evaluated
    assert prewarm(build_agent(agent.settings, model, interactive=True)).action == "present"
    nxt = _second_session(agent, model)
    assert nxt.action == "restored" and nxt.evaluated == 0 and nxt.prefix_tokens == result.prefix_tokens
    assert "install section" in model.llm.detokenize(model.llm._input_ids[: nxt.prefix_tokens].tolist(),
                                                      special=True).decode()


def test_housekeeping_child_prewarms_the_chat_it_observed(home, model, bundled, monkeypatch):
    """``housekeeping.work`` (in process; idle priority left out) observes a queued session, which
    rewrites CONTEXT.md, then saves the entry the next start of that chat restores whole."""
    from nanobot.base import foreground
    from nanobot.core.sections import day_line
    from nanobot.housekeeping.housekeep import work
    from nanobot.observer.handoff import write_job

    monkeypatch.setattr(foreground, "lower_priority", lambda nice=19: "unchanged (test)")
    for key, value in {"NANOBOT_TOOLS__ENABLED": '["read_file", "write_file"]', "NANOBOT_CHAT__MAX_TOKENS": "8",
                       "NANOBOT_TOOLS__CALL_FORMAT": "template", "NANOBOT_MEMORY__ENABLED": "false",
                       "NANOBOT_OBSERVER__REFLECT_ON_START": "false"}.items():
        monkeypatch.setenv(key, value)
    agent = build_agent(load_settings(home), model, interactive=True)
    model.llm.reset()
    agent.start_session()
    before = agent.feature(KVCacheFeature).last.prefix_tokens
    list(agent.turn("I am Ada. We decided to use the csv crate for my Rust CSV parser."))
    context = (agent.workspace / "CONTEXT.md").read_text()
    write_job(agent, "eof")
    said: list[str] = []
    assert work(agent.settings, str(bundled), said.append) == 1
    assert (agent.workspace / "CONTEXT.md").read_text() != context  # the observation rewrote it
    # saved or built on the restored schemas (the observation may have changed USER.md: then all)
    assert any(line.startswith("next start's KV cache for chat local: ") and "present" not in line
               for line in said), said
    agent.refresh_prompt()
    nxt = _second_session(agent, model)
    assert nxt.action == "restored" and nxt.evaluated == 0, nxt
    assert nxt.prefix_tokens != before
    # the session just observed is the next start's "Last session": on disk too, not evaluated then
    restored = model.llm.detokenize(model.llm._input_ids[: nxt.prefix_tokens].tolist(), special=True).decode()
    assert "## Last session\nEnded " in restored  # and Time through the date, not the clock time
    assert restored.endswith(day_line(agent.started)) and ":" not in restored.split("## Time")[-1].split("Now:")[-1]


def test_the_housekeeping_child_puts_every_judgements_examples_on_disk(split_agent, model):
    """``housekeeping.warmjudge.warm`` (the child's last job): afterwards another process's first
    judgement of any classifier restores its examples' state from disk instead of evaluating them."""
    from nanobot.housekeeping.warmjudge import warm
    from nanobot.kvcache.apart import ApartStore
    from nanobot.loop.judge import CLASSIFIERS, classifier_prompt

    agent = split_agent
    store = model.apart_store
    assert warm(agent, agent.settings.home) == len(CLASSIFIERS)  # read_file and write_file: no judged tool
    fresh = ApartStore(store.cache, model)  # a new process's store: it has read and written nothing
    for kind in CLASSIFIERS:
        assert fresh.restore(model, classifier_prompt(kind, "what is 17 times 3?")), kind


def test_an_install_makes_the_first_chats_start_ready(home, model, monkeypatch):
    """``nanobot models install`` of the default model (``housekeep.first_start``, as the CLI calls it):
    the first chat's judgements then restore their examples from disk instead of evaluating them while
    the person waits, as every later start does after housekeeping."""
    from nanobot.housekeeping.housekeep import first_start
    from nanobot.kvcache.apart import ApartStore
    from nanobot.kvcache.apart import make_feature as apart_feature
    from nanobot.loop.judge import CLASSIFIERS, classifier_prompt

    monkeypatch.setenv("NANOBOT_TOOLS__ENABLED", '["read_file", "write_file"]')
    monkeypatch.setenv("NANOBOT_MEMORY__ENABLED", "false")
    said: list[str] = []
    first_start(load_settings(home), said.append)
    assert any(line.startswith("next start's KV cache for chat local: ") and
               f"{len(CLASSIFIERS)} judgement prompt(s) ready" in line for line in said), said
    apart_feature(build_agent(load_settings(home), model))  # the first chat's store, in a process of its own
    fresh = ApartStore(model.apart_store.cache, model)
    for kind in CLASSIFIERS:
        assert fresh.restore(model, classifier_prompt(kind, "what is 17 times 3?")), kind


def test_a_write_left_unfinished_is_removed_once_stale(tmp_path):
    """The chat leaves without waiting for the longer entry's write: its temp file (~70 MB on the
    1.5B) goes at a later write once an hour old; a recent one may still be written, so it stays."""
    cache = KVCache(tmp_path)
    stale, fresh = tmp_path / f".{'a' * 64}.kv.x1.tmp", tmp_path / f".{'b' * 64}.kv.x2.tmp"
    for p in (stale, fresh):
        p.write_bytes(b"partial")
    os.utime(stale, (1000, 1000))
    cache.write("c" * 64, [1], b"state")
    assert not stale.exists() and fresh.exists()
