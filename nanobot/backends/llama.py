"""llama.cpp backend (llama-cpp-python): chat templates, streaming, grammars, prefix reuse.

We render the chat template ourselves and drive ``Llama.generate`` directly, so we know exactly how
many prompt tokens were already in the KV cache (``Generation.reused_tokens``) and how many had to be
evaluated (``Generation.evaluated_tokens``). llama.cpp reuses the longest common token prefix between
the new prompt and what it evaluated last; keeping the prompt's stable parts first keeps that high.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import os
import sys
import threading
import time
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from nanobot.backends import lookup, sampling, segments, texts_cache
from nanobot.backends.apart import APART_SLOTS, Apart  # noqa: F401 (APART_SLOTS re-exported)
from nanobot.backends.base import Abilities, Generation, Message
from nanobot.backends.batchprobe import repack_for
from nanobot.backends.repack import amx_build, model_params  # noqa: F401 (amx_build re-exported)
from nanobot.backends.scored import Scored
from nanobot.base.cores import default_threads, free_threads, model_threads  # noqa: F401 (re-exported)
from nanobot.base.errors import MissingDependency, ModelError
from nanobot.config import KV_TYPES, ModelSettings
from nanobot.models import ResolvedModel

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
    " + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def _llama_cpp():
    try:
        import llama_cpp
    except ImportError:  # pragma: no cover - depends on the install
        raise MissingDependency("llama-cpp-python is not installed; run: pip install llama-cpp-python") from None
    return llama_cpp


def llama_kwargs(ms: ModelSettings, vocab_only: bool = False) -> dict:
    """Keyword arguments for ``llama_cpp.Llama`` from our validated settings (default threads:
    ``model_threads``, from what other processes do now; a tokenizer alone does not need them)."""
    kw: dict = dict(
        n_ctx=ms.n_ctx, n_batch=ms.n_batch, n_ubatch=ms.n_ubatch, n_gpu_layers=ms.n_gpu_layers,
        flash_attn=ms.flash_attn, use_mmap=ms.use_mmap, use_mlock=ms.use_mlock, seed=ms.seed,
    )
    auto = ms.n_threads or (1 if vocab_only else model_threads())
    kw["n_threads"] = ms.n_threads or auto
    kw["n_threads_batch"] = ms.n_threads_batch or ms.n_threads or auto
    if ms.type_k:
        kw["type_k"] = KV_TYPES[ms.type_k]
    if ms.type_v:
        kw["type_v"] = KV_TYPES[ms.type_v]
    return kw


@contextlib.contextmanager
def _quiet_stderr():
    """Silence llama.cpp's own stderr chatter (it logs some lines even with verbose=False)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    with open(os.devnull, "wb") as null:
        os.dup2(null.fileno(), fd)
    try:
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


@lru_cache(maxsize=1)
def _no_tokens():
    """A one-token buffer for counting (llama.cpp writes nothing into it when asked for 0 tokens)."""
    return (_llama_cpp().llama_token * 1)()


@lru_cache(maxsize=64)
def _compiled_grammar(gbnf: str):
    return _llama_cpp().LlamaGrammar.from_string(gbnf, verbose=False)


def template_has_tools(template: str) -> bool:
    """Whether a chat template renders ``tools`` and asks for ``<tool_call>`` replies (Qwen2.5,
    Hermes-style templates); SmolLM2's does not."""
    return "tools" in template and "<tool_call>" in template


def _matching(texts: list[str], before: str, starts: tuple[str, ...], probs, floor: float = 1e-4,
              word: bool = False):
    """Tokens (of probability above ``floor``) after which the text ``before`` + token opens with a start;
    with ``word``, a start that is a whole word ("No" and "No.", not "Not" or "Note")."""
    import numpy as np

    for tok in np.nonzero(probs > floor)[0]:
        text = (before + texts[tok]).lstrip()
        if text and any(text.startswith(s) and not (word and text[len(s):len(s) + 1].isalnum()) for s in starts):
            yield int(tok)


def _partial(texts: list[str], starts: tuple[str, ...], probs, floor: float = 0.02):
    """Likely first tokens that are only the beginning of a start (```` ``` ```` of ```` ```json ````)."""
    import numpy as np

    for tok in np.nonzero(probs > floor)[0]:
        text = texts[tok].lstrip()
        if text and any(s.startswith(text) and s != text for s in starts):
            yield int(tok)


def token_texts(llm) -> list[str]:
    """Every token's text, special tokens spelled out: ``llm.detokenize([i], special=True)`` for each
    ``i``, with one reused buffer and no per-call wrappers (a 151k vocabulary: ~4x faster; this runs
    on the loading thread while the first prefill evaluates, so its CPU is taken from that)."""
    llama_cpp = _llama_cpp()
    model = llm._model
    vocab, bos, piece = model.vocab, model.token_bos(), llama_cpp.llama_token_to_piece
    size = 256
    buf = ctypes.create_string_buffer(size)
    out = []
    for i in range(llm._n_vocab):
        n = piece(vocab, i, buf, size, 0, True)
        if n > size or n < 0:  # longer than the buffer: llama.cpp says how long (negated)
            big = ctypes.create_string_buffer(abs(n))
            raw = big.raw[: piece(vocab, i, big, abs(n), 0, True)]
        else:
            raw = ctypes.string_at(buf, n)
        if i == bos and raw[:1] == b" ":  # as ``detokenize`` drops a BOS token's leading space
            raw = raw[1:]
        out.append(raw.decode("utf-8", "replace"))
    return out


class LlamaBackend(Apart):
    """A loaded GGUF model. ``vocab_only=True`` loads just the tokenizer (fast, for counting)."""

    def __init__(self, model: ResolvedModel, vocab_only: bool = False, **overrides):
        llama_cpp = _llama_cpp()
        self.resolved = model
        self.name = model.name
        self.settings = model.settings
        kw = llama_kwargs(model.settings, vocab_only) | overrides
        # probed for a tokenizer-only load too: a build that cannot load the model at all (a broken
        # C++ runtime crashes in the vocabulary's regexes) is one line there as well; cached per build
        self.repack = repack = repack_for(model, timed=not vocab_only)  # weight repacking, as loaded
        try:
            with model_params(repack), _quiet_stderr():
                self.llm = llama_cpp.Llama(str(model.path), vocab_only=vocab_only, verbose=False, **kw)
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp could not load {model.path}: {e}; check the file and its settings") from None
        self.n_ctx = model.settings.n_ctx
        self._apart: dict[tuple[str, str], tuple[list[int], bytes]] = {}  # ``yes_no_apart``'s prompts and states
        self._answered: dict[tuple, tuple[float, float]] = {}  # ``yes_no_apart``'s answers, by prompt
        self.apart_store: Any = None  # the disk's states of those prompts (``kvcache.apart``), set by the KV cache
        self.last = Generation()
        self.tool_template = False  # set from the GGUF's chat template by _make_formatter
        self._texts: list[str] | None = None
        self.first_probs = None  # the first-token distribution of the last prefix_probability
        self.scored = Scored()  # prompts' first-token distributions, by their tokens (``backends/scored.py``)
        self.last_read = False  # the last prefix_probability or yes_no_apart was read from those, not evaluated
        self._prefill_lock = threading.Lock()
        self._ban_masks: dict = {}  # no_opening -> reply so far -> banned tokens (``backends/openban.py``)
        self.dry: sampling.Dry | None = None  # set per call by ``stream`` (dry_multiplier > 0)
        sampling.install(self.llm, self)
        self._formatter = self._make_formatter(model.settings.chat_format)

    # -- tokenizer ---------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` is. Asks llama.cpp for the count alone (``n_tokens_max`` 0: it
        answers minus the count) instead of ``Llama.tokenize``, which zeroes an n_ctx_train-sized
        buffer and copies the tokens out: half the time, and prompts are counted line by line."""
        if not text:
            return 0
        llama_cpp = _llama_cpp()
        data = text.encode("utf-8")
        vocab = getattr(getattr(self.llm, "_model", None), "vocab", None)
        if vocab is None:  # another llama-cpp-python layout
            return len(self.llm.tokenize(data, add_bos=False, special=False))
        n = llama_cpp.llama_tokenize(vocab, data, len(data), _no_tokens(), 0, False, False)
        return -n if n < 0 else n

    def tokenize_prompt(self, text: str) -> list[int]:
        return segments.tokenize(self.llm.tokenize, text)  # markup with special tokens, content without

    # -- chat template -----------------------------------------------------------------------
    def _make_formatter(self, chat_format: str | None):
        from llama_cpp import llama_chat_format as lcf

        if chat_format:
            for fn_name in (f"format_{chat_format.replace('-', '').replace('.', '')}",
                            f"format_{chat_format.replace('-', '_')}"):
                fn = getattr(lcf, fn_name, None)
                if fn is not None:
                    return lambda messages, add_generation_prompt=True, tools=None: fn(messages=messages).prompt
            raise ModelError(f"unknown chat_format '{chat_format}'; use e.g. chatml, llama-3, gemma, mistral-instruct, or remove it to use the GGUF's template")
        meta = self.llm.metadata
        template = meta.get("tokenizer.chat_template") or CHATML
        self.tool_template = template_has_tools(template)
        vocab = self.llm._model
        eos = vocab.token_get_text(vocab.token_eos()) if vocab.token_eos() >= 0 else ""
        bos = vocab.token_get_text(vocab.token_bos()) if vocab.token_bos() >= 0 else ""
        formatters: dict = {}  # compiled when first used: most processes render only with the generation prompt

        def formatter(flag: bool):
            if flag not in formatters:
                formatters[flag] = lcf.Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos,
                                                           add_generation_prompt=flag)
            return formatters[flag]
        return lambda messages, add_generation_prompt=True, tools=None: formatter(add_generation_prompt)(
            messages=messages, tools=tools or None).prompt

    def render(self, messages: list[Message], add_generation_prompt: bool = True,
               tools: list[dict] | None = None) -> str:
        """The prompt text; ``tools`` (OpenAI-style specs) are rendered by a template that declares
        tool support (``tool_template``) and ignored by one that does not."""
        return segments.render(self._formatter, [m.as_dict() for m in messages], tools=tools,
                               add_generation_prompt=add_generation_prompt)

    def prompt_tokens(self, messages: list[Message], prefill: str = "", tools: list[dict] | None = None) -> int:
        return len(self.tokenize_prompt(self.render(messages, tools=tools) + prefill))

    @property
    def abilities(self) -> Abilities:
        return Abilities(sampling=True, first_token=True, tool_template=self.tool_template,
                         state_save=True, prefill=True)

    def prefix_probability(self, messages: list[Message], starts: tuple[str, ...], *,
                           tools: list[dict] | None = None, word: bool = False) -> float:
        """Probability that the reply opens with one of ``starts`` (leading whitespace aside), from the
        first token and, for a likely first token that is only the beginning of one (```` ``` ```` of
        ```` ```json ````), the token after it. One prompt evaluation (kept in the KV cache for the
        generation that follows) plus one token per such beginning; none for tokens scored already
        (``self.scored``: a draft's decision taken while the person paused, a yes/no's second half).

        For example ``backend.prefix_probability(msgs, ("<tool_call>", "{", "```json"), tools=specs)``
        is 0.93 when the reply is likely to open a call.
        """
        tokens = self.tokenize_prompt(self.render(messages, tools=tools))
        if len(tokens) >= self.n_ctx:
            raise ModelError(f"prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx}; raise n_ctx or shorten the prompt")
        llm, texts = self.llm, self._token_texts()
        scored = self.scored.get(tokens)  # these tokens scored already: their distributions are known
        live = evaluated = scored is None  # the context's logits are those after the prompt's last token
        if live:
            self._hold(tokens)
            scored = self.scored.put(tokens, self._probs())
        first, afters = scored
        self.first_probs = first
        total = 0.0
        for tok in _matching(texts, "", starts, first, word=word):
            total += first[tok]
        for tok in _partial(texts, starts, first):
            if tok not in afters:
                if self.cached_prefix(tokens) < len(tokens):
                    self._hold(tokens)
                llm.n_tokens = len(tokens)
                llm.eval([tok])
                afters[tok], live, evaluated = self._probs(), False, True
            after = afters[tok]
            total += first[tok] * sum(after[u] for u in _matching(texts, texts[tok], starts, after, word=word))
        if self.cached_prefix(tokens) == len(tokens):
            llm.n_tokens = len(tokens)
            if not live:  # a generation from these tokens must decode their last one again, not sample
                llm._requires_eval = True  # from the logits of a partial start or of another prompt
        self.last_read = not evaluated
        return float(min(total, 1.0))

    def _hold(self, tokens: list[int]) -> None:
        """Evaluate ``tokens`` beyond what the KV cache holds, their last one always (for its logits)."""
        n = min(self.cached_prefix(tokens), len(tokens) - 1)
        self.llm.n_tokens = n
        self.llm.eval(tokens[n:])

    def yes_no(self, messages: list[Message], *, tools: list[dict] | None = None) -> tuple[float, float]:
        """(P(the reply opens with yes), P(it opens with no)): a yes/no judgement scored, not generated
        (``nanobot.loop.judge``). The second is read from the first's evaluation: one prompt pass."""
        yes = self.prefix_probability(messages, ("Yes", "yes", "YES"), tools=tools, word=True)
        no = self.prefix_probability(messages, ("No", "no", "NO"), tools=tools, word=True)
        return yes, no

    def _probs(self):
        import numpy as np

        logits = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm._n_vocab,)).astype(np.float64)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def _opening_ban(self, starts: tuple[str, ...] | None, prompt_len: int):
        if not starts:
            return None
        from nanobot.backends.openban import OpeningBan

        masks = self._ban_masks.setdefault(starts, {})
        return [OpeningBan(self._token_texts(), starts, prompt_len, masks)]

    def warm_decision(self, no_opening: tuple[str, ...] | None = None) -> None:
        """Build what the first ``prefix_probability`` needs (every token's text: ~150k detokenize
        calls on a 151k vocabulary) and, for ``no_opening``, the first reply token's opening mask
        (a scan of the vocabulary), so a session start can do it before the first Enter."""
        self._token_texts()
        if no_opening:
            self._opening_ban(no_opening, 0)[0].mask("")

    def adopt_texts(self, stored: object, masks: dict | None = None) -> None:
        """Token texts read from the disk cache while the model loaded (``texts_cache.read``), taken
        when they fit this vocabulary; otherwise the first decision reads or builds them as usual.
        ``masks`` (``{no_opening: OpeningBan.masks}``), built from those texts meanwhile, are taken
        with them: the first reply's opening mask costs no scan on its path."""
        if self._texts is None:
            self._texts = texts_cache.fits(stored, self.llm._n_vocab)
            if self._texts is not None and self._texts is stored:
                for starts, built in (masks or {}).items():
                    self._ban_masks.setdefault(starts, {}).update(built)

    def _token_texts(self) -> list[str]:
        """Every token's text (special tokens spelled out): from the disk cache of this model file
        (``backends/texts_cache.py``), else built once and stored there."""
        if self._texts is None:
            path = self.resolved.path
            texts = texts_cache.load(path, self.llm._n_vocab) if path is not None else None
            if texts is None:
                texts = token_texts(self.llm)
                if path is not None:
                    texts_cache.save(path, texts)
            self._texts = texts
        return self._texts

    # -- generation --------------------------------------------------------------------------
    def cached_prefix(self, tokens: list[int]) -> int:
        """How many leading ``tokens`` the KV cache already holds."""
        n = 0
        for a, b in zip(self.llm._input_ids[: self.llm.n_tokens], tokens):
            if a != b:
                break
            n += 1
        return n

    def prefill(self, tokens: list[int], cancel, chunk: int = 32) -> int:
        """Evaluate ``tokens`` beyond what the KV cache already holds, ``chunk`` tokens at a time,
        until done or ``cancel`` (a threading.Event) is set; returns how many were evaluated. A later
        ``stream`` of a prompt starting with these tokens reuses them."""
        with self._prefill_lock:  # two prefill threads on one model (two agents) would abort llama.cpp
            llm = self.llm
            n = self.cached_prefix(tokens)
            llm.n_tokens = n  # eval drops the KV cells past this point
            done = 0
            while n < len(tokens) and not cancel.is_set():
                batch = tokens[n: n + chunk]
                llm.eval(batch)
                n += len(batch)
                done += len(batch)
            return done

    def stream(self, messages: list[Message], *, prefill: str = "", tools: list[dict] | None = None,
               **sample: Any) -> Iterator[str]:
        """``ChatModel.stream``: the rendered prompt (``tools`` declared to the chat template, then
        ``prefill``) generated from by ``stream_tokens``, which takes the sampling keywords."""
        return self.stream_tokens(self.tokenize_prompt(self.render(messages, tools=tools) + prefill), **sample)

    def stream_tokens(self, tokens: list[int], *, max_tokens: int = 512, temperature: float = 0.3,
                      grammar: str | None = None, stop: list[str] | None = None, top_p: float = 0.95,
                      repeat_penalty: float = 1.1, dry: sampling.Dry | None = None,
                      no_opening: tuple[str, ...] | None = None) -> Iterator[str]:
        """Generate from ``tokens``; ``dry`` adds llama.cpp's DRY sampler (``backends/sampling.py``);
        the reply never begins with one of ``no_opening`` (``backends/openban.py``)."""
        llama_cpp = _llama_cpp()
        self.dry = dry
        start = time.perf_counter()
        if len(tokens) >= self.n_ctx:
            raise ModelError(f"prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx}; raise n_ctx or shorten the prompt")
        max_tokens = min(max_tokens, self.n_ctx - len(tokens))
        reused = self.cached_prefix(tokens)
        if reused == len(tokens):
            reused -= 1  # llama.cpp replays one token to refresh the logits
        gen = Generation(prompt_tokens=len(tokens), reused_tokens=reused,
                         evaluated_tokens=len(tokens) - reused)
        self.last = gen
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        stops = [s for s in (stop or []) if s]
        vocab = self.llm._model.vocab
        held = ""  # text withheld while it may be the start of a stop string
        gen.finish_reason = "length"
        grammar_obj = _compiled_grammar(grammar) if grammar else None
        drafting = None
        try:
            generated = self.llm.generate(
                tokens, temp=temperature, top_p=top_p, repeat_penalty=repeat_penalty,
                grammar=grammar_obj, reset=True, logits_processor=self._opening_ban(no_opening, len(tokens)),
            )
            # drafted from the context (backends/lookup.py); not under the opening ban, whose
            # processor reads the reply so far from the KV cache's tokens, drafts included
            if self.settings.draft_tokens and not no_opening:
                drafting = lookup.Drafting(self.llm, self.settings.draft_tokens)
                generated = drafting.steps(generated, tokens)
            for token in generated:
                if gen.completion_tokens == 0:
                    gen.ttft_s = time.perf_counter() - start
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    gen.finish_reason = "stop"
                    break
                gen.completion_tokens += 1
                piece = held + decoder.decode(self.llm.detokenize([token], special=False))
                held = ""
                hit = next((s for s in stops if s in piece or s in gen.text + piece), None)
                if hit:
                    full = gen.text + piece
                    piece = full[: full.index(hit)][len(gen.text):]
                    gen.text += piece
                    if piece:
                        yield piece
                    gen.finish_reason = "stop"
                    break
                if stops and any(s.startswith(piece[-k:]) for s in stops for k in range(1, min(len(s), len(piece)) + 1)):
                    held = piece
                    continue
                gen.text += piece
                if piece:
                    yield piece
                if gen.completion_tokens >= max_tokens:
                    break
            if held:
                gen.text += held
                yield held
        except GeneratorExit:
            gen.finish_reason = "interrupted"
            raise
        finally:
            if drafting is not None:
                drafting.close()
                gen.drafted_tokens, gen.accepted_tokens = drafting.drafted, drafting.accepted
            gen.total_s = time.perf_counter() - start
            if gen.completion_tokens == 0 and not gen.ttft_s:
                gen.ttft_s = gen.total_s
