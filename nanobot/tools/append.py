"""append_file: add lines at the end of a file, and change nothing else.

"Add 'lampe frontale' at the end of packing.txt", "log today's harvest at the bottom of garden.log": with
edit_file a small model has to copy the file's last line exactly into ``old`` and repeat it in ``new``;
it invents the line instead, or replaces the last line. An append has no text to copy and cannot
remove a line. The file is created when it does not exist; writes are atomic and a Python file that
would no longer parse is refused, as for the other file tools.
"""

from __future__ import annotations

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool, ToolContext
from nanobot.tools.effects import Effect
from nanobot.tools.files import PathArgs, _old_text, _writable, _write, refuse_broken
from nanobot.tools.paths import display


class AppendArgs(PathArgs):
    text: str = Field(description="the line or lines to add at the end", min_length=1, max_length=5_000)


def appended(old: str, text: str) -> str:
    """``old`` with ``text`` on lines of its own after it.

    >>> appended("passport\\nrain jacket", "lamp"), appended("", "first"), appended("a\\n", "b\\n")
    ('passport\\nrain jacket\\nlamp\\n', 'first\\n', 'a\\nb\\n')
    """
    head = old if not old or old.endswith("\n") else old + "\n"
    return head + text.strip("\n") + "\n"


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
        new = appended(old or "", args.text)
        refuse_broken(old, new, args.path, "append_file")
        _write(path, new, args.path, ctx)
        lines = args.text.strip("\n").count("\n") + 1
        return f"appended {lines} line{'s' if lines > 1 else ''} to {display(path, ctx)}"
