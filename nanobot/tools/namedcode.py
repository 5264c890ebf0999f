"""A name the user's message gives that a file named earlier in the session defines.

"what does add do?" after "In calc.py, fix sub: it should return a - b" is a question about ``add`` in
calc.py, which the message does not name; a small model without the file in view answers with any
"add" it knows (a tool's action). ``defined_in`` finds such a file: one the user named in one of their
last messages (a file that exists in the roots, ``tools.named``: one walk of the roots for all of
them) whose text defines a word of the new message (``def``/``class``/``function``/``func``/``fn`` and the name, in any programming
language that spells a definition so). The first step is then a look at it (``firstlook``). Facts only:
the files the user named and what they define; no word of the message is read as English.

>>> sorted(definitions("def add(a, b):\\n    pass\\nclass Box:\\n    async def get(self): ...\\nexport function toCelsius(f) {}\\n"))
['Box', 'add', 'get', 'toCelsius']
"""

from __future__ import annotations

import re
from pathlib import Path

from nanobot.base.regular import read_regular
from nanobot.tools.named import entries, named

_DEF = re.compile(r"^[ \t]*(?:(?:export\s+)?(?:pub\s+)?(?:async\s+)?(?:def|class|function|func|fn)\s+([A-Za-z_$][\w$]*)"
                  r"|([A-Za-z_][\w]*)\s*\(\)\s*\{)", re.M)  # the second: a shell function, ``name() {``
NAME = re.compile(r"[A-Za-z_$][\w$]*")  # a name in code (an identifier), in most languages
_WORD = re.compile(r"[\w$]+")
MAX_BYTES = 200_000  # a file read for its definitions at most
EARLIER = 3  # the user's messages before the last whose files count


FOCUS_LINES = 40  # a named definition longer than this is pointed at, not repeated


def focus(text: str, said: str) -> str:
    """A note that points at the definitions of ``text`` that the user's message ``said`` names, when
    the file defines others too: "[split_bill (named in the message) is lines 9-10:\\n...]", the
    definition repeated after the file, where a small model answering about the file attends ("What
    does split_bill in pricing.py do?" answered with the first function, with_vat); "" for none.

    >>> print(focus("def a():\\n    return 1\\n\\n\\ndef b():\\n    return 2\\n", "what does b do?"))
    [b (named in the message) is lines 5-6:
    def b():
        return 2]
    >>> focus("def a():\\n    return 1\\n", "what does a do?")
    ''
    """
    lines = text.splitlines()
    found = [(m.group(1) or m.group(2), text.count("\n", 0, m.start())) for m in _DEF.finditer(text)]
    if len({name for name, _ in found}) < 2:
        return ""
    words = set(_WORD.findall(said))
    notes = []
    for name, at in found:
        if name in words:
            end = _end(lines, at)
            body = "\n".join(lines[at:end + 1]) if end - at < FOCUS_LINES else ""
            notes.append(f"[{name} (named in the message) is lines {at + 1}-{end + 1}" + (f":\n{body}]" if body else "]"))
    return "\n".join(notes[:2])


def _end(lines: list[str], at: int) -> int:
    """The last line of the definition that starts on line ``at``: up to the next line indented no
    deeper (a closing brace there included), blank lines at its end left out."""
    indent = len(lines[at]) - len(lines[at].lstrip())
    end = at
    for j in range(at + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= indent:
            return j if line.strip()[0] in "})]" else end
        end = j
    return end


def definitions(text: str) -> set[str]:
    """The names ``text`` defines, by the keyword that spells a definition before them, or a shell
    function's ``name() {``.

    >>> sorted(definitions("def a():\\n    pass\\nfunction b() {}\\nfile_ext() {\\n  echo\\n}\\nmain()\\n"))
    ['a', 'b', 'file_ext']
    """
    return {a or b for a, b in _DEF.findall(text)}


SCAN_FILES = 300  # files of the roots read at most for ``defining``, each at most SCAN_BYTES
SCAN_BYTES = 64_000


def defining(text: str, roots: list[Path]) -> list[str]:
    """The files in the roots (relative, as ``named.entries`` lists them) whose text defines a name that
    ``text`` gives: "days_between gives a negative number ... Fix it, and do not change test_when.py"
    is about when.py, which the message does not name."""
    words = {w.encode() for w in NAME.findall(text)}
    found: list[str] = []
    files = [rel for rel, kind in entries(roots).items() if kind == "file"][:SCAN_FILES]
    for rel in files:
        for root in roots:
            path = root / rel
            try:
                if not path.is_file() or path.stat().st_size > SCAN_BYTES:
                    continue
                data = read_regular(path)
            except OSError:
                continue
            if any(w in data for w in words) and words & {d.encode() for d in definitions(data.decode("utf-8", "replace"))}:
                found.append(rel)
            break
    return found


def defined_in(said: list[str], roots: list[Path]) -> str | None:
    """The file (as named, relative to its root) that one of the user's ``EARLIER`` messages before the
    last named and that defines a word of the last message; None when there is none."""
    earlier = said[-1 - EARLIER:-1]
    if not earlier:
        return None
    words = set(NAME.findall(said[-1]))
    for n in reversed(named("\n".join(earlier), roots)):  # the latest message's files first
        if n.kind == "file":
            for root in roots:
                path = root / n.path
                try:
                    if path.is_file() and path.stat().st_size <= MAX_BYTES and words & definitions(
                            read_regular(path).decode("utf-8", "replace")):
                        return n.path
                except OSError:
                    continue
    return None
