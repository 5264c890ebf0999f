"""calculate: arithmetic worked out exactly, for a small model whose mental sums go wrong (the 1.5B
answered "1234 times 56" with 6804 and "81 divided by 4.5" with 17).

The expression is parsed with ``ast`` and only numbers, + - * / // % **, unary signs, parentheses and
a few named functions (round, abs, min, max, sqrt, floor, ceil) are evaluated: no names, attributes,
calls of anything else or strings, so the model's text never runs as code. Powers and results are
bounded so a confused or hostile expression (``9**9**9``) cannot hang the turn.
"""

from __future__ import annotations

import ast
import math
import operator

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS = {"round": round, "abs": abs, "min": min, "max": max, "sqrt": math.sqrt, "floor": math.floor,
              "ceil": math.ceil}
LIMIT = 10 ** 100  # no number the user could want is larger; a power that would pass it is refused


def evaluate(expression: str) -> int | float:
    """The value of ``expression``; ToolError naming what is not arithmetic.

    >>> evaluate("2.25 * 60"), evaluate("(3 * 24 - 19)"), evaluate("sqrt(16) + 2 ** 3")
    (135.0, 53, 12.0)
    """
    try:
        tree = ast.parse(expression.replace("^", "**").replace("×", "*").replace("÷", "/"), mode="eval")
    except SyntaxError:
        raise ToolError(f"'{expression}' is not an arithmetic expression; write numbers and + - * / ( ) only "
                        "(a time of day in minutes: 14:40 is 14 * 60 + 40)") from None
    return _value(tree.body)


def _value(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) * math.log10(max(2, abs(left))) > 100:
            raise ToolError("that power is too large to work out; use a smaller exponent")
        try:
            out = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ToolError("division by zero") from None
        if isinstance(out, complex) or abs(out) > LIMIT:
            raise ToolError("the result is not a real number of a sensible size")
        return out
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and not node.keywords and node.args):
        try:
            return _FUNCTIONS[node.func.id](*(_value(a) for a in node.args))
        except (ValueError, TypeError) as e:
            raise ToolError(f"{node.func.id}: {e}") from None
    raise ToolError(f"'{ast.unparse(node)}' is not arithmetic; use numbers, + - * / ** % ( ) and "
                    f"{', '.join(_FUNCTIONS)}")


def shown(value: int | float) -> str:
    """A result as a person writes it: 135.0 -> 135, 0.1 + 0.2 -> 0.3 (12 significant digits)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


class CalcArgs(ToolArgs):
    expression: str = Field(description="the arithmetic as an expression of numbers, e.g. 3.5 * 60", max_length=300)


class Calculate(Tool):
    name = "calculate"
    effects = frozenset({Effect.COMPUTES})
    description = "Work out arithmetic exactly (+ - * / ** % round sqrt): write the numbers as one expression."
    intent = "work out a sum, a percentage or a conversion with numbers"
    Args = CalcArgs

    def run(self, args: CalcArgs, ctx: ToolContext) -> str:
        return f"{args.expression.strip()} = {shown(evaluate(args.expression))}"
