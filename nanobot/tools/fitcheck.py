"""Whether the tool a call would use does what the user's message asks: the model's own yes/no.

P(the reply opens a call) mixes "a tool helps" with "this kind of message usually gets a call": on
functions users wrote (BFCL's live categories) the two overlap, so one threshold either declines
requests a tool answers or calls a weather tool for a VirusTotal lookup. Once the lean step has picked
the tool (``TemplateCalls.pick``: its name, a few tokens), this asks the model, as a few-shot classifier
of its own (``yes_no_apart``: the conversation's KV state is set aside and put back), whether that
tool, named with its parameters and the first sentence of its description, does what the message asks
and is given what it needs. The call is made at ``FIT_YES`` or more; the first decision of a turn
then needs only ``FIT_FLOOR`` of P(call), not the listing's threshold (how both were chosen:
docs/benchmarks/bfcl.md). A backend that cannot score a first token (a server, a scripted model) gets
None: the threshold alone decides. Only tools without nanobot's own index line are judged (``judged``):
nanobot's file, command and memory tools keep the threshold and the loop's own checks.

>>> fit_line({"name": "get_weather", "description": "Current weather. In Celsius.",
...           "parameters": {"properties": {"city": {}}}})
'Tool: get_weather(city) - Current weather'
"""

from __future__ import annotations

from typing import Any

from nanobot.backends.base import Message
from nanobot.base.errors import ModelError
from nanobot.core.features import Agent
from nanobot.tools.effects import LOOKING, Effect, declared

FIT_YES = 0.55  # P(yes) / (P(yes) + P(no)) at which the picked tool counts as fitting the message
FIT_FLOOR = 0.02  # the least P(call) at which a turn's first decision asks at all
SYSTEM = ("You check a tool call an assistant is about to make. Given the tool's description and the user's "
          "message: does the message ask for exactly what this tool does, and give what it needs? "
          "Answer only yes or no.")
SHOTS = (
    ("Tool: get_weather(city) - current weather in a city\nMessage: Is it raining in Lisbon right now?", "yes"),
    ("Tool: get_weather(city) - current weather in a city\nMessage: Book me a table for two in Lisbon tonight.", "no"),
    ("Tool: create_event(title, date) - add an event to the calendar\nMessage: Put 'dentist' on my calendar for Friday.",
     "yes"),
    ("Tool: create_event(title, date) - add an event to the calendar\nMessage: Cancel my dentist appointment.", "no"),
    ("Tool: send_email(to, subject, body) - send an email\nMessage: Hi, I'm Tom, Anna's brother.", "no"),
    ("Tool: search_flights(origin, destination, date) - find flights between two cities\n"
     "Message: Find me a flight from Oslo to Rome on 3 May.", "yes"),
)


def fit_line(function: dict) -> str:
    """The tool as the classifier sees it: name, parameter names, the description's first sentence."""
    params = (function.get("parameters") or {}).get("properties") or {}
    about = (function.get("description") or "").strip().split(". ")[0].rstrip(".")[:160]
    return f"Tool: {function['name']}({', '.join(params)}) - {about}"


def fit_prompt(function: dict, message: str) -> list[Message]:
    shots = [Message(role=r, content=c) for text, answer in SHOTS for r, c in (("user", text), ("assistant", answer))]
    return [Message(role="system", content=SYSTEM), *shots, Message(role="user", content=fit_lead(function) + message)]


def fit_lead(function: dict) -> str:
    """How the judged message opens for ``function``: its line, kept on disk with the examples
    (``kvcache.apart``), so a judgement evaluates only the user's words."""
    return f"{fit_line(function)}\nMessage: "


def scores(model: Any) -> bool:
    """Whether ``model`` scores a few-shot yes/no of its own (a llama.cpp model; not a server)."""
    return callable(getattr(model, "yes_no_apart", None))


def fits(model: Any, function: dict, message: str) -> float | None:
    """P(yes) that ``function`` (an OpenAI-style spec's ``function``) does what ``message`` asks;
    None when ``model`` cannot score it."""
    if not scores(model) or not message.strip():
        return None
    try:
        yes, no = model.yes_no_apart(fit_prompt(function, message), lead=fit_lead(function))
    except ModelError:
        return None
    return yes / (yes + no) if yes + no > 0 else None


def judged(tool: Any) -> bool:
    """Whether the fit check judges calls of ``tool``: one without nanobot's own index line
    (``Tool.intent``: an MCP server's tool, a plugin's, the task board). nanobot's file, command and
    memory tools have the requests they are for written out, and the loop's facts (a file the message
    names in the roots, a command ``exec_allow`` admits) and reply checks guard them, and the check
    declines calls of theirs the user asked for, so the threshold decides them."""
    return not getattr(tool, "intent", "")


def user_text(agent: Agent, msgs: list[Message]) -> str:
    """The user's message as typed (``agent.judge.text``, without the retrieved block in front of it),
    else the last user message of ``msgs``."""
    text = agent.judge.text
    return text or next((m.content for m in reversed(msgs) if m.role == "user"), "")


def best_fit(model: Any, functions: list[dict], message: str) -> str | None:
    """The name of the function (OpenAI-style specs' ``function``s) the model judges fits ``message``
    best; None when it cannot score. Picks among tools the facts already narrowed to one effect (a look:
    ``git status`` runs, a folder is listed), where the name alone, picked after a listing of names,
    sends "Do I have any uncommitted changes?" to list_dir: the descriptions decide."""
    scored = {f["name"]: fits(model, f, message) for f in functions}
    if not scored or any(v is None for v in scored.values()):
        return None
    return max(scored, key=lambda name: scored[name] or 0.0)


def better_look(model: Any, tools: dict, functions: list[dict], name: str, message: str) -> str:
    """The tool a first call for a message that names nothing to look at is to make, where a name pick
    chose ``name``, a tool of nanobot's that only reads or lists: of nanobot's looking tools (``LOOKING``,
    with an index line), the one whose description the model judges fits ``message`` best; ``name`` on
    a tie, for any other tool, or where the model cannot score. "Which branch am I on?" goes from
    ``list_dir`` to ``exec`` (``git branch`` answers it); "what does my note say?" keeps ``read_file``."""
    tool = tools.get(name)
    if tool is None or not getattr(tool, "intent", "") or declared(tool) != frozenset({Effect.LOOKS}):
        return name
    specs = {f["name"]: f for f in functions}
    names = [n for n, t in tools.items() if declared(t) & LOOKING and getattr(t, "intent", "") and n in specs]
    if len(names) < 2:  # nothing else to go to
        return name
    scored = {n: fits(model, specs[n], message) for n in names}
    if any(v is None for v in scored.values()):
        return name
    best = max(scored, key=lambda n: scored[n] or 0.0)
    return best if (scored[best] or 0.0) > (scored[name] or 0.0) else name
