"""edit_file on a Python file: a ``new`` text that is whole functions or classes replaces the ones
of the same names.

Asked "In calc.py, fix sub: it should return a - b", a model may write the fixed function whole and
point at it with a fragment: ``old="sub(a, b)"``, ``new="def sub(a, b):\\n    return a - b"``. As
given, that puts a second ``def`` inside the first line (a syntax error, refused); with
``old="def sub(a, b):"`` it would parse and keep the old body under the new one. The model meant
"this is the new sub". So when ``new`` parses as top-level ``def``/``class`` statements whose names
the file defines at its top level, each is put in place of the one of its name (decorators
included), before the plain replacement is tried. ``old`` must not point elsewhere: it is either
absent from the file or inside the replaced definitions. Where ``old`` is in the file and the plain
replacement parses without leaving code under a ``return``/``raise`` (a guard written under the
``def`` line it points at: the old body still runs), the plain edit is what was asked and the old body
stays. The result must parse; anything else goes the plain way (``tools/files.py``: exact, then with
free whitespace).
"""

from __future__ import annotations

import ast
import re
import textwrap

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _span(node: ast.stmt) -> tuple[int, int]:
    """0-based first line (its decorators included) and end line (exclusive) of a definition."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first - 1, node.end_lineno or node.lineno


def _dead_code(tree: ast.Module) -> bool:
    """Whether a top-level definition (or a class's method) has statements after a ``return`` or
    ``raise`` in its own body."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ends = [i for i, st in enumerate(node.body) if isinstance(st, (ast.Return, ast.Raise))]
            if ends and ends[0] < len(node.body) - 1:
                return True
    return False


def _plain_is_sound(text: str, old: str, new: str) -> bool:
    """``old`` is in ``text`` once and replacing it with ``new`` parses with no unreachable code."""
    if not old.strip() or text.count(old) != 1:
        return False
    try:
        return not _dead_code(ast.parse(text.replace(old, new, 1)))
    except (SyntaxError, ValueError):
        return False


def replace_defs(text: str, old: str, new: str) -> tuple[str, list[str]] | None:
    """(the new text, the names replaced), or None when ``new`` is not whole definitions the file
    has, ``old`` points outside them, or the result would not parse.

    >>> calc = "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b\\n\\n\\nprint(add(40, 2))\\n"
    >>> print(replace_defs(calc, "sub(a, b)", "def sub(a, b):\\n    return a - b")[0])
    def add(a, b):
        return a + b
    <BLANKLINE>
    <BLANKLINE>
    def sub(a, b):
        return a - b
    <BLANKLINE>
    <BLANKLINE>
    print(add(40, 2))
    <BLANKLINE>
    >>> replace_defs(calc, "sub(a, b)", "def mul(a, b):\\n    return a * b") is None  # no def of that name
    True
    >>> replace_defs(calc, "print(add", "def sub(a, b):\\n    return a - b") is None  # old points elsewhere
    True
    >>> guard = "def sub(a, b):\\n    if a is None:\\n        raise ValueError"
    >>> replace_defs(calc, "def sub(a, b):", guard) is None  # plain: the guard goes above the kept body
    True
    """
    code = textwrap.dedent(new).strip("\n")
    try:
        tree, given = ast.parse(text), ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    if not given.body or not all(isinstance(n, _DEFS) for n in given.body):
        return None
    if _plain_is_sound(text, old, new):
        return None  # the exact edit asked for keeps working code: no body is thrown away
    have = {n.name: n for n in tree.body if isinstance(n, _DEFS)}
    if not all(n.name in have for n in given.body) or len({n.name for n in given.body}) != len(given.body):
        return None
    lines, code_lines = text.splitlines(keepends=True), code.splitlines()
    spans = sorted(((*_span(have[n.name]), n) for n in given.body), key=lambda s: s[0], reverse=True)
    inside = ["".join(lines[a:b]) for a, b, _ in spans]
    flat = " ".join(old.split())
    if flat and " ".join(text.split()).count(flat) and not any(flat in " ".join(s.split()) for s in inside):
        return None  # old is in the file, but not in what would be replaced: the model meant something else
    for start, end, node in spans:
        first, last = _span(node)
        body = "\n".join(code_lines[first:last]) + "\n"
        lines[start:end] = [body]
    result = "".join(lines)
    try:
        ast.parse(result)
    except SyntaxError:
        return None
    return result, [n.name for n in given.body]


def add_defs(text: str, old: str, new: str) -> tuple[str, list[str]] | None:
    """(the new text, the names added) when ``new`` is whole top-level definitions the file does not
    have and ``old`` lies in existing ones: ``new`` goes after them and they stay ("add reverse_words"
    pointed at ``def slugify(s):`` would otherwise replace slugify). None when that does not apply."""
    code = textwrap.dedent(new).strip("\n")
    try:
        tree, given = ast.parse(text), ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    have = [n for n in tree.body if isinstance(n, _DEFS)]
    if not given.body or not all(isinstance(n, _DEFS) for n in given.body) or {n.name for n in given.body} & {n.name for n in have}:
        return None
    at = text.find(old)
    if at < 0 or not old.strip():
        return None
    first, last = text[:at].count("\n"), text[:at + len(old)].rstrip("\n").count("\n")
    inside = [n for n in have if _span(n)[0] <= last and first < _span(n)[1]]
    if not inside:
        return None
    end = max(_span(n)[1] for n in inside)
    lines = text.splitlines(keepends=True)
    head = "".join(lines[:end])
    result = head + ("" if head.endswith("\n") else "\n") + "\n\n" + code + "\n" + ("\n\n" if lines[end:] else "") + "".join(lines[end:]).lstrip("\n")
    try:
        ast.parse(result)
    except SyntaxError:
        return None
    return result, [n.name for n in given.body]


def said_words(said: str) -> set[str]:
    """The words of a request, as a definition's name would be among them (any script)."""
    return set(re.findall(r"\w+", said))


def unnamed_changes(before: str, after: str, said: str) -> list[str]:
    """The file's top-level definitions whose text an edit changes although the request names other
    definitions of the file and not these: asked "fix sub", a model that also rewrote ``add`` (``return
    a + b`` -> ``return a - b``, a changed form the loss guard lets through). A request that names no
    definition ("fix the bug in calc.py") restricts nothing. Names are the parse tree's, read as words.

    >>> calc = "def add(a, b):\\n    return a + b\\n\\n\\ndef sub(a, b):\\n    return a + b\\n"
    >>> unnamed_changes(calc, calc.replace("+", "-"), "in calc.py, fix sub: it should return a - b")
    ['add']
    >>> unnamed_changes(calc, calc.replace("+", "-"), "fix the bug in calc.py")
    []
    >>> unnamed_changes(calc, calc.replace("a + b\\n", "a + b + 0\\n", 1), "Add mul(a, b) to calc.py")
    ['add']
    >>> unnamed_changes(calc, calc.replace("def add", "def mul"), "Add mul(a, b) to calc.py")  # add is gone
    ['add']

    A class that only gains methods, every statement it had kept as it was, is not changed: a test added
    to a ``unittest`` class goes inside it.

    >>> case = "class T:\\n    def test_a(self):\\n        pass\\n"
    >>> unnamed_changes(case, case + "\\n    def test_b(self):\\n        pass\\n", "test remove_contact(name)")
    []
    """
    try:
        old_tree, new_tree = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return []
    old = {n.name: n for n in old_tree.body if isinstance(n, _DEFS)}
    new = {n.name: n for n in new_tree.body if isinstance(n, _DEFS)}
    words = said_words(said)
    if not any(name in words for name in old) and not (code_names(said) - set(old)):
        return []
    return [name for name, node in old.items() if name not in words and not (
        name in new and (_source(before, node) == _source(after, new[name])
                         or _grown(before, node, after, new[name])))]


def _source(text: str, node: ast.stmt) -> str | None:
    return ast.get_source_segment(text, node)


def _grown(before: str, old: ast.stmt, after: str, new: ast.stmt) -> bool:
    """Whether the class ``new`` is ``old`` with methods added: the same bases and decorators, every
    statement of the old body there in its order and as it was, and the rest new functions."""
    if not (isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef)):
        return False
    if [ast.dump(a) for a in (*old.bases, *old.keywords, *old.decorator_list)] != [
            ast.dump(b) for b in (*new.bases, *new.keywords, *new.decorator_list)]:
        return False
    kept = [_source(before, s) for s in old.body]
    names = {s.name for s in old.body if isinstance(s, _DEFS)}
    rest = iter(kept)
    want = next(rest, None)
    for s in new.body:
        if want is not None and _source(after, s) == want:
            want = next(rest, None)
        elif not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) or s.name in names:
            return False
    return want is None


def request_of(text: str, asked: list[str]) -> str:
    """What an edit of the Python file ``text`` was asked in, for which definitions it names: the user's
    last message where it names one of the file's definitions or writes a name as code, else the last
    two (an agreement, "yes, do that", names nothing). A definition an earlier question named ("What
    does split_bill do?") is not asked to change by "Add a function tip(total, pct)"."""
    last = asked[-1] if asked else ""
    try:
        defined = {n.name for n in ast.parse(text).body if isinstance(n, _DEFS)}
    except (SyntaxError, ValueError):
        defined = set()
    return last if code_names(last) or defined & said_words(last) else " ".join(asked)


def code_names(said: str) -> set[str]:
    """Names a request writes as code: called (``tip(total, pct)``) or in backticks. A request that names
    a function the file does not have ("Add a function tip(total, pct) to pricing.py") asks for nothing
    in the file's other definitions.

    >>> sorted(code_names("Add a function tip(total, pct) to `pricing.py` like `mul`; see the fix (below)"))
    ['mul', 'tip']
    """
    return set(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\(", said)) | set(re.findall(r"`([A-Za-z_]\w*)(?:\(\))?`", said))
