"""One MCP tool as a nanobot ``Tool``: named ``SERVER.TOOL``, its schema the server's ``inputSchema``.

The runner treats it like a built-in: the signature enters the context only for the call, the
arguments are generated under ``grammar()`` (``schema_grammar``) and validated by ``Args``, which
runs ``jsonschema`` against the server's schema (so keywords the grammar cannot express are still
enforced; a failure goes back to the model with the usual bounded retries). Trust ``ask`` works like
exec: an interactive chat asks, a piped chat, the daemon and ``nanobot tools run`` refuse.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import mcp_types as types
import referencing.exceptions
from pydantic import RootModel, model_validator

from nanobot.base.errors import ToolError
from nanobot.base.safe_text import printable
from nanobot.mcptools import patterns, schemacheck
from nanobot.mcptools.client import McpServer
from nanobot.mcptools.results import summarise
from nanobot.mcptools.schema_grammar import schema_grammar
from nanobot.tools.base import Tool, ToolContext, _strip_titles
from nanobot.tools.effects import Effect


def args_model(name: str, schema: dict) -> type[RootModel]:
    """A pydantic model whose validation is ``jsonschema`` against ``schema`` (errors: ToolError).
    The schema is vetted first (``schemacheck``: local refs only, no loops, bounded) and references
    resolve through a registry that retrieves nothing."""
    schemacheck.vet(name, schema)
    patterns.vet_keys(name, schema)
    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls = jsonschema.validators.extend(base, patterns.KEYWORDS)  # patterns matched under a time limit
    try:
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER, registry=schemacheck.registry())
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ToolError(f"{name}: the server's input schema is invalid ({e.message[:120]})") from None
    except (RecursionError, ValueError, TypeError) as e:
        raise ToolError(f"{name}: the server's input schema is unusable ({type(e).__name__})") from None

    class Args(RootModel[dict[str, Any]]):
        @model_validator(mode="before")
        @classmethod
        def _check(cls, data: Any) -> Any:
            try:
                errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
            except (RecursionError, referencing.exceptions.Unresolvable) as e:
                raise ToolError(f"arguments for {name} could not be checked against the server's "
                                f"schema ({type(e).__name__})") from None
            if errors:
                parts = [f"{'.'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message[:120]}"
                         for e in errors[:3]]
                raise ToolError(f"arguments for {name} are invalid: " + "; ".join(parts))
            return data

    Args.__name__ = f"{name}.Args"
    return Args


class McpTool(Tool):
    def __init__(self, server: McpServer, spec: types.Tool):
        self.server = server
        self.remote = spec.name
        self.group = server.name
        self.name = f"{server.name}.{re.sub(r'[^A-Za-z0-9_.-]', '_', spec.name)}"
        first = (spec.description or spec.title or spec.name).strip().splitlines() or [spec.name]
        self.description = " ".join(first[0].split())[:160]
        self.input_schema: dict = spec.input_schema or {"type": "object"}
        # the server says the tool changes nothing: the call policy lets it run unasked (callpolicy)
        self.read_only = bool(getattr(spec.annotations, "read_only_hint", False))
        self.effects = frozenset({Effect.SEARCHES if self.read_only else Effect.CHANGES})
        self.Args = args_model(self.name, self.input_schema)
        self._grammar = None

    def parameters(self) -> dict:  # type: ignore[override]  # per instance, not per class
        return _strip_titles(self.input_schema)

    def schema(self) -> dict:  # type: ignore[override]
        return {"name": self.name, "description": self.description, "server": self.group,
                "parameters": self.parameters()}

    def grammar(self) -> str:
        """The argument grammar (built once); ``unsupported`` then lists what only jsonschema checks."""
        if self._grammar is None:
            self._grammar = schema_grammar(self.input_schema)
        return self._grammar.gbnf

    def grammar_of(self, schema: dict) -> str:
        return schema_grammar(schema).gbnf

    @property
    def unsupported(self) -> list[str]:
        self.grammar()
        return self._grammar.unsupported

    def run(self, args: Any, ctx: ToolContext) -> str:
        data = args.root if isinstance(args, RootModel) else dict(args)
        if self.server.config.trust != "allow":
            shown = json.dumps(data, ensure_ascii=False)
            if ctx.confirm is None:
                raise ToolError(f"{self.name} refused: MCP server '{self.group}' has trust = \"ask\" and "
                                f"this session cannot ask the user; set trust = \"allow\" under "
                                f"[mcp.servers.{self.group}] in config.toml to run it without asking")
            if not ctx.confirm(printable(f"Run MCP tool {self.name} {shown}?", keep="")):
                raise ToolError(f"the user declined to run {self.name}")
        result = self.server.call(self.remote, data)
        text = summarise(result)
        if result.is_error:
            raise ToolError(f"{self.name} failed: {' '.join(text.split())[:300]}")
        return text
