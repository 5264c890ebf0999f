"""The template-tool grammars, checked by llama.cpp's own grammar engine: ``reply_grammar`` admits
exactly plain text or one call of an offered tool whose arguments match that tool's schema, and
``call_grammar`` exactly one such call."""

from __future__ import annotations

import ctypes
import json

import pytest

from nanobot.mcptools.schema_grammar import schema_grammar
from nanobot.runtime import tool_classes
from nanobot.tools.callgrammar import _compact, call_grammar, parse_call, reply_grammar, tool_specs
from nanobot.tools.grammar import args_grammar


def accepts(model, gbnf: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets ``text`` through (token by token) and then lets it end."""
    import llama_cpp

    vocab = model.llm._model.vocab
    smpl = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
    assert smpl, "the grammar did not parse"
    try:
        tokens = model.llm.tokenize(text.encode(), add_bos=False, special=False)
        eos = llama_cpp.llama_vocab_eos(vocab)
        for token in [*tokens, eos]:
            data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
            arr = llama_cpp.llama_token_data_array(data, 1, -1, False)
            llama_cpp.llama_sampler_apply(smpl, ctypes.byref(arr))
            if data[0].logit == float("-inf"):
                return False
            if token != eos:
                llama_cpp.llama_sampler_accept(smpl, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(smpl)


def call(name: str, args: dict) -> str:
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": args})}\n</tool_call>'


ECHO = {"properties": {"text": {"type": "string"}, "times": {"type": "integer"}}, "required": ["text"]}
MCP = {"type": "object", "properties": {"mode": {"enum": ["eco", "off"]}, "root": {"type": "object"}},
       "required": ["mode"]}


@pytest.fixture(scope="module")
def grammars():
    parts = {"echo": args_grammar(ECHO), "srv.set": schema_grammar(MCP).gbnf}
    return reply_grammar(parts), call_grammar(parts)


@pytest.mark.parametrize("text", [
    "Hello! How can I help?",
    "Use `a < b` and <b>bold</b>; tool_call is a word.",
    call("echo", {"text": "hi"}),
    call("echo", {"text": "hi", "times": 2}),
    call("srv.set", {"mode": "eco", "root": {"any": [1, "x"]}}),
])
def test_reply_grammar_admits_text_or_one_valid_call(model, grammars, text):
    assert accepts(model, grammars[0], text)


@pytest.mark.parametrize("text", [
    "",                                                  # nothing
    "Sure. <tool_call>\n{}",                             # a call hidden in text
    "<tool_call> hello",                                 # the opening without a call
    call("unknown", {"text": "hi"}),                     # a name not offered
    call("echo", {"times": 2}),                          # a required key missing
    call("echo", {"text": 3}),                           # a wrong type
    call("echo", {"text": "hi", "extra": 1}),            # a key the schema does not have
    call("echo", {"mode": "eco"}),                       # the other tool's arguments
    call("srv.set", {"mode": "max"}),                    # outside an enum
    call("echo", {"text": "hi"}) + " and more text",     # text after the call
    call("echo", {"text": "a"}) + "\n" + call("echo", {"text": "b"}),  # two calls
])
def test_reply_grammar_rejects_everything_else(model, grammars, text):
    assert not accepts(model, grammars[0], text)


def test_call_grammar_is_the_call_after_the_opening_tag(model, grammars):
    body = call("echo", {"text": "hi"}).removeprefix("<tool_call>\n")
    assert accepts(model, grammars[1], body)
    assert not accepts(model, grammars[1], "Hello")


def test_every_builtin_tool_fits_in_one_call_grammar(model):
    tools = tool_classes()
    gbnf = call_grammar({n: args_grammar(t.parameters()) for n, t in tools.items()})
    assert accepts(model, gbnf, '{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>')
    assert not accepts(model, gbnf, '{"name": "read_file", "arguments": {"content": "x"}}\n</tool_call>')
    assert [s["function"]["name"] for s in tool_specs(tools)] == list(tools)


def test_parse_call_reads_the_models_format_and_nothing_else():
    assert parse_call(call("echo", {"text": "hi"})) == ("echo", {"text": "hi"})
    assert parse_call("Hello") is None
    assert parse_call('<tool_call>\n{"arguments": {}}\n</tool_call>') is None


def test_tool_specs_leave_out_what_the_grammar_enforces_and_keep_property_names():
    """The prompt's schemas drop additionalProperties/maxLength/minLength (the call grammar and
    validation hold them), never a property that happens to be called that."""
    tools = tool_classes()
    spec = {s["function"]["name"]: s["function"] for s in tool_specs(tools)}
    text = json.dumps(spec)
    assert "additionalProperties" not in text and '"maxLength"' not in text
    read = spec["read_file"]["parameters"]
    assert read["required"] == ["path"] and read["properties"]["path"]["type"] == "string"
    assert read["properties"]["start"]["minimum"] == 1 and "description" in read["properties"]["path"]
    odd = {"type": "object", "properties": {"maxLength": {"type": "integer", "maxLength": 3}}}
    assert _compact(odd) == {"type": "object", "properties": {"maxLength": {"type": "integer"}}}


def test_numbers_as_requests_hold_them_pass_the_call_grammar(model):
    """BFCL's multiple_5 asks for 46.603354,1.8883340 and its answers hold 1.257e-06: the old number
    rule (4 decimals, no exponent) forced the 1.5B to write 46.6033. Still bounded: no endless digits."""
    tools = tool_classes()
    gbnf = call_grammar({n: args_grammar(t.parameters()) for n, t in tools.items()})
    from nanobot.tools.grammar import _BASE

    number = "root ::= number\n" + _BASE
    for text in ("46.603354", "1.8883340", "1.257e-06", "-3", "123456789012.5"):
        assert accepts(model, number, text), text
    assert not accepts(model, number, "1." + "0" * 11) and not accepts(model, number, "1" * 13)
    assert accepts(model, gbnf, '{"name": "read_file", "arguments": {"path": "a.txt", "start": 2}}\n</tool_call>')


def test_the_template_call_grammar_admits_only_the_values_a_description_lists(model, tmp_path):
    """A tool that gives its values only in prose, as quoted alternatives ("'walk', 'bike' or
    'transit'"): the template step's grammar admits only the listed values, never what a user might
    say ("public transportation"); the names path's grammar (SmolLM2's) is unchanged."""
    from pydantic import BaseModel, Field

    from nanobot.config import load_settings
    from nanobot.tools.base import Tool
    from nanobot.tools.runner import ToolRunner
    from nanobot.tools.templatecalls import TemplateCalls

    class RouteArgs(BaseModel):
        start: str
        mode: str = Field("walk", description="How to travel: 'walk', 'bike' or 'transit'.")

    class Route(Tool):
        name, description, Args = "route", "Find a route.", RouteArgs

    runner = ToolRunner(load_settings(tmp_path), tools={"route": Route()})
    gbnf = TemplateCalls(runner).grammar()

    def body(args):
        return json.dumps({"name": "route", "arguments": args}) + "\n</tool_call>"

    assert accepts(model, gbnf, body({"start": "Paris", "mode": "transit"}))
    assert accepts(model, gbnf, body({"start": "Paris"}))  # still optional
    assert not accepts(model, gbnf, body({"start": "Paris", "mode": "public transportation"}))
    names = runner.grammar(runner.tools["route"])
    assert accepts(model, names, '{"start": "Paris", "mode": "public transportation"}')
