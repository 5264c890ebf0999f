"""append_file: add lines at the end of a file, and change nothing else.

"Add 'lampe frontale' at the end of packing.txt", "log today's harvest at the bottom of garden.log": with
edit_file a small model has to copy the file's last line exactly into ``old`` and repeat it in ``new``;
it invents the line instead, or replaces the last line. An append has no text to copy and cannot
remove a line. The file is created when it does not exist; writes are atomic and a Python file that
would no longer parse is refused, as for the other file tools. In a Python file a new top-level
definition is set two blank lines below the code before it, and one that defines a name the file
defines already is refused (a small model appends the same function again after its first call): the
file keeps one, and the error points to edit_file to change it.
"""

from __future__ import annotations

import ast

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.base.pysyntax import is_python
from nanobot.tools.base import Tool, ToolContext
from nanobot.tools.effects import Effect
from nanobot.tools.files import PathArgs, _old_text, _root, _writable, _write, refuse_broken
from nanobot.tools.paths import display
from nanobot.tools.testargs import refuse_unfilled


class AppendArgs(PathArgs):
    text: str = Field(description="the line or lines to add at the end", min_length=1, max_length=5_000)


def appended(old: str, text: str) -> str:
    """``old`` with ``text`` on lines of its own after it.

    >>> appended("passport\\nrain jacket", "lamp"), appended("", "first"), appended("a\\n", "b\\n")
    ('passport\\nrain jacket\\nlamp\\n', 'first\\n', 'a\\nb\\n')
    """
    head = old if not old or old.endswith("\n") else old + "\n"
    return head + text.strip("\n") + "\n"


def defined_again(old: str, text: str) -> list[str]:
    """The top-level names the Python ``text`` defines that ``old`` defines already ([] where either does
    not parse).

    >>> defined_again("def a():\\n    pass\\n", "def a():\\n    return 1\\n"), defined_again("x = 1\\n", "def a(): pass")
    (['a'], [])
    """
    try:
        have, add = ast.parse(old), ast.parse(text.strip("\n"))
    except SyntaxError:
        return []
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    names = {n.name for n in have.body if isinstance(n, kinds)}
    return [n.name for n in add.body if isinstance(n, kinds) and n.name in names]


def spaced(old: str, text: str) -> str:
    """``old`` ending in two blank lines where ``text`` opens a top-level definition after code (PEP 8).

    >>> spaced("x = 1\\n", "def a(): pass"), spaced("x = 1\\n\\n", "class A: pass"), spaced("x = 1\\n", "y = 2")
    ('x = 1\\n\\n\\n', 'x = 1\\n\\n\\n', 'x = 1\\n')
    """
    first = text.lstrip("\n").split("\n", 1)[0]
    if not old.strip() or not first.startswith(("def ", "async def ", "class ", "@")):
        return old
    return old.rstrip("\n") + "\n\n\n"


class AppendFile(Tool):
    name = "append_file"
    effects = frozenset({Effect.CHANGES})
    target_args = {"path": "path"}
    description = "Add lines at the end of a text file (creates it if missing); nothing else changes."
    intent = "add lines at the end of a file, only when asked to"
    Args = AppendArgs

    def run(self, args: AppendArgs, ctx: ToolContext) -> str:
        path = _writable(args.path, ctx)
        old = _old_text(path, args.path) if path.exists() else None
        if old is None and path.exists():  # unreadable: writing would replace what it holds
            raise ToolError(f"cannot read '{args.path}' to add to it; the file was not changed")
        head = old or ""
        if old and is_python(args.path):
            if again := defined_again(old, args.text):
                raise ToolError(f"append_file: {', '.join(again)} is defined in {args.path} already; nothing was added. "
                                "To change it, call edit_file")
            head = spaced(old, args.text)
        new = appended(head, args.text)
        refuse_broken(old, new, args.path, "append_file")
        refuse_unfilled("append_file", args.path, path, _root(path, ctx), old, new)  # nanobot.tools.testargs
        _write(path, new, args.path, ctx)
        lines = args.text.strip("\n").count("\n") + 1
        return f"appended {lines} line{'s' if lines > 1 else ''} to {display(path, ctx)}"
