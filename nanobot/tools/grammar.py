"""Small GBNF grammars: one to choose between replying and a tool name, one per tool's arguments.

Grammar-constrained sampling costs time per token, so grammars stay tiny: the decision grammar is a
handful of literal alternatives, and argument grammars are built from the pydantic JSON schema with
unbounded-but-simple string rules (``maxLength`` would expand into thousands of nested rules, as
llama.cpp's own ``json_schema_to_gbnf`` does; lengths are checked by pydantic afterwards instead).

>>> print(decision_grammar(["exec", "read_file"]))
root ::= "Answer:" | "Tool: " ("exec" | "read_file")
"""

from __future__ import annotations

import json
import re
from typing import Any

from nanobot.backends.base import Grammar
from nanobot.base.errors import ToolError

# The two openings the decision may take right after the assistant header: a pair a small model splits
# between chat messages and action requests ("Next step: reply|call NAME" and similar prefills send
# everything to a reply).
REPLY = "Answer:"
CALL = "Tool: "

# Numbers are bounded (a small model can loop on digits) but wide enough for what requests hold:
# 12 integer digits, 10 decimals (coordinates: 46.603354), an exponent (1.257e-06).
_BASE = r'''space ::= " "?
string ::= "\"" char* "\"" space
char ::= [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])
integer ::= "-"? ([0-9] | [1-9] [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]?) space
number ::= "-"? [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? ("." [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]?)? ([eE] [-+]? [0-9] [0-9]?)? space
boolean ::= ("true" | "false") space
null ::= "null" space'''


def literal(text: str) -> str:
    """A GBNF string literal."""
    return json.dumps(text)


def decision_grammar(names: list[str]) -> str:
    """Admit exactly "Answer:" or "Tool: NAME" for a registered NAME."""
    alts = " | ".join(literal(n) for n in names)
    return Grammar(f"root ::= {literal(REPLY)} | {literal(CALL)} ({alts})",
                   choices=[REPLY, *(CALL + n for n in names)])


def parse_decision(text: str, names: list[str]) -> str | None:
    """The tool name a decision names, or None for a reply."""
    text = text.strip()
    if text.startswith(CALL.strip()):
        name = text[len(CALL.strip()):].strip()
        if name in names:
            return name
    return None


def args_grammar(schema: dict) -> str:
    """GBNF for a JSON object matching ``schema`` (a pydantic ``model_json_schema()``).

    Supports what tool arguments need: string, integer, number, boolean, enum/const, Optional (anyOf
    with null), arrays of those, and flat objects; required keys first, optional keys after, each in
    schema order.
    """
    rules: dict[str, str] = {}
    _object(schema, "root", rules, schema.get("$defs", {}))
    body = "\n".join(f"{k} ::= {v}" for k, v in rules.items())
    return Grammar(f"{body}\n{_BASE}", json_schema=schema)


def _object(node: dict, name: str, rules: dict[str, str], defs: dict) -> str:
    props: dict = node.get("properties", {})
    required = [k for k in props if k in node.get("required", [])]
    optional = [k for k in props if k not in required]
    parts: list[str] = []
    for i, key in enumerate(required):
        sep = '"," space ' if i else ""
        parts.append(f"{sep}{_kv(key, props[key], name, rules, defs)}")
    opt_rule = _optional_chain(optional, props, name, rules, defs, first=not required)
    if opt_rule:
        parts.append(opt_rule)
    rules[name] = '"{" space ' + " ".join(parts) + ' "}" space'
    return name


def _optional_chain(keys: list[str], props: dict, name: str, rules: dict, defs: dict,
                    first: bool) -> str:
    """Optional keys in order, each may be left out: (k1)? (k2)? with commas placed correctly."""
    if not keys:
        return ""
    kvs = [_kv(k, props[k], name, rules, defs) for k in keys]
    if not first:
        return " ".join(f'("," space {kv})?' for kv in kvs)
    # no required key before: the first present key has no leading comma
    alts = []
    for i, kv in enumerate(kvs):
        rest = " ".join(f'("," space {k})?' for k in kvs[i + 1:])
        alts.append(f"{kv} {rest}".strip())
    return "(" + " | ".join(f"({a})" for a in alts) + ")?"


def _kv(key: str, prop: dict, parent: str, rules: dict, defs: dict) -> str:
    rule = _rule_name(f"{parent}-{key}")
    rules[rule] = f'{literal(json.dumps(key))} space ":" space {_value(prop, rule + "-v", rules, defs)}'
    return rule


def _value(prop: dict, name: str, rules: dict, defs: dict) -> str:
    if "$ref" in prop:
        return _value(defs[prop["$ref"].split("/")[-1]], name, rules, defs)
    if "const" in prop:
        return f"{literal(json.dumps(prop['const']))} space"
    if "enum" in prop:
        return "(" + " | ".join(literal(json.dumps(v)) for v in prop["enum"]) + ") space"
    if "anyOf" in prop:
        alts = [_value(p, f"{name}{i}", rules, defs) for i, p in enumerate(prop["anyOf"])]
        return "(" + " | ".join(alts) + ")"
    kind = prop.get("type", "string")
    if kind == "string" and prop.get("x-from"):
        return _held_lines(prop.get("x-lines", []), prop["x-from"], name, rules)
    if kind == "string" and prop.get("x-starts"):
        return _started_string(prop["x-starts"], name, rules)
    if kind == "string" and ("maxLength" in prop or "minLength" in prop):
        return _bounded_string(prop, name, rules)
    if kind == "integer" and ("minimum" in prop or "maximum" in prop):
        return _bounded_integer(prop, name, rules)
    if kind in ("string", "integer", "number", "boolean", "null"):
        return kind
    if kind == "array":
        item = _value(prop.get("items", {"type": "string"}), name + "-item", rules, defs)
        rules[name] = f'"[" space ({item} ("," space {item})*)? "]" space'
        return name
    if kind == "object":
        return _object(prop, name, rules, defs)
    raise ToolError(f"unsupported JSON schema type {kind!r} in a tool's arguments")


def _bounded_string(prop: dict, name: str, rules: dict) -> str:
    """``char{min,max}``: llama.cpp expands the repetition itself (no nested-rule blow-up here)."""
    lo = int(prop.get("minLength", 0))
    hi = prop.get("maxLength")
    reps = f"{{{lo},{int(hi)}}}" if hi is not None else f"{{{lo},}}"
    rules[name] = f'"\\"" char{reps} "\\"" space'
    return name


def _held_lines(lines: list[str], starts: list[int], name: str, rules: dict) -> str:
    """A run of a file's whole consecutive lines that starts at one of the line indexes ``starts``
    (``tools.retryedit``). Rule ``name-L<i>`` is line i and, optionally, a newline and the run from
    line i+1: one rule per line, however long the run."""
    for i in range(min(starts), len(lines)):
        rest = f' ("\\\\n" {name}-L{i + 1})?' if i + 1 < len(lines) else ""
        rules[f"{name}-L{i}"] = f"{literal(json.dumps(lines[i], ensure_ascii=False)[1:-1])}{rest}"
    rules[name] = f'"\\"" ({" | ".join(f"{name}-L{i}" for i in starts)}) "\\"" space'
    return name


def _started_string(starts: list[str], name: str, rules: dict) -> str:
    """A command line that is one of ``starts`` alone or followed by a space and more, without the
    characters that chain or redirect (``shell.allowed`` refuses those): exec's command where only
    the allowed commands run."""
    alts = " | ".join(literal(json.dumps(s)[1:-1]) for s in starts)
    rules[name] = f'"\\"" ({alts}) (" " command-char*)? "\\"" space'
    rules["command-char"] = r'[^"\\\x00-\x1f;&|`$<>] | "\\" ["\\/]'
    return name


def _bounded_integer(prop: dict, name: str, rules: dict) -> str:
    """Small ranges are enumerated exactly; large ones keep the sign/leading-digit rule."""
    lo, hi = prop.get("minimum"), prop.get("maximum")
    if lo is not None and hi is not None and hi - lo <= 64:
        rules[name] = "(" + " | ".join(literal(str(v)) for v in range(int(lo), int(hi) + 1)) + ") space"
    elif lo is not None and lo >= 1:
        rules[name] = "[1-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? space"
    elif lo is not None and lo >= 0:
        rules[name] = "([0-9] | [1-9] [0-9] [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]? [0-9]?) space"
    else:
        return "integer"
    return name


def _rule_name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9-]", "-", text)


def signature(name: str, schema: dict[str, Any], descriptions: bool = True) -> str:
    """A one-line, token-cheap rendering of a tool's arguments for the model.

    >>> signature("read_file", {"properties": {"path": {"type": "string", "description": "file"},
    ...     "start": {"type": "integer", "default": 1}}, "required": ["path"]})
    'read_file(path: string (file), start?: integer = 1)'
    """
    parts = []
    required = set(schema.get("required", []))
    for key, prop in schema.get("properties", {}).items():
        kind = prop.get("type") or "value"
        if "enum" in prop:
            kind = "|".join(json.dumps(v) for v in prop["enum"])
        elif "const" in prop:
            kind = json.dumps(prop["const"])
        text = f"{key}{'' if key in required else '?'}: {kind}"
        if "default" in prop and prop["default"] not in ("", None):
            text += f" = {json.dumps(prop['default'])}"
        if descriptions and prop.get("description"):
            text += f" ({prop['description']})"
        parts.append(text)
    return f"{name}({', '.join(parts)})"


def compact_schema(schema: dict[str, Any]) -> str:
    """The schema as the model sees it: one line, descriptions kept, defaults shown."""
    return json.dumps(schema, separators=(",", ":"))
