"""Whether Python source still parses: the check an edit to a ``.py`` file passes before it is written
(``tools/files.py``) and before a coding session commits it (``coding/check.py``); ``broken_by`` checks
a shell script by ``bash -n`` too (``base/shsyntax.py``).

``syntax_error(text, name)`` is None for source that compiles, else one line naming the file, the line
and the error, which goes back to the model (so it can retry) or to the user:

>>> syntax_error("def f():\\n    return 1\\n", "greet.py") is None
True
>>> syntax_error("def f():\\nreturn 1\\n", "greet.py")
'greet.py line 2: IndentationError: expected an indented block after function definition on line 1'
"""

from __future__ import annotations

import warnings

from nanobot.base.shsyntax import is_shell, shell_error


def is_python(name: str) -> bool:
    return str(name).endswith((".py", ".pyw"))


def syntax_error(text: str, name: str) -> str | None:
    """None when ``text`` compiles as Python; else "NAME line N: ErrorType: message"."""
    try:
        with warnings.catch_warnings():  # e.g. invalid escape sequences: warnings, not errors
            warnings.simplefilter("ignore")
            compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as e:  # IndentationError and TabError are SyntaxErrors
        where = f" line {e.lineno}" if e.lineno else ""
        return f"{name}{where}: {type(e).__name__}: {e.msg}"
    except ValueError as e:  # source with NUL bytes
        return f"{name}: {e}"
    return None


def broken_by(old: str | None, new: str, name: str) -> str | None:
    """The error ``new`` introduces: None when it parses, or when ``old`` was already broken (an edit
    that does not fix a file someone left broken is not refused for it)."""
    check = syntax_error if is_python(name) else shell_error if is_shell(name) else None  # a shell script: bash -n
    if check is None:
        return None
    err = check(new, name)
    if err is None or (old is not None and check(old, name) is not None):
        return None
    return err


def refuse_broken(old: str | None, new: str, raw: str, tool: str) -> None:
    """A write that would leave a Python file or a shell script that no longer parses is refused
    (``ToolError``) with its line and error."""
    from nanobot.base.errors import ToolError

    if err := broken_by(old, new, raw):
        raise ToolError(f"{err}; the file was not changed: fix the text (indentation included) and call {tool} again")
