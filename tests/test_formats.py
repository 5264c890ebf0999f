"""``tools.formats``: a string parameter whose description declares its form (a date in its letters,
"YYYY-MM-DD"; quoted examples with a fixed field, 'Berkeley, CA') gets that form as its ``pattern`` in
the template call grammar. For a date the grammar also admits what a model writes when it means one
(one-digit fields, an ISO date, a 12-hour time) and the call gets it in the declared form
(``dateforms``): forcing the declared order made the 1.5B's "2022-..." the month "20" on a BFCL item
(held2 multiple_191). Lists of examples, free text and typed parameters are left free."""

from __future__ import annotations

import json

import pytest

from nanobot.config import load_settings
from nanobot.core.events import ToolCall, ToolResult
from nanobot.core.features import Feature
from nanobot.loop.agent import Agent
from nanobot.mcptools.schema_grammar import schema_grammar
from nanobot.mcptools.tool import args_model
from nanobot.tools.base import Tool
from nanobot.tools.dateforms import Form
from nanobot.tools.effects import Effect
from nanobot.tools.feature import attach_tools
from nanobot.tools.formats import pattern, shaped, written
from nanobot.tools.templatecalls import TemplateCalls
from nanobot.workspace import init_workspace
from tests.test_callgrammar import accepts
from tests.test_templatecalls import ToolTemplateModel, body

CITY = "The city, in the format of 'City, State', such as 'Berkeley, CA' or 'New York, NY'."
RENTAL = {"type": "object", "required": ["city", "start_date"], "properties": {
    "city": {"type": "string", "description": CITY},
    "start_date": {"type": "string", "description": "The first day of the rental in the format YYYY-MM-DD."},
    "pickup_time": {"type": "string", "description": "Pick-up time, 24-hour format 'HH:MM'.", "default": "dontcare"},
    "note": {"type": "string", "description": "Anything else, e.g. 'red, green'."}}}


@pytest.mark.parametrize("description, form", [
    ("The start date in the format YYYY-MM-DD.", "^([0-9]{4}-[0-9]{1,2}-[0-9]{1,2})$"),
    ("Fecha, formato DD/MM/YYYY.",                                                 # any language around it
     "^([0-9]{1,2}/[0-9]{1,2}/[0-9]{4}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2})$"),
    ("Start, ISO 8601 'YYYY-MM-DDTHH:MM:SSZ'.", "^([0-9]{4}-[0-9]{1,2}-[0-9]{1,2}T[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}Z)$"),
    ("Date as 'YYYY-MM-DD', or 'today'.", "^([0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|today)$"),
    ("Time, HH:MM.", "^([0-9]{1,2}:[0-9]{1,2}( ?([AaPp][Mm]))?)$"),
    (CITY, '^([^,"]+, [A-Z]{2})$'),
    ("Where, as 'City, State' or 'City, Country', such as 'Austin, TX' or 'Paris, France'.", '^([^,"]+, [^,"]+)$'),
    ("Address, e.g. '1 Main St, Springfield, IL, 62701'.", '^([^,"]+, [^,"]+, [A-Z]{2}, [0-9]{5})$'),
])
def test_a_declared_form_is_the_pattern(description, form):
    assert pattern({"type": "string", "description": description}) == form


@pytest.mark.parametrize("description", [
    "Tags, e.g. 'red, green'.",                   # a list of examples: no field of fixed form
    "Codes such as 'NEW, HOT'.",                  # no free field: a list of codes, not a form
    "The city and state, e.g. San Francisco, CA",  # unquoted
    "The name of the hotel.",
    "Start with 'YYYY' or a word like MMDD.",      # one field, or letters run together
])
def test_examples_and_prose_declare_no_form(description):
    assert pattern({"type": "string", "description": description}) is None


def test_shaped_is_a_copy_and_leaves_typed_parameters_alone():
    schema = {"type": "object", "properties": {
        **RENTAL["properties"],
        "fixed": {"type": "string", "enum": ["2023-01-01"], "description": "YYYY-MM-DD"},
        "count": {"type": "integer", "description": "YYYY-MM-DD"},
        "days": {"type": "array", "items": {"type": "string", "description": "Each in YYYY-MM-DD."}}}}
    out = shaped(schema)["properties"]
    assert out["city"]["pattern"] == '^([^,"]+, [A-Z]{2})$' and "pattern" not in out["note"]
    assert out["pickup_time"]["pattern"] == "^([0-9]{1,2}:[0-9]{1,2}( ?([AaPp][Mm]))?|dontcare)$"  # and the default
    assert "pattern" not in out["fixed"] and "pattern" not in out["count"]
    assert out["days"]["items"]["pattern"].startswith("^([0-9]{4}")
    assert "pattern" not in schema["properties"]["city"]


@pytest.mark.parametrize("form, value, out", [
    ("YYYY-MM-DD", "2023-10-1", "2023-10-01"),
    ("MM-DD-YYYY", "2022-05-12", "05-12-2022"),      # an ISO date, in the declared order
    ("MM-DD-YYYY", "5-12-2022", "05-12-2022"),
    ("DD/MM/YYYY", "2022-05-12", "12/05/2022"),
    ("HH:MM", "7:30 PM", "19:30"), ("HH:MM", "12:15 am", "00:15"), ("HH:MM", "9:05", "09:05"),
    ("MM:SS", "1:00", "01:00"),                        # minutes beside seconds
    ("YYYY-MM-DDTHH:MM:SSZ", "2023-1-2T3:04:05Z", "2023-01-02T03:04:05Z"),
    ("MM-DD-YYYY", "20-05-2022", "20-05-2022"),        # no month 20: left as written
    ("YYYY-MM-DD", "next week", "next week"),
    ("HH:MM", "25:00", "25:00"),
])
def test_a_date_is_written_in_the_declared_form_or_left_alone(form, value, out):
    assert Form.find(f"In the format {form}.")[0].written(value) == out


def test_written_changes_declared_dates_and_nothing_else():
    args = {"city": "Las Vegas, NV", "start_date": "2023-10-1", "pickup_time": "9:05 pm", "note": "1 2"}
    assert written(RENTAL, args) == {"city": "Las Vegas, NV", "start_date": "2023-10-01", "pickup_time": "21:05",
                                     "note": "1 2"}


class Rental(Tool):
    """A tool whose schema came from elsewhere (an MCP server's, BFCL's): schema_grammar builds its GBNF."""

    name, description = "get_cars", "Find rental cars available in a city."
    effects = frozenset({Effect.SEARCHES})
    Args = args_model("get_cars", RENTAL)

    def __init__(self):
        self.seen: list[dict] = []

    def parameters(self) -> dict:  # type: ignore[override]
        return RENTAL

    def grammar(self) -> str:
        return schema_grammar(RENTAL).gbnf

    def grammar_of(self, schema: dict) -> str:
        return schema_grammar(schema).gbnf

    def run(self, args, ctx) -> str:
        self.seen.append(dict(args.root))
        return "3 cars"


class Rentals(Feature):
    name = "rentals"

    def __init__(self):
        self.tool = Rental()

    def tools(self, settings):
        return [self.tool]


def test_the_template_call_grammar_admits_only_the_declared_forms(model, tmp_path):
    """Checked by llama.cpp's own grammar engine: "San Jose" without its state and a date in another
    form are refused; one-digit fields and an ISO date are admitted (the call writes them in the form)."""
    from nanobot.tools.runner import ToolRunner

    gbnf = TemplateCalls(ToolRunner(load_settings(tmp_path), tools={"get_cars": Rental()})).grammar()

    def call(args):
        return json.dumps({"name": "get_cars", "arguments": args}) + "\n</tool_call>"

    assert accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "2023-10-1"}))
    assert accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "2023-10-01", "pickup_time": "dontcare"}))
    assert accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "2023-10-01", "note": "red, blue"}))
    assert not accepts(model, gbnf, call({"city": "San Jose", "start_date": "2023-10-01"}))
    assert not accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "10/01/2023"}))
    assert not accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "October 1"}))
    assert not accepts(model, gbnf, call({"city": "San Jose, CA", "start_date": "2023-10-01", "pickup_time": "10am"}))


def test_a_call_runs_with_its_date_written_in_the_declared_form(home):
    """The model writes "2023-10-1" for a YYYY-MM-DD parameter: the tool gets "2023-10-01", and the call
    event shows what ran."""
    rentals = Rentals()
    model = ToolTemplateModel([body("get_cars", {"city": "Las Vegas, NV", "start_date": "2023-10-1"}), "Three."],
                              [0.9, 0.1])
    settings = load_settings(home, tools={"enabled": ["read_file", "get_cars"], "listing": "full"},
                             memory={"enabled": False}, observer={"enabled": False})
    init_workspace(settings.workspace)
    agent = Agent(settings, model, known_tools=lambda: ["get_cars"])
    attach_tools(agent)
    agent.add_feature(rentals)
    assert set(agent.tool_runner.tools) == {"read_file", "get_cars"}
    events = list(agent.turn("An SUV in Las Vegas from October 1st 2023?"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [e.name for e in calls] == ["get_cars"] and [e for e in events if isinstance(e, ToolResult)]
    assert rentals.tool.seen == [{"city": "Las Vegas, NV", "start_date": "2023-10-01"}]
    assert "2023-10-01" in json.dumps(calls[0].arguments)
