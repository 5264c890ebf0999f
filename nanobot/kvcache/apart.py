"""The disk KV cache of the prompts scored apart from the conversation (``LlamaBackend.yes_no_apart``):
the judge's few-shot classifiers and the fit check. Their system message and examples are the same in
every process, so the KV state of that prefix is kept on disk like the stable prompt's
(``kvcache.feature.KVCache``, the same key: model identity, KV settings, exact tokens). A new process's
first judgement then evaluates only the message judged, not the few hundred tokens of examples before
it (seconds on two cores, paid by the first turn of every start before this store).

The prefix is what every rendering of the prompt shares whatever the last message says (two probe
messages rendered, their common tokens less one boundary token); each is written once per process.
A file that cannot be used is ignored and written again.

A judgement's check against its calibration examples (``loop.judge.trusted``) is a fact of the model and
the prompts too: ``remembered`` keeps it in ``judged.json`` beside the states, keyed the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from typing import Any

from nanobot.backends.kvstate import StateError, restore, seq_state
from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.kvcache.feature import (
    CorruptCache,
    KVCache,
    KVCacheFeature,
    cache_key,
    kv_settings,
    model_identity,
)
from nanobot.kvcache.feature import make_feature as prefix_feature

PROBES = ("a", "Zeig mir bitte alles")  # two last messages that share no first token


class ApartStore:
    """Read and write the KV state of ``yes_no_apart`` prompts' shared prefix in ``cache``."""

    def __init__(self, cache: KVCache, backend: Any):
        self.cache = cache
        self.identity, self.settings = model_identity(backend.resolved.path), kv_settings(backend)
        self._prefix: dict[tuple[str, ...], list[int]] = {}
        self.done: set[str] = set()  # keys this process read or wrote: not written again

    def prefix(self, backend: Any, messages: list[Any], lead: str = "") -> list[int]:
        """The tokens every rendering of ``messages`` with another last message (opening with ``lead``)
        starts with."""
        head = messages[:-1]
        mark = (*(m.content for m in head), lead)
        if mark not in self._prefix:
            runs = [backend.tokenize_prompt(backend.render([*head, messages[-1].model_copy(update={"content": lead + p})]))
                    for p in PROBES]
            n = 0
            while n < min(map(len, runs)) and runs[0][n] == runs[1][n]:
                n += 1
            self._prefix[mark] = runs[0][: max(0, n - 1)]
        return self._prefix[mark]

    def restore(self, backend: Any, messages: list[Any], lead: str = "") -> bool:
        """Load the prefix's state into the context when the disk has it (True)."""
        tokens = self.prefix(backend, messages, lead)
        if not tokens:
            return False
        key = cache_key(self.identity, self.settings, tokens)
        try:
            found = self.cache.read(key)
            if found is None:
                return False
            restore(backend.llm, found[0].tokens, found[1])
        except (CorruptCache, StateError):
            return False  # the judgement evaluates it, and ``keep`` writes it again
        self.done.add(key)
        return True

    def keep(self, backend: Any, messages: list[Any], lead: str = "") -> None:
        """Write the prefix's state once, after a judgement evaluated it (the context is cut back to it)."""
        tokens = self.prefix(backend, messages, lead)
        key = cache_key(self.identity, self.settings, tokens)
        llm = backend.llm
        if not tokens or key in self.done or list(llm.input_ids[: len(tokens)]) != tokens or llm.n_tokens < len(tokens):
            return
        self.done.add(key)
        with contextlib.suppress(StateError, OSError):
            self.cache.write(key, tokens, seq_state(llm, len(tokens)))

    def remembered(self, parts: Any, compute: Callable[[], bool]) -> bool:
        """``compute()``, kept in ``judged.json`` under the model, its KV settings and ``parts`` (JSON):
        the next process reads it instead of scoring the examples again."""
        blob = json.dumps({"model": self.identity, "settings": self.settings, "parts": parts}, sort_keys=True)
        key = hashlib.sha256(blob.encode()).hexdigest()
        path = self.cache.directory / "judged.json"
        try:
            known = json.loads(read_regular(path))
            known = known if isinstance(known, dict) else {}
        except (OSError, ValueError):
            known = {}
        if isinstance(known.get(key), bool):
            return known[key]
        value = bool(compute())
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, json.dumps(known | {key: value}, indent=0) + "\n")
        return value


def make_feature(agent: Any) -> KVCacheFeature | None:
    """The disk KV cache (``kvcache.feature``), and this store on the model in the same directory: the
    judgements' example prompts kept the same way."""
    feature = prefix_feature(agent)
    if feature is not None:
        agent.model.keep_apart(ApartStore(feature.cache, agent.model))
    return feature
