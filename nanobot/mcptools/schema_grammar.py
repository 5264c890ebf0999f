"""GBNF from an arbitrary JSON Schema (an MCP tool's ``inputSchema``), and what it leaves to validation.

In the grammar: ``type`` (also lists), ``enum``, ``const``, ``properties`` + ``required`` (required
keys first, then optional ones, each in schema order), nested objects, ``items``/``prefixItems`` with
``minItems``/``maxItems``, ``anyOf``/``oneOf``, ``allOf`` of objects (merged), ``$ref`` into
``$defs``/``definitions`` (recursion allowed), strings with ``minLength``/``maxLength`` (llama.cpp's
``char{m,n}``), ``pattern`` (converted by llama.cpp's own regex translator, ``nanobot.tools.grammar``
conventions otherwise), ``format`` date/time/date-time/uuid, and small integer ranges (enumerated).
Objects without properties and ``{}`` admit any JSON value.

Everything else (``not``, ``uniqueItems``, ``multipleOf``, number bounds, other formats, ...) is
returned in ``unsupported``: the caller reports it once and the arguments are always validated with
``jsonschema`` after generation, so nothing the schema says is skipped.

>>> g = schema_grammar({"type": "object", "properties": {"mode": {"enum": ["eco", "off"]}},
...                     "required": ["mode"]})
>>> print(g.gbnf.splitlines()[0])
root ::= "{" space root-mode-kv "}" space
>>> schema_grammar({"properties": {"n": {"type": "number", "multipleOf": 2}}}).unsupported
['multipleOf']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from nanobot.tools.grammar import _BASE, _bounded_integer, literal

# keys that describe, not constrain
ANNOTATIONS = {"title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated",
               "readOnly", "writeOnly", "$defs", "definitions", "contentMediaType", "contentEncoding"}
FORMATS = {"date", "time", "date-time", "uuid"}
SAFE_CHAR = r'[^"\\\x00-\x1f]'  # a pattern's "." inside a JSON string
_ANY = r'''any-value ::= any-object | any-array | string | number | boolean | null
any-object ::= "{" space (string ":" space any-value ("," space string ":" space any-value)*)? "}" space
any-array ::= "[" space (any-value ("," space any-value)*)? "]" space'''


@dataclass
class SchemaGrammar:
    gbnf: str
    unsupported: list[str] = field(default_factory=list)  # keywords left to jsonschema


def schema_grammar(schema: dict) -> SchemaGrammar:
    conv = _Converter(schema)
    root = conv.value(schema if schema else {"type": "object"}, "root")
    if root != "root":
        conv.rules["root"] = root
    rules = {"root": conv.rules.pop("root"), **conv.rules}
    body = "\n".join(f"{k} ::= {v}" for k, v in rules.items())
    return SchemaGrammar(f"{body}\n{_BASE}\n{_ANY}", sorted(conv.unsupported))


class _Converter:
    def __init__(self, schema: dict):
        self.root = schema
        self.rules: dict[str, str] = {}
        self.unsupported: set[str] = set()
        self.refs: dict[str, str] = {}

    def leftover(self, node: dict, used: set[str]) -> None:
        self.unsupported |= {k for k in node if k not in used and k not in ANNOTATIONS
                             and not k.startswith("x-")}

    def rule(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def value(self, node: dict, name: str) -> str:
        """A GBNF expression for ``node`` (rules it needs are added under names starting ``name``)."""
        if not isinstance(node, dict):
            return "any-value" if node is not False else '"null" space'
        if "$ref" in node:
            return self.ref(node, name)
        if "allOf" in node:
            return self.value(self.merge(node), name)
        if "const" in node:
            self.leftover(node, {"const", "type"})
            return f"{literal(json.dumps(node['const']))} space"
        if "enum" in node:
            self.leftover(node, {"enum", "type"})
            return "(" + " | ".join(literal(json.dumps(v)) for v in node["enum"]) + ") space"
        for key in ("anyOf", "oneOf"):
            if key in node:
                if key == "oneOf":
                    self.unsupported.add("oneOf (as anyOf)")
                rest = {k: v for k, v in node.items() if k != key}
                alts = [self.value({**rest, **alt} if isinstance(alt, dict) else alt, f"{name}-{i}")
                        for i, alt in enumerate(node[key])]
                return "(" + " | ".join(alts) + ")"
        kind = node.get("type")
        if isinstance(kind, list):
            alts = [self.value({**node, "type": t}, f"{name}-{t}") for t in kind]
            return "(" + " | ".join(alts) + ")"
        if kind is None:
            kind = ("object" if "properties" in node else "array" if "items" in node or "prefixItems" in node
                    else "string" if {"pattern", "minLength", "maxLength"} & set(node) else None)
        if kind == "object":
            return self.object(node, name)
        if kind == "array":
            return self.array(node, name)
        if kind == "string":
            return self.string(node, name)
        if kind == "integer":
            return self.integer(node, name)
        if kind in ("number", "boolean", "null"):
            self.leftover(node, {"type"})
            return kind
        self.leftover(node, {"type"})
        return "any-value"

    def ref(self, node: dict, name: str) -> str:
        ref = node["$ref"]
        self.leftover(node, {"$ref"})
        if ref not in self.refs:
            target = self.resolve(ref)
            if target is None:
                self.unsupported.add(f"$ref {ref}")
                return "any-value"
            rule = self.refs[ref] = "ref-" + re.sub(r"[^a-zA-Z0-9-]", "-", ref.split("/")[-1])
            self.rules[rule] = ""  # reserved: a recursive use refers to it by name
            expr = self.value(target, rule)
            if expr != rule:
                self.rules[rule] = expr
        return self.refs[ref]

    def resolve(self, ref: str) -> dict | None:
        if not ref.startswith("#"):
            return None
        node = self.root
        for part in ref.lstrip("#/").split("/") if ref != "#" else []:
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def merge(self, node: dict) -> dict:
        """allOf of object schemas -> one object schema (properties and required united)."""
        out = {k: v for k, v in node.items() if k != "allOf"}
        for part in node["allOf"]:
            part = self.resolve(part["$ref"]) if isinstance(part, dict) and "$ref" in part else part
            if not isinstance(part, dict):
                continue
            for key, val in part.items():
                if key == "properties":
                    out["properties"] = {**out.get("properties", {}), **val}
                elif key == "required":
                    out["required"] = [*out.get("required", []), *val]
                else:
                    out.setdefault(key, val)
        return out

    def object(self, node: dict, name: str) -> str:
        self.leftover(node, {"type", "properties", "required", "additionalProperties"})
        props: dict = node.get("properties") or {}
        if not props:  # no "properties" at all: any object; declared empty: only {}
            free = "properties" not in node and node.get("additionalProperties") is not False
            return "any-object" if free else '"{" space "}" space'
        required = [k for k in props if k in node.get("required", [])]
        optional = [k for k in props if k not in required]
        kvs = {k: self.rule(f"{name}-{_slug(k)}-kv", f"{literal(json.dumps(k))} space \":\" space "
                            f"{self.value(props[k], f'{name}-{_slug(k)}')}") for k in props}
        parts = [" \",\" space ".join(kvs[k] for k in required)] if required else []
        if optional:
            opt = [kvs[k] for k in optional]
            if required:
                parts.append(" ".join(f'("," space {kv})?' for kv in opt))
            else:  # the first key present takes no comma
                alts = [" ".join([kv, *(f'("," space {o})?' for o in opt[i + 1:])]) for i, kv in enumerate(opt)]
                parts.append("(" + " | ".join(f"({a})" for a in alts) + ")?")
        return self.rule(name, '"{" space ' + " ".join(parts) + ' "}" space')

    def array(self, node: dict, name: str) -> str:
        self.leftover(node, {"type", "items", "prefixItems", "minItems", "maxItems"})
        if isinstance(node.get("prefixItems"), list):
            items = [self.value(p, f"{name}-{i}") for i, p in enumerate(node["prefixItems"])]
            return self.rule(name, '"[" space ' + ' "," space '.join(items) + ' "]" space')
        item = self.value(node.get("items", {}), f"{name}-item")
        lo, hi = int(node.get("minItems", 0)), node.get("maxItems")
        if hi is not None and int(hi) == 0:
            return self.rule(name, '"[" space "]" space')
        more = "*" if hi is None else f"{{{max(lo - 1, 0)},{int(hi) - 1}}}"
        if lo >= 1:
            more = f"{{{lo - 1},}}" if hi is None else more
            body = f'{item} ("," space {item}){more}'
        else:
            body = f'({item} ("," space {item}){more})?'
        return self.rule(name, f'"[" space {body} "]" space')

    def string(self, node: dict, name: str) -> str:
        if "pattern" in node:
            rule = self.pattern(node["pattern"], name)
            if rule:
                self.leftover(node, {"type", "pattern"})
                return rule
        fmt = node.get("format")
        if fmt in FORMATS:
            self.leftover(node, {"type", "format"})
            return _format_rule(fmt, self.rules)
        self.leftover(node, {"type", "minLength", "maxLength"})
        if "minLength" in node or "maxLength" in node:
            lo, hi = int(node.get("minLength", 0)), node.get("maxLength")
            reps = f"{{{lo},{int(hi)}}}" if hi is not None else f"{{{lo},}}"
            return self.rule(name, f'"\\"" char{reps} "\\"" space')
        return "string"

    def pattern(self, pattern: str, name: str) -> str | None:
        """llama.cpp's regex translator, anchored, "." kept inside a JSON string; None if it cannot."""
        from llama_cpp.llama_grammar import SchemaConverter

        starts, ends = pattern.startswith("^"), pattern.endswith("$") and not pattern.endswith("\\$")
        core = pattern[1 if starts else 0: -1 if ends else None]
        if not (starts and ends):  # JSON Schema patterns match anywhere: pad the open sides
            core = ("" if starts else ".*") + f"({core})" + ("" if ends else ".*")
        core = _shorthands(core)
        if core is None or re.search(r"\(\?", core):  # lookaround, \b, \D, backrefs, ...
            self.unsupported.add("pattern")
            return None
        conv = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
        try:
            rule = conv._visit_pattern(f"^{core}$", f"{name}-pattern")
        except Exception:
            self.unsupported.add("pattern")
            return None
        self.rules.update({k: SAFE_CHAR if k == "dot" else v for k, v in conv._rules.items() if k != "space"})
        return rule

    def integer(self, node: dict, name: str) -> str:
        bounds = dict(node)
        if "exclusiveMinimum" in node and isinstance(node["exclusiveMinimum"], int | float):
            bounds["minimum"] = int(node["exclusiveMinimum"]) + 1
        if "exclusiveMaximum" in node and isinstance(node["exclusiveMaximum"], int | float):
            bounds["maximum"] = int(node["exclusiveMaximum"]) - 1
        lo, hi = bounds.get("minimum"), bounds.get("maximum")
        exact = lo is not None and hi is not None and hi - lo <= 64
        self.leftover(node, {"type"} | ({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
                                        if exact else set()))
        if lo is None and hi is None:
            return "integer"
        return _bounded_integer({k: int(v) for k, v in bounds.items() if k in ("minimum", "maximum")},
                                name, self.rules)


_CLASSES = {"d": "0-9", "w": "a-zA-Z0-9_", "s": " "}


def _shorthands(pattern: str) -> str | None:
    """``\\d \\w \\s`` spelled as classes (llama.cpp's translator takes them literally); None for
    escapes a grammar cannot express (``\\b \\D \\1 \\p``...).

    >>> _shorthands(r"^\\d{5}[\\w-]$")
    '^[0-9]{5}[a-zA-Z0-9_-]$'
    """
    out, i, inside = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in _CLASSES:
                out.append(_CLASSES[nxt] if inside else f"[{_CLASSES[nxt]}]")
            elif nxt.isalnum() and nxt not in "tnr":
                return None
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        inside = (inside or c == "[") and not (inside and c == "]")
        out.append(c)
        i += 1
    return "".join(out)


def _slug(key: str) -> str:
    return re.sub(r"[^a-zA-Z0-9-]", "-", key)


def _format_rule(fmt: str, rules: dict) -> str:
    from llama_cpp.llama_grammar import PRIMITIVE_RULES, STRING_FORMAT_RULES

    if fmt == "uuid":
        rules["fmt-uuid"] = PRIMITIVE_RULES["uuid"].content
        return "fmt-uuid"
    for dep in {"date": ["date"], "time": ["time"], "date-time": ["date", "time", "date-time"]}[fmt]:
        rules[dep] = STRING_FORMAT_RULES[dep].content
    rules[f"{fmt}-string"] = STRING_FORMAT_RULES[f"{fmt}-string"].content
    return f"{fmt}-string"
