"""Disk KV cache of the stable prompt prefix: start a session without re-reading the system prompt.

The system prompt's stable part (SOUL, USER, tool names, CONTEXT: everything before the first
volatile section) is the same from session to session, so its KV state is computed once and kept on
disk. With template tool calls (Qwen2.5) the prompt is two system messages and there are two entries:
the first system message (the standing sections) with the tool schemas the template renders after it
(``first_call_prefix``: the same whatever CONTEXT.md says), and that plus the stable part of the second
message (CONTEXT and any stable section before Time: ``context_prefix``), which changes when CONTEXT.md
does. A third entry runs on through the Time section's date (``day_prefix``): the same all day, so a
day's later starts evaluate only the clock time, the lines after it and the message. At session start
``KVCacheFeature`` restores the longest prefix on disk from ``<cache_dir>/kv/<key>.kv`` (milliseconds);
what is missing is evaluated once and saved (the longer entries' files are written on a background
thread). The housekeeping child that rewrites CONTEXT.md
saves the next session's longer entry itself (``nanobot.kvcache.prewarm``). The first turn then
evaluates only the tokens after the prefix (``Generation.reused_tokens`` covers it).

The key is a sha256 over the model file's identity (path, size, mtime), every llama setting that
changes the KV state (n_ctx, KV types, flash attention, batch sizes, GPU layers, chat template,
llama.cpp version) and the exact prefix tokens: any change is a different file. A file holds only the
sequence's llama.cpp state (``llama_state_seq_get_data``) and its tokens, not the logits array.
Files are written atomically, and only where the disk keeps ``base.room.RESERVE`` free after them;
the directory is kept under ``max_mb`` by evicting the least recently used files (by mtime). A corrupt
or mismatched file is ignored with a warning and rewritten.

File layout: ``MAGIC`` + 8-byte header length + JSON header (``CacheHeader``) + state bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import time
import zlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from nanobot.backends.kvstate import StateError, restore, seq_state
from nanobot.base import room
from nanobot.base.atomic import atomic_write
from nanobot.base.regular import read_regular
from nanobot.core.events import Notice
from nanobot.core.features import Feature

MAGIC = b"NBKV1\n"
SUFFIX = ".kv"
STALE_TMP_S = 3600.0


class CacheHeader(BaseModel):
    key: str
    n_tokens: int
    tokens: list[int]
    state_bytes: int
    crc32: int
    created: float


class CacheResult(BaseModel):
    """What ``KVCache.prepare`` did at session start."""

    action: str  # "restored" | "saved" | "warm" | "skipped" (of the longest prefix asked for)
    prefix_tokens: int = 0  # the prefix the KV cache holds now
    evaluated: int = 0  # tokens evaluated for it at this start (0: all restored or warm)
    seconds: float = 0.0
    file: str | None = None
    file_mb: float = 0.0
    warning: str | None = None


class CorruptCache(StateError):
    """A cache file that cannot be used (torn, edited, or for another key)."""


def _llama_cpp():
    import llama_cpp

    return llama_cpp


def model_identity(path: Path) -> dict:
    st = Path(path).stat()
    return {"path": str(Path(path).resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def kv_settings(backend: Any) -> dict:
    """The llama settings of ``backend`` that change the KV state (read from the live context)."""
    llama_cpp = _llama_cpp()
    llm = backend.llm
    cp = llm.context_params
    return {
        "n_ctx": llm.n_ctx(),
        "n_batch": llm.n_batch,
        "n_ubatch": cp.n_ubatch,
        "type_k": cp.type_k,
        "type_v": cp.type_v,
        "flash_attn": cp.flash_attn_type == llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED,
        "n_gpu_layers": llm.model_params.n_gpu_layers,
        "chat_format": backend.settings.chat_format,
        "chat_template": llm.metadata.get("tokenizer.chat_template", ""),
        "llama_cpp": getattr(llama_cpp, "__version__", ""),
    }


def cache_key(identity: dict, settings: dict, tokens: list[int]) -> str:
    """sha256 over model identity, KV-relevant settings and the exact prefix tokens.

    >>> cache_key({"path": "m"}, {"n_ctx": 1}, [1, 2]) != cache_key({"path": "m"}, {"n_ctx": 1}, [1, 3])
    True
    """
    h = hashlib.sha256()
    h.update(json.dumps({"model": identity, "settings": settings}, sort_keys=True).encode())
    h.update(struct.pack(f"<{len(tokens)}i", *tokens))
    return h.hexdigest()


def stable_prefix_tokens(backend: Any, full_text: str, stable_text: str) -> list[int]:
    """Tokens of the rendered prompt up to the end of the stable system text.

    Renders ``[system(full_text), user]`` and cuts the rendered string where the stable text ends;
    keeps only the tokens that the cut string and the whole prompt share, so a token merging across
    the cut is never cached. Returns [] when the template does not show the system text verbatim.
    """
    from nanobot.backends.base import Message

    if not stable_text:
        return []
    rendered = backend.render([Message(role="system", content=full_text),
                               Message(role="user", content="hi")])
    start = rendered.find(full_text)
    if start < 0 or not full_text.startswith(stable_text):
        return []
    return shared_tokens(backend, rendered, start + len(stable_text))


def shared_tokens(backend: Any, rendered: str, end: int) -> list[int]:
    """The tokens ``rendered[:end]`` and the whole of ``rendered`` share: a token merging across the
    cut is never part of a cached prefix."""
    cut = backend.tokenize_prompt(rendered[:end])
    whole = backend.tokenize_prompt(rendered)
    n = 0
    for a, b in zip(cut, whole):
        if a != b:
            break
        n += 1
    return whole[:n]


def first_call_prefix(agent: Any) -> list[int]:
    """The stable prefix as the agent's first call renders it. Template tool calls: the first system
    message (the standing sections) with the decline line and every tool schema after it (see
    ``Agent.system_messages``): the tokens that rendering shares whatever follows (minus one boundary
    token, as ``prefill.known_prefix``). Otherwise ``stable_prefix_tokens``."""
    from nanobot.backends.base import Message
    from nanobot.core.prefill import PROBES

    built = agent.system_prompt()
    if not agent.template_tools():
        return stable_prefix_tokens(agent.model, built.text, built.stable_text)
    head = agent.system_messages()[:1]
    runs = []
    # the probes, and a system message next (CONTEXT): the template's markup is tokenized apart from
    # content (backends/segments.py), so only another role ends what every rendering shares
    for follow in [[Message(role="user", content=p)] for p in PROBES] + [[Message(role="system", content="a"),
                                                                          Message(role="user", content="a")]]:
        msgs, render = agent.first_call([*head, *follow])
        runs.append(agent.model.tokenize_prompt(agent.model.render(msgs, **render)))
    n = 0
    while all(n < len(r) for r in runs) and len({r[n] for r in runs}) == 1:
        n += 1
    return runs[0][: max(0, n - 1)]


def context_prefix(agent: Any, head: list[int]) -> list[int]:
    """Template tool calls: the first call's tokens through the stable part of the second system
    message (CONTEXT and any stable section before Time), cut as ``stable_prefix_tokens`` cuts;
    [] when that adds nothing to ``head`` (``first_call_prefix``) or does not start with it."""
    from nanobot.core.prompt import SEPARATOR

    msgs = agent.system_messages()
    if len(msgs) < 2 or not head:
        return []
    stable, first, second = agent.system_prompt().stable_text, msgs[0].content, msgs[1].content
    rest = stable[len(first):].removeprefix(SEPARATOR) if stable.startswith(first) else ""
    if not rest or not second.startswith(rest):
        return []
    return _through(agent, msgs, second, len(rest), head)


def _through(agent: Any, msgs: list, content: str, end: int, base: list[int]) -> list[int]:
    """The first call's tokens (``msgs`` and a message) through ``content[:end]``, cut as
    ``shared_tokens`` cuts; [] unless they extend ``base``."""
    from nanobot.backends.base import Message

    call, render = agent.first_call([*msgs, Message(role="user", content="hi")])
    rendered = agent.model.render(call, **render)
    start = rendered.rfind(content)
    if start < 0:
        return []
    out = shared_tokens(agent.model, rendered, start + end)
    return out if len(out) > len(base) and out[: len(base)] == base else []


def day_prefix(agent: Any, base: list[int]) -> list[int]:
    """The first call's tokens through the Time section's date (``sections.day_line``: "Now: Sunday
    2026-11-29"), cut as ``stable_prefix_tokens`` cuts. It is the same for every start that day with
    that CONTEXT, so a day's later starts restore it and evaluate only the clock time, the Time lines
    after it and the message (on the 1.5B 31 tokens instead of 50: ~0.2 s of a second start's first
    reply). [] when it adds nothing to ``base`` (the longest stable prefix) or does not start with it."""
    from nanobot.core.sections import day_line

    msgs = agent.system_messages()
    last, day = msgs[-1].content, day_line(agent.started)
    at = last.find(day)
    if at < 0 or not base:
        return []
    return _through(agent, msgs, last, at + len(day), base)


class KVCache:
    """Files of saved prefix KV states in ``directory``, at most ``max_mb`` in all."""

    def __init__(self, directory: Path, max_mb: int = 512):
        self.directory = Path(directory)
        self.max_bytes = max_mb * 1024 * 1024

    def path_for(self, key: str) -> Path:
        return self.directory / f"{key}{SUFFIX}"

    # -- files -------------------------------------------------------------------------------
    def read(self, key: str) -> tuple[CacheHeader, bytes] | None:
        """The header and state bytes for ``key``; None if absent; CorruptCache if unusable."""
        path = self.path_for(key)
        try:
            raw = read_regular(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as e:
            raise CorruptCache(f"cannot read {path}: {e.strerror}") from None
        try:
            if not raw.startswith(MAGIC):
                raise ValueError("bad magic")
            (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC))
            start = len(MAGIC) + 8
            header = CacheHeader.model_validate_json(raw[start:start + hlen])
            state = raw[start + hlen:]
        except (ValueError, struct.error, ValidationError) as e:
            raise CorruptCache(f"{path.name}: unreadable header ({str(e).splitlines()[0]})") from None
        if header.key != key or header.n_tokens != len(header.tokens):
            raise CorruptCache(f"{path.name}: written for another key")
        if len(state) != header.state_bytes or zlib.crc32(state) != header.crc32:
            raise CorruptCache(f"{path.name}: state bytes damaged (size or checksum mismatch)")
        with contextlib.suppress(OSError):
            os.utime(path)  # LRU: a hit makes the file recent
        return header, state

    def write(self, key: str, tokens: list[int], state: bytes) -> Path | None:
        """Store ``state`` for ``key`` atomically, then evict old files; None if it cannot fit
        ``max_mb``; ``room.NoRoom`` (an OSError) where the disk would keep less than ``room.RESERVE`` free."""
        if len(state) > self.max_bytes:
            return None
        header = CacheHeader(key=key, n_tokens=len(tokens), tokens=tokens, state_bytes=len(state),
                             crc32=zlib.crc32(state), created=time.time()).model_dump_json().encode()
        path = self.path_for(key)
        room.check(self.directory, len(header) + len(state))  # a cache never takes the user's last space
        atomic_write(path, MAGIC + struct.pack("<Q", len(header)) + header + state)
        self.evict(keep=path)
        return path

    def files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime)

    def total_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.files())

    def evict(self, keep: Path | None = None) -> list[Path]:
        """Delete least recently used files until the directory fits ``max_mb`` (and temp files of
        writes a process left unfinished, once an hour old: the chat exits without waiting for one)."""
        removed = []
        if self.directory.is_dir():
            for tmp in self.directory.glob(f".*{SUFFIX}.*.tmp"):
                with contextlib.suppress(OSError):
                    if time.time() - tmp.stat().st_mtime > STALE_TMP_S:
                        tmp.unlink()
                        removed.append(tmp)
        files = self.files()
        total = sum(p.stat().st_size for p in files)
        for p in files:
            if total <= self.max_bytes:
                break
            if p == keep:
                continue
            total -= p.stat().st_size
            p.unlink(missing_ok=True)
            removed.append(p)
        return removed

    # -- llama state -------------------------------------------------------------------------
    def _save(self, backend: Any, key: str, prefix: list[int]) -> tuple[Path | None, str | None]:
        """Write the evaluated prefix's state; never raises (a failed save costs only speed)."""
        try:
            written = self.write(key, prefix, seq_state(backend.llm, len(prefix)))
        except (OSError, StateError) as e:
            return None, f"KV cache not saved to {self.directory}: {e}"
        if written is None:
            return None, f"KV state of {len(prefix)} tokens exceeds kv_cache.max_mb; not saved"
        return written, None

    def key(self, backend: Any, prefix: list[int]) -> str:
        return cache_key(model_identity(backend.resolved.path), kv_settings(backend), prefix)

    def _restore(self, backend: Any, key: str, start: float) -> tuple[CacheResult | None, str | None]:
        """Restore ``key``'s file into ``backend``: (the result, None), (None, None) when there is no
        file, (None, a warning) when it was unusable (deleted, to be rebuilt)."""
        path = self.path_for(key)
        try:
            found = self.read(key)
            if found is not None:
                restore(backend.llm, found[0].tokens, found[1])
                return CacheResult(action="restored", prefix_tokens=found[0].n_tokens, file=str(path),
                                   file_mb=path.stat().st_size / 1e6,
                                   seconds=time.perf_counter() - start), None
        except StateError as e:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            return None, f"KV cache file ignored and rebuilt: {e}"
        return None, None

    def prepare(self, backend: Any, prefix: list[int], longer: list[int] | None = None,
                wait: bool = True, longest: list[int] | None = None) -> CacheResult:
        """Make ``backend``'s KV cache hold ``prefix``: restore it from disk, or evaluate and save.
        ``longer`` (a longer prefix that starts with ``prefix``: through CONTEXT) and ``longest`` (one
        longer again: through today's date) are restored instead when their file exists; what is
        missing is evaluated after the longest prefix restored and saved (``wait=False``: the longer
        files are written on a background thread, derived data the process may leave unfinished).
        A prefix that does not extend the one before it is left out."""
        chain = [prefix] if prefix else []
        for more in (longer, longest):
            if more and chain and len(more) > len(chain[-1]) and more[: len(chain[-1])] == chain[-1]:
                chain.append(more)
        return self._prepare_chain(backend, chain, wait)

    def _prepare_chain(self, backend: Any, chain: list[list[int]], wait: bool) -> CacheResult:
        if len(chain) > 1:
            return self._prepare_longer(backend, chain[:-1], chain[-1], wait)
        prefix = chain[0] if chain else []
        if not prefix:
            return CacheResult(action="skipped")  # e.g. a template that rewrites the system text
        start = time.perf_counter()
        key = self.key(backend, prefix)
        path = self.path_for(key)
        if backend.cached_prefix(prefix) == len(prefix):
            written, warning = (path, None) if path.exists() else self._save(backend, key, prefix)
            return CacheResult(action="warm", prefix_tokens=len(prefix),
                               file=str(written) if written else None, warning=warning,
                               seconds=time.perf_counter() - start)
        restored, warning = self._restore(backend, key, start)
        if restored is not None:
            return restored
        backend.llm.reset()
        backend.llm.eval(prefix)
        written, save_warning = self._save(backend, key, prefix)
        warning = warning or save_warning
        return CacheResult(action="saved", prefix_tokens=len(prefix), evaluated=len(prefix),
                           file=str(written) if written else None,
                           file_mb=written.stat().st_size / 1e6 if written else 0.0,
                           seconds=time.perf_counter() - start, warning=warning)

    def _prepare_longer(self, backend: Any, shorter: list[list[int]], longer: list[int], wait: bool) -> CacheResult:
        start = time.perf_counter()
        key = self.key(backend, longer)
        path = self.path_for(key)
        if backend.cached_prefix(longer) < len(longer):
            restored, warning = self._restore(backend, key, start)
            if restored is not None:
                for prefix in shorter:  # the shorter entries stay recent too (LRU)
                    with contextlib.suppress(OSError):
                        os.utime(self.path_for(self.key(backend, prefix)))
                return restored
            base = self._prepare_chain(backend, shorter, wait)
            n = backend.cached_prefix(longer)
            backend.llm.n_tokens = n  # eval drops the KV cells past this point
            backend.llm.eval(longer[n:])
            evaluated = base.evaluated + len(longer) - n
            action, warning = base.action, warning or base.warning
        else:
            evaluated, action, warning = 0, "warm", None
        written = path if path.exists() else None
        if written is None:
            if wait:
                written, save_warning = self._save(backend, key, longer)
                warning = warning or save_warning
            else:
                self._save_later(backend, key, longer)
        return CacheResult(action=action, prefix_tokens=len(longer), evaluated=evaluated,
                           file=str(written or path), seconds=time.perf_counter() - start,
                           file_mb=written.stat().st_size / 1e6 if written else 0.0, warning=warning)

    def _save_later(self, backend: Any, key: str, prefix: list[int]) -> None:
        """Take the state now (the KV cache moves on), write its file on a background thread."""
        from nanobot.base import background

        try:
            state = seq_state(backend.llm, len(prefix))
        except StateError:
            return

        def write() -> None:
            with contextlib.suppress(OSError):  # a failed save costs the next start speed, no more
                self.write(key, prefix, state)

        background.start(write, "nanobot-kv-save", derived=True)

class KVCacheFeature(Feature):
    """Feature: at session start, restore (or build) the stable prefix's KV state."""

    name = "kv-cache"

    def __init__(self, cache: KVCache):
        self.cache = cache
        self.last: CacheResult | None = None

    def on_session_start(self, agent: Any) -> list[Notice]:
        prefix = first_call_prefix(agent)
        longer = context_prefix(agent, prefix)
        longest = day_prefix(agent, longer or prefix)
        self.last = result = self.cache.prepare(agent.model, prefix, longer, wait=False, longest=longest)
        if result.warning:
            return [Notice(text=result.warning, level="warning")]
        return []


def make_feature(agent: Any) -> KVCacheFeature | None:
    """The disk KV cache for a full llama model (not for vocab-only or scripted models)."""
    from nanobot.backends.llama import LlamaBackend

    model = agent.model
    if not isinstance(model, LlamaBackend) or model.llm.model_params.vocab_only:
        return None
    settings = agent.settings
    return KVCacheFeature(KVCache(settings.cache_dir / "kv", settings.kv_cache.max_mb))
