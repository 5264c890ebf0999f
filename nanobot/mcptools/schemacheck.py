"""An MCP server's input schema is data: vetted before nanobot builds a grammar or a validator from it.

A schema may only refer into itself. ``vet`` (iterative, so a deep schema cannot exhaust the stack)
refuses, naming the tool and what is wrong:

- any ``$ref``/``$dynamicRef``/``$recursiveRef`` that is not a local ``#...`` pointer, or one that
  points at nothing; a nested ``$id`` (it would move the base URI, making ``#`` mean another
  document); nesting deeper than ``MAX_DEPTH`` or more than ``MAX_NODES`` nodes;
- a loop of references that never descends into the instance (``{"$ref": "#"}``, ``allOf`` of
  itself): validation would recurse for ever.

``registry()`` is the second wall: a ``referencing.Registry`` whose retrieval refuses every URI, so
jsonschema never opens a connection whatever a schema says.

>>> vet("s.t", {"$ref": "#"})
Traceback (most recent call last):
nanobot.base.errors.ToolError: s.t: the server's input schema refers to itself in a loop ($ref '#')
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from nanobot.base.errors import ToolError

MAX_DEPTH, MAX_NODES = 64, 20_000
REFS = ("$ref", "$dynamicRef", "$recursiveRef")
IN_PLACE = ("allOf", "anyOf", "oneOf")  # applied to the same instance
IN_PLACE_ONE = ("not", "if", "then", "else")


def pointer(root: Any, ref: str) -> Any:
    """The node a local ``#/a/b`` pointer names (KeyError when none)."""
    node = root
    for part in ref[1:].lstrip("/").split("/") if ref not in ("#", "#/") else []:
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def vet(name: str, schema: Any) -> None:
    if not isinstance(schema, (dict, bool)):
        raise ToolError(f"{name}: the server's input schema is not a JSON object")
    stack, seen = [(schema, 0)], 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if depth > MAX_DEPTH or seen > MAX_NODES:
            raise ToolError(f"{name}: the server's input schema is nested deeper than {MAX_DEPTH} "
                            f"levels or has more than {MAX_NODES} parts")
        if isinstance(node, dict):
            for key in REFS:
                ref = node.get(key)
                if isinstance(ref, str):
                    _local(name, schema, key, ref)
            if depth and isinstance(node.get("$id"), str) and not node["$id"].startswith("#"):
                raise ToolError(f"{name}: the server's input schema has a nested $id "
                                f"('{node['$id'][:60]}'); only local references are followed")
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    _no_loops(name, schema)


def _local(name: str, root: Any, key: str, ref: str) -> None:
    if not ref.startswith("#"):
        raise ToolError(f"{name}: the server's input schema has a remote {key} '{ref[:80]}'; "
                        "only local '#/...' references are followed")
    try:
        pointer(root, ref)
    except KeyError:
        raise ToolError(f"{name}: the server's input schema has a {key} '{ref[:80]}' that "
                        "points at nothing") from None


def _next(root: Any, node: Any) -> list[Any]:
    """Schemas applied to the same instance as ``node``."""
    if not isinstance(node, dict):
        return []
    out = [pointer(root, r) for k in REFS if isinstance(r := node.get(k), str)]
    out += [s for k in IN_PLACE if isinstance(node.get(k), list) for s in node[k]]
    out += [node[k] for k in IN_PLACE_ONE if k in node]
    out += list(node["dependentSchemas"].values()) if isinstance(node.get("dependentSchemas"), dict) else []
    return out


def _no_loops(name: str, root: Any) -> None:
    """Depth-first over the in-place edges; a back edge is a loop (iterative: no recursion)."""
    state: dict[int, int] = {}  # id -> 1 on the path, 2 done
    for start in _all_dicts(root):
        if id(start) in state:
            continue
        path = [(start, iter(_next(root, start)))]
        state[id(start)] = 1
        while path:
            node, children = path[-1]
            child = next(children, None)
            if child is None:
                state[id(node)] = 2
                path.pop()
            elif isinstance(child, dict) and state.get(id(child)) == 1:
                ref = next((node[k] for k in REFS if isinstance(node.get(k), str)), "allOf/anyOf")
                raise ToolError(f"{name}: the server's input schema refers to itself in a loop "
                                f"($ref '{str(ref)[:60]}')")
            elif isinstance(child, dict) and id(child) not in state:
                state[id(child)] = 1
                path.append((child, iter(_next(root, child))))


def _all_dicts(root: Any) -> list[dict]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def registry():
    """A registry that retrieves nothing: every non-local reference is unresolvable."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str):
        raise NoSuchResource(ref=uri)

    return Registry(retrieve=refuse)
