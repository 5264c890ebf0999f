"""Grammars for tool calls in a model's own format: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``.

Models whose chat template declares tool support (Qwen2.5, Hermes-style) were trained to answer either
with text or with ``<tool_call>\\n{"name": NAME, "arguments": {...}}\\n</tool_call>``. ``call_grammar``
admits exactly one such call whose NAME is an offered tool and whose arguments match *that* tool's
argument grammar (``tools.grammar.args_grammar`` or an MCP tool's own); ``reply_grammar`` admits exactly
plain text (never containing ``<tool_call>``) or one such call. Each tool's rules are renamed with a
prefix so that their grammars can sit side by side; the shared rules (``space``, ``string``, ...) are
kept once.

>>> g = call_grammar({"echo": 'root ::= "{" space "}" space\\n' + _BASE})
>>> g.splitlines()[0]
'root ::= "{\\\\"name\\\\": " ( t0 ) "}" "\\\\n</tool_call>"'
"""

from __future__ import annotations

import json
import re

from nanobot.backends.base import Grammar
from nanobot.tools.grammar import _BASE, literal

OPEN, CLOSE = "<tool_call>", "</tool_call>"
# rules every argument grammar spells the same way (``_BASE``, and MCP's any-value rules): kept once
_SHARED = {line.split(" ::= ")[0] for line in _BASE.splitlines()} | {"any-value", "any-object", "any-array"}
# a GBNF body: string literals and character classes are left alone, names outside them renamed
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[A-Za-z0-9-]+|\s+|.')


def _rename(body: str, names: set[str], prefix: str) -> str:
    return "".join(f"{prefix}{t}" if t in names else t for t in _TOKEN.findall(body))


def call_grammar(arg_grammars: dict[str, str]) -> Grammar:
    """The text after ``<tool_call>``: one call of a tool in ``arg_grammars`` (name -> its argument
    GBNF, rooted at ``root``), then ``</tool_call>``."""
    rules: dict[str, str] = {}
    shared: dict[str, str] = {}
    alts = []
    for i, (name, gbnf) in enumerate(arg_grammars.items()):
        own = {}
        for line in gbnf.splitlines():
            if " ::= " in line:
                key, body = line.split(" ::= ", 1)
                if key in _SHARED:
                    shared.setdefault(key, body)
                else:
                    own[key] = body
        prefix = f"t{i}-"
        for key, body in own.items():
            rules[prefix + key] = _rename(body, set(own), prefix)
        head = literal(f"{json.dumps(name)}, \"arguments\": ")
        rules[f"t{i}"] = f"{head} {prefix}root"
        alts.append(f"t{i}")
    root = f'{literal(chr(123) + chr(34) + "name" + chr(34) + ": ")} ( {" | ".join(alts)} ) "}}" {literal(chr(10) + CLOSE)}'
    body = "\n".join(f"{k} ::= {v}" for k, v in rules.items())
    base = "\n".join(f"{k} ::= {v}" for k, v in shared.items())
    return Grammar(f"root ::= {root}\n{body}\n{base}")


def reply_grammar(arg_grammars: dict[str, str]) -> Grammar:
    """Exactly plain text (not starting with ``<``, never containing ``<tool_call>``) or one call."""
    call = call_grammar(arg_grammars)
    call_root, rest = call.split("\n", 1)
    text = _no_substring(OPEN, "txt")
    return Grammar(f'root ::= [^<] txt0 | {literal(OPEN + chr(10))} call\n'
                   f'call ::= {call_root.split(" ::= ", 1)[1]}\n{rest}\n{text}')


def _no_substring(word: str, name: str) -> str:
    """Rules ``{name}0..`` admitting any text without ``word`` (whose first character appears only
    first): state i = the last i characters read are ``word[:i]``; every state may end."""
    first = literal(word[0])
    lines = [f'{name}0 ::= "" | [^{_cls(word[0])}] {name}0 | {first} {name}1']
    for i in range(1, len(word)):
        nxt = f" | {literal(word[i])} {name}{i + 1}" if i + 1 < len(word) else ""
        lines.append(f'{name}{i} ::= "" | [^{_cls(word[i])}{_cls(word[0])}] {name}0 | {first} {name}1{nxt}')
    return "\n".join(lines)


def _cls(ch: str) -> str:
    return "\\" + ch if ch in "]\\^-" else ch


# schema keywords the call grammar and validation enforce, so the prompt need not spell them out
_ENFORCED = frozenset({"additionalProperties", "maxLength", "minLength"})


def tool_specs(tools: dict) -> list[dict]:
    """The offered tools as chat templates expect them (OpenAI function specs), without ``_ENFORCED``."""
    return [{"type": "function", "function": {"name": n, "description": t.description,
                                               "parameters": _compact(t.parameters())}} for n, t in tools.items()]


def _compact(node):
    """A JSON schema without ``_ENFORCED`` keywords (property names are never dropped)."""
    if isinstance(node, list):
        return [_compact(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _compact(v) for name, v in value.items()}
        elif key not in _ENFORCED:
            out[key] = _compact(value)
    return out


def parse_call(text: str) -> tuple[str, dict] | None:
    """(name, arguments) from a reply in the model's format; None when it holds no call.

    >>> parse_call('<tool_call>\\n{"name": "f", "arguments": {"x": 1}}\\n</tool_call>')
    ('f', {'x': 1})
    """
    body = text.strip()
    if body.startswith(OPEN):
        body = body[len(OPEN):]
    body = body.split(CLOSE, 1)[0].strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    args = data.get("arguments", data.get("parameters", {}))
    return data["name"], args if isinstance(args, dict) else {}
